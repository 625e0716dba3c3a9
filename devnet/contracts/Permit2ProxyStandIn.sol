// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface ITransferFrom {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @title Stand-in for x402's Permit2 proxy (x402ExactPermit2Proxy) on the local devnet.
/// @notice Settles an x402 payment for tokens without EIP-3009 the way the real proxy looks on
/// chain: a facilitator's transaction moves the payer's tokens to the destination and the proxy
/// emits `Settled()`, or `SettledWithPermit()` when the settlement also carried an EIP-2612 permit
/// for the token. The real proxy checks a Permit2 witness signature (and applies the permit); here
/// the payer's ERC-20 approval to this contract stands in for both, since the pipeline only sees
/// the events.
contract Permit2ProxyStandIn {
    /// @notice Same signatures as the real proxy's events.
    event Settled();
    event SettledWithPermit();

    function settle(address token, address owner, address to, uint256 amount) external {
        transfer(token, owner, to, amount);
        emit Settled();
    }

    function settleWithPermit(address token, address owner, address to, uint256 amount) external {
        transfer(token, owner, to, amount);
        emit SettledWithPermit();
    }

    function transfer(address token, address owner, address to, uint256 amount) private {
        require(amount > 0, "amount");
        require(owner != address(0) && to != address(0), "address");
        require(ITransferFrom(token).transferFrom(owner, to, amount), "transfer");
    }
}

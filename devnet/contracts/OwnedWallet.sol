// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title A minimal ERC-1271 contract wallet for the devnet's wallet-claim tests.
/// @notice One owner EOA; a signature is valid for a hash when the owner signed that very hash
/// (65 bytes r, s, v; low s only). Real smart wallets first bind the hash to the wallet and chain
/// (ERC-7739 and the like) so that one owner's signature is not valid for all of their wallets;
/// this one needs no more than to show a service verifying signatures through `isValidSignature`.
contract OwnedWallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e; // bytes4(keccak256("isValidSignature(bytes32,bytes)"))
    bytes4 internal constant INVALID = 0xffffffff;
    // secp256k1n / 2: a higher s is the malleable twin of a valid signature.
    uint256 internal constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_N) return INVALID;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : INVALID;
    }
}

/// @title CREATE2 factory of OwnedWallet, for counterfactual (ERC-6492) signatures.
/// @notice A wallet's address is fixed by its owner and salt before it exists, so it can sign (an
/// ERC-6492 signature carries this factory and the `deploy` call) while still undeployed.
contract OwnedWalletFactory {
    event WalletDeployed(address indexed wallet, address indexed owner, bytes32 salt);

    /// @notice Deploys the wallet of (owner, salt), or returns it when it already exists.
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = walletAddress(owner, salt);
        if (wallet.code.length > 0) return wallet;
        new OwnedWallet{salt: salt}(owner);
        emit WalletDeployed(wallet, owner, salt);
    }

    /// @notice The address the wallet of (owner, salt) has, deployed or not.
    function walletAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}

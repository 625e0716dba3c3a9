// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Minimal ERC-8004 Identity Registry for the local devnet.
/// @notice An ERC-721 whose token id is the agent id, with on-chain metadata and a verified payment
/// wallet. Events, function signatures, revert strings and the EIP-712 domain follow the deployed
/// registry (erc-8004-contracts IdentityRegistryUpgradeable 2.0.0), so logs look exactly like on Base.
/// Not upgradeable, no safeTransferFrom, no ERC-1271 wallets: the devnet needs none of them.
contract IdentityRegistry {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    string public constant name = "AgentIdentity";
    string public constant symbol = "AGENT";

    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant DOMAIN_NAME_HASH = keccak256("ERC8004IdentityRegistry");
    bytes32 private constant DOMAIN_VERSION_HASH = keccak256("1");
    bytes32 private constant RESERVED_AGENT_WALLET_KEY_HASH = keccak256("agentWallet");
    uint256 private constant MAX_DEADLINE_DELAY = 5 minutes;
    /// @dev secp256k1 order / 2: a larger s is the malleable twin of a valid signature (EIP-2).
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    uint256 private _lastId;
    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) private _tokenApprovals;
    mapping(address => mapping(address => bool)) private _operatorApprovals;
    mapping(uint256 => string) private _tokenURIs;
    /// @dev Includes the reserved "agentWallet" key, as 20 packed bytes or empty when unset.
    mapping(uint256 => mapping(string => bytes)) private _metadata;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    /// @dev ERC-4906, emitted by OpenZeppelin's ERC721URIStorage whenever a token URI is stored.
    event MetadataUpdate(uint256 _tokenId);
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);

    error ERC721NonexistentToken(uint256 tokenId);
    error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner);
    error ERC721InsufficientApproval(address operator, uint256 tokenId);
    error ERC721InvalidReceiver(address receiver);
    error ERC721InvalidOperator(address operator);

    // --- Registration --------------------------------------------------------------------------

    /// @notice Registers without a URI; the owner sets one later with setAgentURI.
    function register() external returns (uint256 agentId) {
        agentId = _register("", false);
    }

    function register(string memory agentURI) external returns (uint256 agentId) {
        agentId = _register(agentURI, true);
    }

    function register(string memory agentURI, MetadataEntry[] memory metadata) external returns (uint256 agentId) {
        agentId = _register(agentURI, true);
        for (uint256 i; i < metadata.length; i++) {
            require(keccak256(bytes(metadata[i].metadataKey)) != RESERVED_AGENT_WALLET_KEY_HASH, "reserved key");
            _metadata[agentId][metadata[i].metadataKey] = metadata[i].metadataValue;
            emit MetadataSet(agentId, metadata[i].metadataKey, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    /// @dev Same event order as the deployed registry: Transfer (mint), MetadataUpdate when a URI
    /// is stored (OpenZeppelin's ERC721URIStorage emits it), Registered, then the MetadataSet of the
    /// reserved agentWallet key; extra entries follow in register(uri, metadata).
    function _register(string memory agentURI, bool withURI) private returns (uint256 agentId) {
        agentId = _lastId++;
        bytes memory wallet = abi.encodePacked(msg.sender);
        _metadata[agentId]["agentWallet"] = wallet;
        _owners[agentId] = msg.sender;
        _balances[msg.sender] += 1;
        emit Transfer(address(0), msg.sender, agentId);
        if (withURI) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        emit MetadataSet(agentId, "agentWallet", "agentWallet", wallet);
    }

    function setAgentURI(uint256 agentId, string calldata newURI) external {
        require(_isAuthorized(ownerOf(agentId), msg.sender, agentId), "Not authorized");
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    function _setTokenURI(uint256 agentId, string memory agentURI) private {
        _tokenURIs[agentId] = agentURI;
        emit MetadataUpdate(agentId);
    }

    // --- Metadata and the payment wallet -----------------------------------------------------

    function getMetadata(uint256 agentId, string memory metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    function setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) external {
        require(_isAuthorized(_owners[agentId], msg.sender, agentId), "Not authorized");
        require(keccak256(bytes(metadataKey)) != RESERVED_AGENT_WALLET_KEY_HASH, "reserved key");
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function getAgentWallet(uint256 agentId) external view returns (address) {
        return address(bytes20(_metadata[agentId]["agentWallet"]));
    }

    /// @notice Points the agent's payments at `newWallet`, which proves control by signing
    /// AgentWalletSet(agentId, newWallet, owner, deadline) against this registry's EIP-712 domain.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        address owner = ownerOf(agentId);
        require(_isAuthorized(owner, msg.sender, agentId), "Not authorized");
        require(newWallet != address(0), "bad wallet");
        require(block.timestamp <= deadline, "expired");
        require(deadline <= block.timestamp + MAX_DEADLINE_DELAY, "deadline too far");

        bytes32 structHash = keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), structHash));
        require(_recover(digest, signature) == newWallet, "invalid wallet sig");

        _setAgentWallet(agentId, abi.encodePacked(newWallet));
    }

    function unsetAgentWallet(uint256 agentId) external {
        require(_isAuthorized(ownerOf(agentId), msg.sender, agentId), "Not authorized");
        _setAgentWallet(agentId, "");
    }

    function _setAgentWallet(uint256 agentId, bytes memory wallet) private {
        _metadata[agentId]["agentWallet"] = wallet;
        emit MetadataSet(agentId, "agentWallet", "agentWallet", wallet);
    }

    /// @notice ERC-5267, which wallets and SDKs read to sign setAgentWallet.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory domainName,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "ERC8004IdentityRegistry", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @dev Computed on every call so it always binds the current chain id.
    function _domainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(EIP712_DOMAIN_TYPEHASH, DOMAIN_NAME_HASH, DOMAIN_VERSION_HASH, block.chainid, address(this)));
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address signer) {
        require(signature.length == 65, "invalid wallet sig");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        require(uint256(s) <= MAX_S && (v == 27 || v == 28), "invalid wallet sig");
        signer = ecrecover(digest, v, r, s);
        require(signer != address(0), "invalid wallet sig");
    }

    // --- ERC-721 -------------------------------------------------------------------------------

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        // ERC-165, ERC-721, ERC-721 metadata.
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x80ac58cd || interfaceId == 0x5b5e139f;
    }

    function balanceOf(address owner) external view returns (uint256) {
        return _balances[owner];
    }

    function ownerOf(uint256 tokenId) public view returns (address owner) {
        owner = _owners[tokenId];
        if (owner == address(0)) revert ERC721NonexistentToken(tokenId);
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return _tokenURIs[tokenId];
    }

    function approve(address to, uint256 tokenId) external {
        address owner = ownerOf(tokenId);
        if (msg.sender != owner && !_operatorApprovals[owner][msg.sender]) revert ERC721InsufficientApproval(msg.sender, tokenId);
        _tokenApprovals[tokenId] = to;
        emit Approval(owner, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return _tokenApprovals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    /// @notice Moves the agent to a new owner. The verified payment wallet does not travel with it:
    /// it is cleared (MetadataSet agentWallet to empty, before the Transfer, as deployed) and the new
    /// owner has to verify one again.
    function transferFrom(address from, address to, uint256 tokenId) external {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        address owner = ownerOf(tokenId);
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        if (!_isAuthorized(owner, msg.sender, tokenId)) revert ERC721InsufficientApproval(msg.sender, tokenId);

        _setAgentWallet(tokenId, "");
        delete _tokenApprovals[tokenId];
        unchecked {
            // The owner holds this token, and balances are bounded by the number of agents.
            _balances[from] -= 1;
            _balances[to] += 1;
        }
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    function _isAuthorized(address owner, address spender, uint256 tokenId) private view returns (bool) {
        return spender != address(0)
            && (spender == owner || _operatorApprovals[owner][spender] || _tokenApprovals[tokenId] == spender);
    }
}

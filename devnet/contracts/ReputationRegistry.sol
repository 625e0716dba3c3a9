// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @dev The part of the Identity Registry this registry calls.
interface IIdentityRegistry {
    /// @dev Reverts for an agent that was never registered.
    function ownerOf(uint256 agentId) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function getApproved(uint256 agentId) external view returns (address);
}

/// @title Minimal ERC-8004 Reputation Registry for the local devnet.
/// @notice Feedback from clients to agents, revocations and responses. Events and function
/// signatures are the official ABI's, revert strings those of erc-8004-contracts. Not upgradeable:
/// the identity registry is a constructor argument instead of initialize(); getSummary and
/// readAllFeedback are left out (the events carry everything an indexer needs).
contract ReputationRegistry {
    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    /// @dev Bound on |value|, as deployed, so sums over many feedbacks cannot overflow int256.
    int128 private constant MAX_ABS_VALUE = 1e38;

    address private immutable _identityRegistry;

    mapping(uint256 => mapping(address => mapping(uint64 => Feedback))) private _feedback;
    mapping(uint256 => mapping(address => uint64)) private _lastIndex;
    mapping(uint256 => address[]) private _clients;
    mapping(uint256 => mapping(address => bool)) private _clientExists;
    mapping(uint256 => mapping(address => mapping(uint64 => address[]))) private _responders;
    mapping(uint256 => mapping(address => mapping(uint64 => mapping(address => uint64)))) private _responseCount;

    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    constructor(address identityRegistry_) {
        require(identityRegistry_ != address(0), "bad identity");
        _identityRegistry = identityRegistry_;
    }

    function getIdentityRegistry() external view returns (address) {
        return _identityRegistry;
    }

    /// @notice Records feedback from msg.sender (the client); feedbackIndex counts from 1 per
    /// (agent, client). endpoint, feedbackURI and feedbackHash are only emitted, not stored.
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        require(valueDecimals <= 18, "too many decimals");
        require(value >= -MAX_ABS_VALUE && value <= MAX_ABS_VALUE, "value too large");
        _requireNotAgentOperator(agentId);

        uint64 feedbackIndex = _store(agentId, value, valueDecimals, tag1, tag2);
        // Split from the emit to stay within the EVM's 16 reachable stack slots without via-IR.
        _emitNewFeedback(agentId, feedbackIndex, value, valueDecimals, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    /// @dev The spec forbids feedback from the agent's owner or anyone approved to act for it.
    function _requireNotAgentOperator(uint256 agentId) private view {
        IIdentityRegistry identity = IIdentityRegistry(_identityRegistry);
        address owner;
        try identity.ownerOf(agentId) returns (address agentOwner) {
            owner = agentOwner;
        } catch {}
        require(owner != address(0), "Agent does not exist");
        require(
            msg.sender != owner && !identity.isApprovedForAll(owner, msg.sender) && identity.getApproved(agentId) != msg.sender,
            "Self-feedback not allowed"
        );
    }

    function _store(uint256 agentId, int128 value, uint8 valueDecimals, string calldata tag1, string calldata tag2)
        private
        returns (uint64 feedbackIndex)
    {
        feedbackIndex = ++_lastIndex[agentId][msg.sender];
        _feedback[agentId][msg.sender][feedbackIndex] =
            Feedback({value: value, valueDecimals: valueDecimals, isRevoked: false, tag1: tag1, tag2: tag2});
        if (!_clientExists[agentId][msg.sender]) {
            _clientExists[agentId][msg.sender] = true;
            _clients[agentId].push(msg.sender);
        }
    }

    function _emitNewFeedback(
        uint256 agentId,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) private {
        emit NewFeedback(
            agentId, msg.sender, feedbackIndex, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        require(feedbackIndex > 0, "index must be > 0");
        require(feedbackIndex <= _lastIndex[agentId][msg.sender], "index out of bounds");
        Feedback storage feedback = _feedback[agentId][msg.sender][feedbackIndex];
        require(!feedback.isRevoked, "Already revoked");
        feedback.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @notice Anyone may respond to a feedback: the agent showing a refund, an aggregator flagging spam.
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        require(bytes(responseURI).length > 0, "Empty URI");
        require(feedbackIndex > 0, "index must be > 0");
        require(feedbackIndex <= _lastIndex[agentId][clientAddress], "index out of bounds");
        if (_responseCount[agentId][clientAddress][feedbackIndex][msg.sender]++ == 0) {
            _responders[agentId][clientAddress][feedbackIndex].push(msg.sender);
        }
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        require(feedbackIndex > 0, "index must be > 0");
        require(feedbackIndex <= _lastIndex[agentId][clientAddress], "index out of bounds");
        Feedback storage f = _feedback[agentId][clientAddress][feedbackIndex];
        return (f.value, f.valueDecimals, f.tag1, f.tag2, f.isRevoked);
    }

    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _lastIndex[agentId][clientAddress];
    }

    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    /// @notice Responses to one feedback, by the given responders or by anyone when none are given;
    /// feedbackIndex 0 means all of the client's feedback, clientAddress 0 all clients'.
    function getResponseCount(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        external
        view
        returns (uint64 count)
    {
        if (clientAddress == address(0)) {
            address[] storage clients = _clients[agentId];
            for (uint256 i; i < clients.length; i++) count += _countForClient(agentId, clients[i], responders);
        } else if (feedbackIndex == 0) {
            count = _countForClient(agentId, clientAddress, responders);
        } else {
            count = _countResponses(agentId, clientAddress, feedbackIndex, responders);
        }
    }

    function _countForClient(uint256 agentId, address clientAddress, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        uint64 lastIndex = _lastIndex[agentId][clientAddress];
        for (uint64 j = 1; j <= lastIndex; j++) count += _countResponses(agentId, clientAddress, j, responders);
    }

    function _countResponses(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        mapping(address => uint64) storage counts = _responseCount[agentId][clientAddress][feedbackIndex];
        if (responders.length == 0) {
            address[] storage all = _responders[agentId][clientAddress][feedbackIndex];
            for (uint256 k; k < all.length; k++) count += counts[all[k]];
        } else {
            for (uint256 k; k < responders.length; k++) count += counts[responders[k]];
        }
    }
}

// SPDX-License-Identifier: MIT
// Resolves the markets of both lanes (one resolver per deployment): proposal, challenge, vote rounds and the council.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IMarketResolver} from "./interfaces/IMarketResolver.sol";
import {IResolvableMarket} from "./interfaces/IResolvableMarket.sol";

/// @title MarketResolver
/// @notice See IMarketResolver. Holds challenge bonds until settleChallengeBond pays them out, and nothing else;
/// markets hold their own funds and only read this contract.
/// @dev Only the first step on a market (propose, or openVote for an absent creator) checks that the market names this
/// resolver: every later step needs a record that such a step created.
contract MarketResolver is IMarketResolver, EIP712 {
    using SafeERC20 for IERC20;

    /// @notice Shortest challenge window unless shortWindowsAllowed.
    uint32 public constant MIN_CHALLENGE_WINDOW = 2 hours;
    /// @notice Shortest vote round unless shortWindowsAllowed.
    uint32 public constant MIN_VOTE_WINDOW = 24 hours;
    /// @notice Round 1, and one integrity restart.
    uint8 public constant MAX_VOTE_ROUNDS = 2;
    /// @notice EIP-712 type of a relayed proposal, signed by the market's creator.
    bytes32 public constant PROPOSAL_TYPEHASH = keccak256("Proposal(address market,uint8 outcome,uint256 deadline)");
    /// @notice EIP-712 type of a council decision, signed by council members.
    bytes32 public constant COUNCIL_DECISION_TYPEHASH =
        keccak256("CouncilDecision(address market,uint8 outcome,uint8 round)");

    /// @inheritdoc IMarketResolver
    address public immutable operator;
    /// @inheritdoc IMarketResolver
    IERC20 public immutable bondToken;
    /// @inheritdoc IMarketResolver
    uint96 public immutable challengeBond;
    /// @inheritdoc IMarketResolver
    bool public immutable shortWindowsAllowed;

    /// @inheritdoc IMarketResolver
    uint32 public challengeWindow;
    /// @inheritdoc IMarketResolver
    uint32 public voteWindow;
    /// @inheritdoc IMarketResolver
    uint256 public councilThreshold;
    /// @inheritdoc IMarketResolver
    mapping(address account => bool) public isCouncilMember;
    address[] private _council;
    mapping(address market => ResolutionRecord) private _records;

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

    /// @param operator_ The service's operator account.
    /// @param bondToken_ The token challenge bonds are paid in (PM).
    /// @param challengeBond_ PM base units a challenge costs (the creation bond's amount).
    /// @param challengeWindow_ Seconds a proposal can be challenged (2 h in the service).
    /// @param voteWindow_ Seconds a vote round runs (24 h in the service).
    /// @param shortWindowsAllowed_ True only on local test chains: lifts the 2 h / 24 h floors.
    constructor(
        address operator_,
        IERC20 bondToken_,
        uint96 challengeBond_,
        uint32 challengeWindow_,
        uint32 voteWindow_,
        bool shortWindowsAllowed_
    ) EIP712("MarketResolver", "1") {
        if (operator_ == address(0) || address(bondToken_) == address(0)) revert ZeroAddress();
        operator = operator_;
        bondToken = bondToken_;
        challengeBond = challengeBond_;
        shortWindowsAllowed = shortWindowsAllowed_;
        _setWindows(challengeWindow_, voteWindow_, shortWindowsAllowed_);
    }

    /// @inheritdoc IMarketResolver
    function propose(address market, uint8 outcome) external {
        IResolvableMarket m = _market(market);
        address creator = m.creator();
        if (msg.sender != creator) revert NotCreator(msg.sender);
        _propose(m, creator, outcome);
    }

    /// @inheritdoc IMarketResolver
    function proposeFor(address market, uint8 outcome, uint256 deadline, bytes calldata signature) external {
        IResolvableMarket m = _market(market);
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        address creator = m.creator();
        if (!SignatureChecker.isValidSignatureNowCalldata(creator, proposalDigest(market, outcome, deadline), signature)) {
            revert BadSignature(creator);
        }
        _propose(m, creator, outcome);
    }

    /// @inheritdoc IMarketResolver
    function challenge(address market, uint8 counterOutcome) external {
        ResolutionRecord storage r = _records[market];
        if (r.phase != Phase.Proposed) revert WrongPhase(r.phase);
        if (block.timestamp >= r.challengeDeadline) revert ChallengeWindowClosed(r.challengeDeadline);
        if (counterOutcome == r.proposedOutcome) revert CounterOutcomeIsProposed(counterOutcome);
        _checkOutcome(IResolvableMarket(market), counterOutcome);
        uint96 bond = challengeBond;
        r.phase = Phase.Disputed;
        r.counterOutcome = counterOutcome;
        r.challenger = msg.sender;
        r.challengeBondPaid = bond;
        emit ResolutionChallenged(market, msg.sender, counterOutcome, bond);
        if (bond != 0) bondToken.safeTransferFrom(msg.sender, address(this), bond);
    }

    /// @inheritdoc IMarketResolver
    function finalize(address market) external {
        ResolutionRecord storage r = _records[market];
        if (r.phase != Phase.Proposed) revert WrongPhase(r.phase);
        if (block.timestamp < r.challengeDeadline) revert ChallengeWindowOpen(r.challengeDeadline);
        _resolve(market, r, r.proposedOutcome, Route.Undisputed);
    }

    /// @inheritdoc IMarketResolver
    function openVote(address market) external onlyOperator {
        ResolutionRecord storage r = _records[market];
        Phase phase = r.phase;
        uint8 round = 1;
        VoteReason reason;
        if (phase == Phase.Disputed) {
            reason = VoteReason.Dispute;
        } else if (phase == Phase.None) {
            uint64 resolveBy = _market(market).resolveBy();
            if (block.timestamp <= resolveBy) revert NotYetAbsent(resolveBy);
            reason = VoteReason.AbsentCreator;
        } else if (phase == Phase.Voting) {
            if (r.voteRound >= MAX_VOTE_ROUNDS) revert NoMoreVoteRounds();
            round = r.voteRound + 1;
            reason = VoteReason.IntegrityRestart;
        } else {
            revert WrongPhase(phase);
        }
        uint64 deadline = uint64(block.timestamp) + voteWindow;
        r.phase = Phase.Voting;
        r.voteRound = round;
        r.voteDeadline = deadline;
        emit VoteOpened(market, round, deadline, reason);
    }

    /// @inheritdoc IMarketResolver
    function recordVerdict(
        address market,
        uint8 round,
        VerdictKind kind,
        uint8 outcome,
        bytes32 ballotRoot,
        uint32 ballotCount
    ) external onlyOperator {
        ResolutionRecord storage r = _records[market];
        if (r.phase != Phase.Voting) revert WrongPhase(r.phase);
        if (round != r.voteRound) revert WrongRound(round, r.voteRound);
        if (block.timestamp < r.voteDeadline) revert VoteStillOpen(r.voteDeadline);
        _checkOutcome(IResolvableMarket(market), outcome);
        r.ballotRoot = ballotRoot;
        r.ballotCount = ballotCount;
        emit VoteClosed(market, round, kind, outcome, ballotRoot, ballotCount);
        if (kind == VerdictKind.Binding) _resolve(market, r, outcome, Route.Vote);
        else r.phase = Phase.Council;
    }

    /// @inheritdoc IMarketResolver
    function councilDecide(address market, uint8 outcome, CouncilSignature[] calldata signatures) external {
        ResolutionRecord storage r = _records[market];
        if (r.phase != Phase.Council) revert WrongPhase(r.phase);
        uint256 threshold = councilThreshold;
        if (threshold == 0) revert CouncilNotSet();
        _checkOutcome(IResolvableMarket(market), outcome);
        uint256 n = signatures.length;
        if (n < threshold) revert NotEnoughCouncilSignatures(n, threshold);
        bytes32 digest = councilDecisionDigest(market, outcome, r.voteRound);
        address[] memory signers = new address[](n);
        address previous;
        for (uint256 i; i < n; ++i) {
            address signer = signatures[i].signer;
            // Ascending order makes distinctness one comparison; it also rules out the zero address.
            if (signer <= previous) revert CouncilSignersNotAscending(signer);
            if (!isCouncilMember[signer]) revert NotCouncilMember(signer);
            if (!SignatureChecker.isValidSignatureNowCalldata(signer, digest, signatures[i].signature)) {
                revert BadSignature(signer);
            }
            signers[i] = signer;
            previous = signer;
        }
        emit CouncilDecided(market, outcome, signers);
        _resolve(market, r, outcome, Route.Council);
    }

    /// @inheritdoc IMarketResolver
    function settleChallengeBond(address market) external {
        ResolutionRecord storage r = _records[market];
        if (r.phase != Phase.Resolved) revert WrongPhase(r.phase);
        uint96 bond = r.challengeBondPaid;
        if (bond == 0) revert NoChallengeBond();
        r.challengeBondPaid = 0;
        bool refunded = r.finalOutcome != r.proposedOutcome;
        // The market named this resolver when it was proposed on (the only way to a challenge).
        address to = refunded ? r.challenger : IResolvableMarket(market).creator();
        emit ChallengeBondSettled(market, to, bond, refunded);
        bondToken.safeTransfer(to, bond);
    }

    /// @inheritdoc IMarketResolver
    function setCouncil(address[] calldata members, uint256 threshold) external onlyOperator {
        uint256 n = members.length;
        if (threshold == 0 || threshold > n) revert InvalidCouncilThreshold(threshold, n);
        address[] storage council = _council;
        for (uint256 i = council.length; i > 0; --i) {
            isCouncilMember[council[i - 1]] = false;
            council.pop();
        }
        for (uint256 i; i < n; ++i) {
            address member = members[i];
            if (member == address(0)) revert ZeroAddress();
            if (isCouncilMember[member]) revert DuplicateCouncilMember(member);
            isCouncilMember[member] = true;
            council.push(member);
        }
        councilThreshold = threshold;
        emit CouncilSet(members, threshold);
    }

    /// @inheritdoc IMarketResolver
    function setWindows(uint32 challengeWindow_, uint32 voteWindow_) external onlyOperator {
        _setWindows(challengeWindow_, voteWindow_, shortWindowsAllowed);
    }

    /// @inheritdoc IMarketResolver
    function resolutionOf(address market) external view returns (ResolutionRecord memory) {
        return _records[market];
    }

    /// @inheritdoc IMarketResolver
    function phaseOf(address market) external view returns (Phase) {
        return _records[market].phase;
    }

    /// @inheritdoc IMarketResolver
    function proposalDigest(address market, uint8 outcome, uint256 deadline) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(PROPOSAL_TYPEHASH, market, outcome, deadline)));
    }

    /// @inheritdoc IMarketResolver
    function councilDecisionDigest(address market, uint8 outcome, uint8 round) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(COUNCIL_DECISION_TYPEHASH, market, outcome, round)));
    }

    /// @inheritdoc IMarketResolver
    function councilMembers() external view returns (address[] memory) {
        return _council;
    }

    function _propose(IResolvableMarket m, address creator, uint8 outcome) private {
        ResolutionRecord storage r = _records[address(m)];
        if (r.phase != Phase.None) revert WrongPhase(r.phase);
        uint64 resolveBy = m.resolveBy();
        if (block.timestamp > resolveBy) revert ResolveByPassed(resolveBy);
        _checkOutcome(m, outcome);
        uint64 deadline = uint64(block.timestamp) + challengeWindow;
        r.phase = Phase.Proposed;
        r.proposedOutcome = outcome;
        r.proposedAt = uint64(block.timestamp);
        r.challengeDeadline = deadline;
        emit ResolutionProposed(address(m), outcome, creator, deadline);
    }

    /// @dev Every move to Resolved goes through here: the record first, then the market (which only reads views back).
    function _resolve(address market, ResolutionRecord storage r, uint8 outcome, Route route) private {
        // Absent (never proposed), or overturned after a dispute. An undisputed proposal is its own final outcome.
        bool slashed = r.proposedAt == 0 || (route != Route.Undisputed && outcome != r.proposedOutcome);
        r.phase = Phase.Resolved;
        r.finalOutcome = outcome;
        r.route = route;
        r.creatorSlashed = slashed;
        r.finalizedAt = uint64(block.timestamp);
        emit MarketResolved(market, outcome, route, slashed);
        IResolvableMarket(market).onResolved(outcome);
    }

    function _checkOutcome(IResolvableMarket m, uint8 outcome) private view {
        uint8 n = m.outcomeCount();
        if (outcome > n) revert InvalidOutcome(outcome, n);
    }

    /// @dev A low-level read so that an address without code, or one answering something else, is refused by name.
    function _market(address market) private view returns (IResolvableMarket) {
        (bool ok, bytes memory ret) = market.staticcall(abi.encodeCall(IResolvableMarket.resolver, ()));
        if (!ok || ret.length != 32 || abi.decode(ret, (uint256)) != uint256(uint160(address(this)))) {
            revert NotMarketOfThisResolver(market);
        }
        return IResolvableMarket(market);
    }

    function _setWindows(uint32 challengeWindow_, uint32 voteWindow_, bool allowShort) private {
        uint32 challengeFloor = allowShort ? 1 : MIN_CHALLENGE_WINDOW;
        uint32 voteFloor = allowShort ? 1 : MIN_VOTE_WINDOW;
        if (challengeWindow_ < challengeFloor) revert WindowBelowFloor(challengeWindow_, challengeFloor);
        if (voteWindow_ < voteFloor) revert WindowBelowFloor(voteWindow_, voteFloor);
        challengeWindow = challengeWindow_;
        voteWindow = voteWindow_;
        emit WindowsSet(challengeWindow_, voteWindow_);
    }
}

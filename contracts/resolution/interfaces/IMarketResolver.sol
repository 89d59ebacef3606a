// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title IMarketResolver
/// @notice The resolution state machine shared by every market of both lanes (one resolver per deployment). The
/// creator proposes an outcome (or void); anyone may challenge it within the challenge window by posting the
/// challenge bond; an unchallenged proposal is final after the window. A challenge, or a creator who proposed nothing
/// by resolveBy, sends the market to a vote run by the service's operator, which records the verdict on chain with a
/// Merkle root of the published ballots; a vote without quorum or deadlocked goes to the council, whose members sign
/// the decision (EIP-712). Every path ends in Resolved, where the resolver tells the market its final outcome.
/// @dev Outcomes are 1-indexed (1..outcomeCount); 0 means Invalid/Void and is a legal proposal, counter-outcome,
/// verdict and decision. Times are Unix seconds. The resolver acts only on markets whose resolver() is itself; anyone
/// can deploy a contract that names this resolver, so an indexer must follow only markets its factories created.
interface IMarketResolver {
    /// @notice Where a market's resolution stands. None: nothing yet (the market trades until its close time).
    /// Proposed: the creator proposed, the challenge window runs. Disputed: challenged, waiting for the operator to
    /// open the vote. Voting: a vote round runs. Council: the vote failed (no quorum or deadlock), the council
    /// decides. Resolved: final.
    enum Phase {
        None,
        Proposed,
        Disputed,
        Voting,
        Council,
        Resolved
    }

    /// @notice How a resolved market got its outcome. None until Resolved.
    enum Route {
        None,
        Undisputed,
        Vote,
        Council
    }

    /// @notice Why a vote round was opened.
    enum VoteReason {
        Dispute,
        AbsentCreator,
        IntegrityRestart
    }

    /// @notice The result of a vote round. Binding resolves the market; NoQuorum and Deadlock send it to the council.
    enum VerdictKind {
        Binding,
        NoQuorum,
        Deadlock
    }

    /// @notice Everything the resolver keeps per market (four storage slots).
    /// @param phase Current phase.
    /// @param proposedOutcome The creator's proposal (0 = void); meaningful once proposedAt != 0.
    /// @param counterOutcome The challenger's outcome (0 = void); meaningful once challenger != 0.
    /// @param voteRound 0 before any vote, then 1, or 2 after an integrity restart.
    /// @param finalOutcome The resolved outcome (0 = void); meaningful once phase is Resolved.
    /// @param route How the market was resolved; None until then.
    /// @param creatorSlashed True when the final outcome differs from the creator's proposal after a dispute, or the
    /// creator proposed nothing by resolveBy; set at resolution.
    /// @param proposedAt When the proposal was made; 0 = never (an absent creator).
    /// @param challengeDeadline proposedAt + the challenge window then in force; a challenge must come before it.
    /// @param finalizedAt When the market reached Resolved; 0 before.
    /// @param challenger Who challenged and paid the bond; zero if unchallenged.
    /// @param challengeBondPaid PM base units the challenger paid, held by this resolver.
    /// @param voteDeadline End of the current vote round; a verdict may be recorded from this instant.
    /// @param ballotCount Ballots behind the recorded verdict.
    /// @param ballotRoot Merkle root of the published ballot set of the recorded verdict (recount off chain).
    struct ResolutionRecord {
        Phase phase;
        uint8 proposedOutcome;
        uint8 counterOutcome;
        uint8 voteRound;
        uint8 finalOutcome;
        Route route;
        bool creatorSlashed;
        uint64 proposedAt;
        uint64 challengeDeadline;
        uint64 finalizedAt;
        address challenger;
        uint96 challengeBondPaid;
        uint64 voteDeadline;
        uint32 ballotCount;
        bytes32 ballotRoot;
    }

    /// @notice One council member's signature over CouncilDecision(address market,uint8 outcome,uint8 round).
    /// @param signer The member (an EOA, or a contract wallet answering ERC-1271).
    /// @param signature 65-byte ECDSA signature, or what the member's ERC-1271 wallet accepts.
    struct CouncilSignature {
        address signer;
        bytes signature;
    }

    /// @notice The creator proposed `outcome`; it becomes final at challengeDeadline unless challenged before.
    /// @param proposer The creator (also when a relayer sent the signed proposal).
    event ResolutionProposed(address indexed market, uint8 outcome, address indexed proposer, uint64 challengeDeadline);

    /// @notice The proposal was challenged; `bond` PM base units moved from the challenger to this resolver.
    event ResolutionChallenged(address indexed market, address indexed challenger, uint8 counterOutcome, uint256 bond);

    /// @notice A vote round opened; ballots count until voteDeadline.
    event VoteOpened(address indexed market, uint8 round, uint64 voteDeadline, VoteReason reason);

    /// @notice The operator recorded a round's verdict. Binding: `outcome` resolves the market. NoQuorum, Deadlock:
    /// the market goes to the council and `outcome` is informational (the leading outcome, or 0).
    /// @param ballotRoot Merkle root committing to the published ballot set, so anyone can recount.
    event VoteClosed(
        address indexed market, uint8 round, VerdictKind kind, uint8 outcome, bytes32 ballotRoot, uint32 ballotCount
    );

    /// @notice The council decided `outcome`; `signers` are the members whose signatures were counted, ascending.
    event CouncilDecided(address indexed market, uint8 outcome, address[] signers);

    /// @notice The market reached Resolved. Emitted once per market, after the event of the step that resolved it.
    event MarketResolved(address indexed market, uint8 outcome, Route route, bool creatorSlashed);

    /// @notice A resolved market's challenge bond was paid out: back to the challenger when the final outcome is not
    /// the one the creator proposed (the challenge was right), else to the creator (their proposal stood).
    event ChallengeBondSettled(address indexed market, address indexed to, uint256 amount, bool refunded);

    /// @notice The council was replaced.
    event CouncilSet(address[] members, uint256 threshold);

    /// @notice The windows for proposals and vote rounds opened from now on.
    event WindowsSet(uint32 challengeWindow, uint32 voteWindow);

    /// @notice propose was not sent by the market's creator.
    error NotCreator(address caller);
    /// @notice The market is not in a phase where this call is allowed.
    error WrongPhase(Phase current);
    /// @notice A challenge at or after the challenge deadline.
    error ChallengeWindowClosed(uint64 challengeDeadline);
    /// @notice finalize before the challenge deadline.
    error ChallengeWindowOpen(uint64 challengeDeadline);
    /// @notice A proposal after resolveBy.
    error ResolveByPassed(uint64 resolveBy);
    /// @notice openVote for an absent creator at or before resolveBy.
    error NotYetAbsent(uint64 resolveBy);
    /// @notice The outcome is above the market's outcomeCount.
    error InvalidOutcome(uint8 outcome, uint8 outcomeCount);
    /// @notice A challenge naming the proposed outcome itself.
    error CounterOutcomeIsProposed(uint8 outcome);
    /// @notice An operator-only function called by someone else.
    error NotOperator(address caller);
    /// @notice The address is not a market whose resolver() is this contract.
    error NotMarketOfThisResolver(address market);
    /// @notice A signature that `signer` did not make over this message.
    error BadSignature(address signer);
    /// @notice A relayed proposal after its deadline.
    error SignatureExpired(uint256 deadline);
    /// @notice councilDecide with fewer valid member signatures than the threshold.
    error NotEnoughCouncilSignatures(uint256 count, uint256 threshold);
    /// @notice A council signature by an account that is not a current member.
    error NotCouncilMember(address signer);
    /// @notice Council signers must be strictly ascending (which also rules out duplicates).
    error CouncilSignersNotAscending(address signer);
    /// @notice councilDecide before any council was set.
    error CouncilNotSet();
    /// @notice setCouncil with a threshold of 0 or above the number of members.
    error InvalidCouncilThreshold(uint256 threshold, uint256 memberCount);
    /// @notice setCouncil listing a member twice.
    error DuplicateCouncilMember(address member);
    /// @notice A zero address where an account is required.
    error ZeroAddress();
    /// @notice recordVerdict before the round's deadline.
    error VoteStillOpen(uint64 voteDeadline);
    /// @notice recordVerdict for a round other than the current one.
    error WrongRound(uint8 round, uint8 current);
    /// @notice openVote after round 2: at most one integrity restart.
    error NoMoreVoteRounds();
    /// @notice The market has no challenge bond to settle (never challenged, or settled already).
    error NoChallengeBond();
    /// @notice A window of 0, or below its floor where short windows are not allowed.
    error WindowBelowFloor(uint32 window, uint32 floor);

    /// @notice The creator (msg.sender) proposes the outcome. Allowed from the market's creation (early resolution
    /// is legal while it trades; trading stops at once) until resolveBy inclusive, in phase None. Sets
    /// challengeDeadline = now + challengeWindow. Emits ResolutionProposed.
    /// @param outcome 1..outcomeCount, or 0 for void.
    function propose(address market, uint8 outcome) external;

    /// @notice propose, relayed by anyone (the protocol pays gas) with the creator's EIP-712 signature over
    /// Proposal(address market,uint8 outcome,uint256 deadline) in this resolver's domain (name "MarketResolver",
    /// version "1", this chain, this address). The proposal is the creator's: a signature by anyone else reverts
    /// BadSignature(creator). ERC-1271 contract wallets are accepted. A proposal happens once per market, so a
    /// signature cannot be replayed.
    /// @param deadline Unix seconds; reverts SignatureExpired once block.timestamp > deadline.
    function proposeFor(address market, uint8 outcome, uint256 deadline, bytes calldata signature) external;

    /// @notice Challenges the proposal with another outcome, before challengeDeadline. Pulls challengeBond PM from
    /// msg.sender (ERC-20 approval to this resolver needed) and holds it. Proposed → Disputed. Emits
    /// ResolutionChallenged.
    /// @param counterOutcome 1..outcomeCount or 0 (void), different from the proposed outcome.
    function challenge(address market, uint8 counterOutcome) external;

    /// @notice Anyone: an unchallenged proposal becomes final once block.timestamp ≥ challengeDeadline.
    /// Proposed → Resolved (route Undisputed, creator not slashed); calls market.onResolved. Emits MarketResolved.
    function finalize(address market) external;

    /// @notice Operator only: opens a vote round of voteWindow seconds. From Disputed (reason Dispute, round 1);
    /// from None once block.timestamp > resolveBy (AbsentCreator, round 1; the creator will be slashed); from
    /// Voting in round 1 (IntegrityRestart, round 2; the round-1 verdict can no longer be recorded). Emits VoteOpened.
    function openVote(address market) external;

    /// @notice Operator only: records the verdict of the current round once block.timestamp ≥ voteDeadline.
    /// Binding → Resolved (route Vote) with `outcome`; NoQuorum or Deadlock → Council. Emits VoteClosed, and
    /// MarketResolved when binding.
    /// @param round Must equal the current round.
    /// @param outcome Binding: the winning outcome (0 = void). Otherwise informational. At most outcomeCount.
    /// @param ballotRoot Merkle root of the published ballot set behind the verdict.
    /// @param ballotCount Ballots in that set.
    function recordVerdict(
        address market,
        uint8 round,
        VerdictKind kind,
        uint8 outcome,
        bytes32 ballotRoot,
        uint32 ballotCount
    ) external;

    /// @notice Anyone submits the council's decision: at least councilThreshold signatures of distinct current
    /// members over EIP-712 CouncilDecision(address market,uint8 outcome,uint8 round), where round is the record's
    /// voteRound. Signers must be ascending; every listed signature must be valid. Council → Resolved (route
    /// Council). Emits CouncilDecided and MarketResolved.
    function councilDecide(address market, uint8 outcome, CouncilSignature[] calldata signatures) external;

    /// @notice Operator only: replaces the council. threshold in [1, members.length]; no zero or repeated member.
    /// Takes effect for every decision submitted from now on. Emits CouncilSet.
    function setCouncil(address[] calldata members, uint256 threshold) external;

    /// @notice Operator only: the windows used by proposals and vote rounds opened from now on (running deadlines
    /// keep theirs). Each must be positive and, unless shortWindowsAllowed, at least MIN_CHALLENGE_WINDOW (2 h)
    /// and MIN_VOTE_WINDOW (24 h). Emits WindowsSet.
    function setWindows(uint32 challengeWindow, uint32 voteWindow) external;

    /// @notice The whole record of `market` (zeros for a market never acted on).
    function resolutionOf(address market) external view returns (ResolutionRecord memory);

    /// @notice Once the market is Resolved, pays its challenge bond out: to the challenger when the final outcome is
    /// not the proposed one, else to the creator. Anyone may send it; only they are paid. Once (NoChallengeBond).
    function settleChallengeBond(address market) external;

    /// @notice The phase of `market` (None for any address never acted on). Markets read it for their state().
    function phaseOf(address market) external view returns (Phase);

    /// @notice The EIP-712 digest a creator signs for proposeFor.
    function proposalDigest(address market, uint8 outcome, uint256 deadline) external view returns (bytes32);

    /// @notice The EIP-712 digest council members sign for councilDecide.
    function councilDecisionDigest(address market, uint8 outcome, uint8 round) external view returns (bytes32);

    /// @notice Current council members, in the order set.
    function councilMembers() external view returns (address[] memory);

    /// @notice Whether `account` is a current council member.
    function isCouncilMember(address account) external view returns (bool);

    /// @notice Signatures councilDecide needs; 0 until a council is set.
    function councilThreshold() external view returns (uint256);

    /// @notice The service's operator account: opens votes, records verdicts, sets the council and windows.
    function operator() external view returns (address);

    /// @notice The token challenge bonds are paid in (PM).
    function bondToken() external view returns (IERC20);

    /// @notice PM base units a challenge costs.
    function challengeBond() external view returns (uint96);

    /// @notice Seconds a proposal can be challenged.
    function challengeWindow() external view returns (uint32);

    /// @notice Seconds a vote round runs.
    function voteWindow() external view returns (uint32);

    /// @notice True only on local test chains: windows may then be shorter than the floors.
    function shortWindowsAllowed() external view returns (bool);
}

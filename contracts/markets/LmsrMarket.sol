// SPDX-License-Identifier: MIT
// One automated LMSR market, deployed as a minimal-proxy clone of this implementation by an LmsrMarketFactory.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC1155Receiver} from "@openzeppelin/contracts/token/ERC1155/IERC1155Receiver.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ILmsrMarket} from "./interfaces/ILmsrMarket.sol";
import {IOutcomeToken} from "./interfaces/IOutcomeToken.sol";
import {FeeMath} from "./libraries/FeeMath.sol";
import {LmsrMath} from "./libraries/LmsrMath.sol";
import {OutcomeIds} from "./libraries/OutcomeIds.sol";
import {IMarketResolver} from "../resolution/interfaces/IMarketResolver.sol";
import {IResolvableMarket} from "../resolution/interfaces/IResolvableMarket.sol";

/// @title LmsrMarket
/// @notice See ILmsrMarket. Costs are differences of LmsrMath.cost rounded in the market's favour (buys up, sells
/// down) and fees are rounded up, so the collateral held always covers max_i q_i plus the accrued creator fees.
/// @dev Collateral held = subsidy + Σ buy costs − Σ sell proceeds (gross) + creator fees (+ the bond when the
/// collateral is PM); the bond and creator fees are tracked separately and never priced.
contract LmsrMarket is ILmsrMarket, Initializable, ReentrancyGuardTransient, IERC1155Receiver {
    using SafeERC20 for IERC20;

    /// @notice No trade may leave any outcome priced below 0.1% (1e18 = 1), so every price stays in
    /// [0.001, 0.999] and far from where fixed-point exp underflows.
    uint256 public constant MIN_PRICE = 1e15;
    uint8 private constant MAX_OUTCOMES = 3;
    /// @notice A slashed bond's split, basis points: the keeper who settles it, the binding vote's voters; the rest
    /// goes to the treasury.
    uint16 public constant SLASH_KEEPER_BPS = 500;
    uint16 public constant SLASH_VOTERS_BPS = 2000;

    /// @notice Shared by every clone (immutables live in the implementation's code).
    IOutcomeToken public immutable outcomeToken;
    /// @notice The token the creator's bond is held in (PM).
    IERC20 public immutable bondToken;
    /// @inheritdoc IResolvableMarket
    address public immutable resolver;

    // Every clone delegates to this implementation for good: EIP-1167 proxies have no upgrade path, so a market's code
    // never changes after creation. New behaviour ships in a new implementation and reaches only the markets created
    // from it (markets of the implementation before the resolver can never resolve).
    IERC20 public collateral;
    uint8 public outcomeCount;
    uint16 public protocolFeeBps;
    uint16 public creatorFeeBps;
    /// @dev Open, or Resolved once the resolver called onResolved; the other states are derived in state().
    MarketState private _state;
    /// @inheritdoc ILmsrMarket
    uint8 public finalOutcome;
    address public factory;
    uint64 public closeTime;
    address public router;
    uint32 public resolutionWindow;
    address public creator;
    address public protocolFeeRecipient;
    uint256 public liquidity;
    uint256 public bond;
    /// @notice The creator's accrued fees ("marketBalance"), collateral base units, held by this market.
    uint256 public creatorFees;
    bytes32 public questionHash;
    uint256[MAX_OUTCOMES] private _outstanding;
    /// @inheritdoc ILmsrMarket
    uint256 public voterPool;
    /// @inheritdoc ILmsrMarket
    bool public bondSettled;

    /// @dev A trade as computed before it is applied; quotes and trades share it so they cannot disagree.
    struct Fill {
        uint256 cost;
        uint256 protocolFee;
        uint256 creatorFee;
        uint256 outstandingAfter;
        uint256[] pricesAfter;
    }

    modifier onlyRouter() {
        if (msg.sender != router) revert NotRouter(msg.sender);
        _;
    }

    /// @param outcomeToken_ The shared ERC-1155 all markets mint into.
    /// @param bondToken_ The bond token (PM).
    /// @param resolver_ The MarketResolver every clone answers to.
    constructor(IOutcomeToken outcomeToken_, IERC20 bondToken_, address resolver_) {
        if (address(outcomeToken_) == address(0) || address(bondToken_) == address(0) || resolver_ == address(0)) {
            revert InvalidParams();
        }
        outcomeToken = outcomeToken_;
        bondToken = bondToken_;
        resolver = resolver_;
        _disableInitializers();
    }

    /// @inheritdoc ILmsrMarket
    function initialize(InitParams calldata p) external initializer {
        if (
            p.outcomeCount < 2 || p.outcomeCount > MAX_OUTCOMES || p.liquidity == 0
                || address(p.collateral) == address(0) || p.router == address(0) || p.creator == address(0)
                || p.protocolFeeRecipient == address(0) || uint256(p.protocolFeeBps) + p.creatorFeeBps >= FeeMath.BPS
        ) revert InvalidParams();
        factory = msg.sender;
        collateral = p.collateral;
        outcomeCount = p.outcomeCount;
        protocolFeeBps = p.protocolFeeBps;
        creatorFeeBps = p.creatorFeeBps;
        closeTime = p.closeTime;
        router = p.router;
        resolutionWindow = p.resolutionWindow;
        creator = p.creator;
        protocolFeeRecipient = p.protocolFeeRecipient;
        liquidity = p.liquidity;
        bond = p.bond;
        questionHash = p.questionHash;
    }

    /// @inheritdoc ILmsrMarket
    function buy(address trader, address recipient, uint8 outcome, uint256 shares, uint256 maxCost)
        external
        onlyRouter
        nonReentrant
        returns (uint256 total, uint256 protocolFee)
    {
        Fill memory f = _fill(outcome, shares, true);
        total = f.cost + f.protocolFee + f.creatorFee;
        if (total > maxCost) revert SlippageExceeded(total, maxCost);
        _outstanding[outcome] = f.outstandingAfter;
        creatorFees += f.creatorFee;
        emit Trade(trader, recipient, outcome, true, shares, f.cost, f.protocolFee, f.creatorFee, f.pricesAfter);
        outcomeToken.mint(recipient, outcome, shares);
        return (total, f.protocolFee);
    }

    /// @inheritdoc ILmsrMarket
    function sell(address trader, address recipient, uint8 outcome, uint256 shares, uint256 minProceeds)
        external
        onlyRouter
        nonReentrant
        returns (uint256 proceeds)
    {
        Fill memory f = _fill(outcome, shares, false);
        proceeds = f.cost - f.protocolFee - f.creatorFee;
        if (proceeds < minProceeds) revert SlippageExceeded(proceeds, minProceeds);
        _outstanding[outcome] = f.outstandingAfter;
        creatorFees += f.creatorFee;
        emit Trade(trader, recipient, outcome, false, shares, f.cost, f.protocolFee, f.creatorFee, f.pricesAfter);
        // The router moved the seller's shares here just before this call; burning more than arrived reverts.
        outcomeToken.burn(address(this), outcome, shares);
        collateral.safeTransfer(recipient, proceeds);
        if (f.protocolFee != 0) collateral.safeTransfer(protocolFeeRecipient, f.protocolFee);
    }

    /// @inheritdoc ILmsrMarket
    function quoteBuy(uint8 outcome, uint256 shares)
        external
        view
        returns (uint256 total, uint256 protocolFee, uint256 creatorFee, uint256[] memory pricesAfter)
    {
        Fill memory f = _fill(outcome, shares, true);
        return (f.cost + f.protocolFee + f.creatorFee, f.protocolFee, f.creatorFee, f.pricesAfter);
    }

    /// @inheritdoc ILmsrMarket
    function quoteSell(uint8 outcome, uint256 shares)
        external
        view
        returns (uint256 proceeds, uint256 protocolFee, uint256 creatorFee, uint256[] memory pricesAfter)
    {
        Fill memory f = _fill(outcome, shares, false);
        return (f.cost - f.protocolFee - f.creatorFee, f.protocolFee, f.creatorFee, f.pricesAfter);
    }

    /// @inheritdoc ILmsrMarket
    function prices() public view returns (uint256[] memory pricesWad) {
        (, pricesWad) = LmsrMath.evaluate(_loadOutstanding(), liquidity);
    }

    /// @inheritdoc ILmsrMarket
    function outstandingShares() external view returns (uint256[] memory) {
        return _loadOutstanding();
    }

    /// @inheritdoc ILmsrMarket
    function state() public view returns (MarketState) {
        if (_state == MarketState.Resolved) return MarketState.Resolved;
        IMarketResolver.Phase phase = IMarketResolver(resolver).phaseOf(address(this));
        if (phase == IMarketResolver.Phase.Proposed) return MarketState.Proposed;
        // Resolved cannot be read here: the resolver calls onResolved in the transaction that resolves.
        if (phase != IMarketResolver.Phase.None) return MarketState.Disputed;
        if (block.timestamp >= closeTime) return MarketState.Closed;
        return MarketState.Open;
    }

    /// @inheritdoc IResolvableMarket
    function resolveBy() public view returns (uint64) {
        return closeTime + resolutionWindow;
    }

    /// @inheritdoc IResolvableMarket
    function onResolved(uint8 outcome) external {
        if (msg.sender != resolver) revert NotResolver(msg.sender);
        if (_state == MarketState.Resolved) revert AlreadyResolved();
        _state = MarketState.Resolved;
        finalOutcome = outcome;
    }

    /// @inheritdoc ILmsrMarket
    function marketInfo() external view returns (MarketInfo memory info) {
        info.factory = factory;
        info.router = router;
        info.collateral = address(collateral);
        info.outcomeToken = address(outcomeToken);
        info.bondToken = address(bondToken);
        info.creator = creator;
        info.protocolFeeRecipient = protocolFeeRecipient;
        info.outcomeCount = outcomeCount;
        info.protocolFeeBps = protocolFeeBps;
        info.creatorFeeBps = creatorFeeBps;
        info.state = state();
        info.closeTime = closeTime;
        info.resolutionWindow = resolutionWindow;
        info.resolveBy = resolveBy();
        info.questionHash = questionHash;
        info.liquidity = liquidity;
        info.bond = bond;
        info.creatorFees = creatorFees;
        info.outstandingShares = _loadOutstanding();
        info.prices = prices();
        info.resolution = _resolution();
    }

    /// @inheritdoc ILmsrMarket
    function collectCreatorFees() external nonReentrant returns (uint256 amount) {
        MarketState s = state();
        if (s != MarketState.Resolved) revert CreatorFeesLocked(s);
        amount = creatorFees;
        creatorFees = 0;
        address to = creator;
        emit CreatorFeesCollected(to, amount);
        if (amount != 0) collateral.safeTransfer(to, amount);
    }

    /// @inheritdoc ILmsrMarket
    function redeem(address holder) external nonReentrant returns (uint256 payout) {
        if (_state != MarketState.Resolved) revert NotResolved();
        uint8 f = finalOutcome;
        uint256 shares;
        if (f != 0) {
            shares = _burnAll(holder, f - 1);
            payout = shares;
        } else {
            uint8 n = outcomeCount;
            for (uint8 i; i < n; ++i) {
                shares += _burnAll(holder, i);
            }
            payout = shares / n;
        }
        emit Redeemed(holder, f, shares, payout);
        if (payout != 0) collateral.safeTransfer(holder, payout);
    }

    /// @inheritdoc ILmsrMarket
    function settleBond() external nonReentrant {
        if (_state != MarketState.Resolved) revert NotResolved();
        if (bondSettled) revert BondAlreadySettled();
        bondSettled = true;
        uint256 b = bond;
        IMarketResolver.ResolutionRecord memory r = IMarketResolver(resolver).resolutionOf(address(this));
        if (!r.creatorSlashed) {
            address to = creator;
            emit BondReturned(to, b);
            if (b != 0) bondToken.safeTransfer(to, b);
            return;
        }
        uint256 keeperCut = (b * SLASH_KEEPER_BPS) / FeeMath.BPS;
        uint256 voters = r.route == IMarketResolver.Route.Vote ? (b * SLASH_VOTERS_BPS) / FeeMath.BPS : 0;
        uint256 treasury = b - keeperCut - voters;
        voterPool = voters;
        emit BondSlashed(msg.sender, keeperCut, voters, treasury);
        if (keeperCut != 0) bondToken.safeTransfer(msg.sender, keeperCut);
        if (treasury != 0) bondToken.safeTransfer(protocolFeeRecipient, treasury);
    }

    /// @inheritdoc ILmsrMarket
    function distributeVoterRewards(CountedBallot[] calldata ballots) external nonReentrant returns (uint256 perVoter) {
        uint256 pool = voterPool;
        if (pool == 0) revert NoVoterPool();
        IMarketResolver.ResolutionRecord memory r = IMarketResolver(resolver).resolutionOf(address(this));
        uint256 n = ballots.length;
        if (n == 0 || n != r.ballotCount) revert BallotsMismatch();
        bytes32[] memory leaves = new bytes32[](n);
        uint256 winners;
        for (uint256 i; i < n; ++i) {
            CountedBallot calldata b = ballots[i];
            bytes32 leaf = keccak256(abi.encode(b.wallet, b.outcome, b.signatureHash));
            // Strictly ascending: the order the commitment hashes, and no ballot twice.
            if (i != 0 && leaf <= leaves[i - 1]) revert BallotsMismatch();
            leaves[i] = leaf;
            if (b.outcome == r.finalOutcome) ++winners;
        }
        if (keccak256(abi.encodePacked(leaves)) != r.ballotRoot) revert BallotsMismatch();
        voterPool = 0;
        // A binding verdict is the outcome with the most ballots, so at least one ballot won.
        perVoter = pool / winners;
        uint256 remainder = pool - perVoter * winners;
        emit VoterRewardsPaid(winners, perVoter, remainder);
        for (uint256 i; i < n; ++i) {
            if (ballots[i].outcome == r.finalOutcome) bondToken.safeTransfer(ballots[i].wallet, perVoter);
        }
        if (remainder != 0) bondToken.safeTransfer(protocolFeeRecipient, remainder);
    }

    /// @inheritdoc ILmsrMarket
    function sweepResidual() external nonReentrant returns (uint256 amount) {
        if (_state != MarketState.Resolved) revert NotResolved();
        amount = residual();
        if (amount == 0) return 0;
        address to = creator;
        emit ResidualSwept(to, amount);
        collateral.safeTransfer(to, amount);
    }

    /// @inheritdoc ILmsrMarket
    function residual() public view returns (uint256) {
        if (_state != MarketState.Resolved) return 0;
        uint256 reserved = creatorFees + _liability();
        if (address(collateral) == address(bondToken)) {
            reserved += voterPool;
            if (!bondSettled) reserved += bond;
        }
        uint256 held = collateral.balanceOf(address(this));
        return held > reserved ? held - reserved : 0;
    }

    /// @notice Accepts only the router's pull of a seller's shares (see TradeRouter); anything else would be stuck.
    function onERC1155Received(address operator, address, uint256, uint256, bytes calldata)
        external
        view
        returns (bytes4)
    {
        if (msg.sender != address(outcomeToken) || operator != router) revert UnexpectedShares(operator);
        return IERC1155Receiver.onERC1155Received.selector;
    }

    /// @notice Batch deposits are never part of a trade.
    function onERC1155BatchReceived(address operator, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        revert UnexpectedShares(operator);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC1155Receiver).interfaceId || interfaceId == type(IERC165).interfaceId;
    }

    /// @dev Prices a trade against the current state without changing it.
    function _fill(uint8 outcome, uint256 shares, bool isBuy) private view returns (Fill memory f) {
        // The clock first: a closed market (and the never-initialised implementation) costs no call to the resolver.
        if (block.timestamp >= closeTime || state() != MarketState.Open) revert MarketClosed(closeTime);
        uint8 n = outcomeCount;
        if (outcome >= n) revert InvalidOutcome(outcome, n);
        if (shares == 0) revert ZeroShares();

        uint256 b = liquidity;
        uint256[] memory q = _loadOutstanding();
        uint256 costBefore = LmsrMath.cost(q, b);
        if (isBuy) {
            q[outcome] += shares;
        } else {
            if (shares > q[outcome]) revert SharesExceedOutstanding(shares, q[outcome]);
            q[outcome] -= shares;
        }
        uint256 costAfter;
        (costAfter, f.pricesAfter) = LmsrMath.evaluate(q, b);
        for (uint256 i; i < n; ++i) {
            if (f.pricesAfter[i] < MIN_PRICE) revert PriceOutOfBand(uint8(i), f.pricesAfter[i]);
        }
        f.outstandingAfter = q[outcome];

        if (isBuy) {
            // A buy always costs at least one base unit, even where fixed-point C does not move.
            f.cost = costAfter > costBefore ? Math.ceilDiv(costAfter - costBefore, LmsrMath.WAD) : 1;
        } else {
            f.cost = costBefore > costAfter ? (costBefore - costAfter) / LmsrMath.WAD : 0;
        }
        f.protocolFee = FeeMath.fee(f.cost, protocolFeeBps);
        f.creatorFee = FeeMath.fee(f.cost, creatorFeeBps);
        if (!isBuy && f.cost <= f.protocolFee + f.creatorFee) revert ZeroProceeds();
    }

    /// @dev Burns all of `holder`'s shares of `outcome` (0-based) and takes them off the outstanding count.
    function _burnAll(address holder, uint8 outcome) private returns (uint256 shares) {
        shares = outcomeToken.balanceOf(holder, OutcomeIds.encode(address(this), outcome));
        if (shares == 0) return 0;
        _outstanding[outcome] -= shares;
        outcomeToken.burn(holder, outcome, shares);
    }

    /// @dev What the unredeemed shares can still claim: the winning outcome's outstanding shares, or for void the
    /// outstanding total / outcomeCount rounded up (each holder's payout rounds down, so this covers them all).
    function _liability() private view returns (uint256) {
        uint8 f = finalOutcome;
        if (f != 0) return _outstanding[f - 1];
        uint8 n = outcomeCount;
        uint256 total;
        for (uint256 i; i < n; ++i) {
            total += _outstanding[i];
        }
        return Math.ceilDiv(total, n);
    }

    function _resolution() private view returns (Resolution memory res) {
        IMarketResolver.ResolutionRecord memory r = IMarketResolver(resolver).resolutionOf(address(this));
        res.proposedOutcome = r.proposedOutcome;
        res.proposedAt = r.proposedAt;
        res.challengeDeadline = r.challengeDeadline;
        res.finalOutcome = finalOutcome;
    }

    function _loadOutstanding() private view returns (uint256[] memory q) {
        uint8 n = outcomeCount;
        q = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            q[i] = _outstanding[i];
        }
    }
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IResolvableMarket} from "../../resolution/interfaces/IResolvableMarket.sol";

/// @title ILmsrMarket
/// @notice One automated (LMSR) market: n = 2 or 3 outcomes priced by C(q) = b · ln Σ exp(q_i / b). One share of the
/// winning outcome pays one base unit of collateral at resolution. Trades come only through the market's router.
/// @dev Units: shares, costs, fees and b are collateral base units (USDC 6 decimals, PM 18); prices are 1e18 = 1;
/// fee rates are basis points. Outcome indexes in trading are 0-based; resolution outcomes are 1-indexed, 0 = void.
/// Resolution is the MarketResolver's (IMarketResolver): the market answers to it (IResolvableMarket) and trades only
/// while the resolver has nothing on it.
interface ILmsrMarket is IResolvableMarket {
    /// @notice On-chain lifecycle, derived by state(): Resolved once the resolver called onResolved; else Proposed
    /// while the resolver's phase is Proposed, Disputed while it is Disputed, Voting or Council; else Closed from
    /// closeTime on; else Open. A proposal therefore stops trading at once, even before closeTime. Only Open trades.
    enum MarketState {
        Open,
        Closed,
        Proposed,
        Disputed,
        Resolved
    }

    /// @notice Everything a market is created with; written once by its factory.
    /// @param collateral ERC-20 the market trades in (plain: no fee-on-transfer, no rebasing).
    /// @param router The only address allowed to call buy and sell (the collateral's TradeRouter).
    /// @param creator Receives creator fees and owns the bond.
    /// @param outcomeCount 2 or 3.
    /// @param liquidity LMSR b, collateral base units.
    /// @param protocolFeeBps Protocol fee rate, basis points.
    /// @param creatorFeeBps Creator fee rate, basis points.
    /// @param protocolFeeRecipient Receives protocol fees at every trade.
    /// @param questionHash keccak256 of the question metadata (the service defines the document).
    /// @param closeTime Unix seconds; trading stops at this instant.
    /// @param resolutionWindow Seconds after closeTime in which the creator must propose an outcome.
    /// @param bond Creator's bond in the bond token (PM base units), held by this market.
    struct InitParams {
        IERC20 collateral;
        address router;
        address creator;
        uint8 outcomeCount;
        uint256 liquidity;
        uint16 protocolFeeBps;
        uint16 creatorFeeBps;
        address protocolFeeRecipient;
        bytes32 questionHash;
        uint64 closeTime;
        uint32 resolutionWindow;
        uint256 bond;
    }

    /// @notice The resolution as marketInfo reports it: the first three fields from the resolver's record
    /// (IMarketResolver.resolutionOf, which has the whole record), finalOutcome from this market.
    /// @param proposedOutcome 1-indexed outcome the creator proposed; 0 = void (read with proposedAt).
    /// @param proposedAt Unix seconds of the proposal; 0 = none yet.
    /// @param challengeDeadline Unix seconds until which the proposal can be challenged.
    /// @param finalOutcome 1-indexed winning outcome once Resolved; 0 = void (read with state()).
    struct Resolution {
        uint8 proposedOutcome;
        uint64 proposedAt;
        uint64 challengeDeadline;
        uint8 finalOutcome;
    }

    /// @notice One read with every field the service and indexer need.
    struct MarketInfo {
        address factory;
        address router;
        address collateral;
        address outcomeToken;
        address bondToken;
        address creator;
        address protocolFeeRecipient;
        uint8 outcomeCount;
        uint16 protocolFeeBps;
        uint16 creatorFeeBps;
        MarketState state;
        uint64 closeTime;
        uint32 resolutionWindow;
        uint64 resolveBy;
        bytes32 questionHash;
        uint256 liquidity;
        uint256 bond;
        uint256 creatorFees;
        uint256[] outstandingShares;
        uint256[] prices;
        Resolution resolution;
    }

    /// @notice Emitted for every buy and sell.
    /// @param trader Who paid (buy) or whose shares were sold (sell): the router's caller.
    /// @param recipient Who received the shares (buy) or the proceeds (sell).
    /// @param outcome 0-based outcome index.
    /// @param isBuy True for a buy.
    /// @param shares Shares bought or sold (collateral base units).
    /// @param cost LMSR cost of a buy / gross proceeds of a sell, fees excluded (collateral base units). The trader
    /// paid cost + protocolFee + creatorFee, or received cost − protocolFee − creatorFee.
    /// @param protocolFee Sent to the protocol fee recipient in this transaction.
    /// @param creatorFee Added to the creator's accrued fees (marketBalance).
    /// @param pricesAfter Every outcome's price after the trade, 1e18 = 1.
    event Trade(
        address indexed trader,
        address indexed recipient,
        uint8 outcome,
        bool isBuy,
        uint256 shares,
        uint256 cost,
        uint256 protocolFee,
        uint256 creatorFee,
        uint256[] pricesAfter
    );

    /// @notice Emitted when accrued creator fees are paid to the creator (whoever sent the call).
    event CreatorFeesCollected(address indexed creator, uint256 amount);

    /// @notice A holder's shares were redeemed after resolution and the payout sent to the holder.
    /// @param finalOutcome 1-indexed winning outcome, 0 for void.
    /// @param shares Shares burned: the winning outcome's, or every outcome's for void.
    /// @param payout Collateral paid: shares for a winning outcome; for void, shares / outcomeCount (rounded down).
    event Redeemed(address indexed holder, uint8 finalOutcome, uint256 shares, uint256 payout);

    /// @notice The creator's bond went back to the creator (no dispute went against them).
    event BondReturned(address indexed creator, uint256 amount);

    /// @notice The creator's bond was slashed: 5% to the keeper who settled it, 20% kept for the binding vote's voters
    /// (0 when no vote was binding), the rest to the treasury (the protocol fee recipient).
    event BondSlashed(address indexed keeper, uint256 keeperCut, uint256 voterPool, uint256 treasuryCut);

    /// @notice The voters' part of a slashed bond was paid, equally, to the ballots of the final outcome; the
    /// indivisible remainder went to the treasury.
    event VoterRewardsPaid(uint256 winners, uint256 perVoter, uint256 remainder);

    /// @notice Collateral no holder can ever claim was paid to the creator.
    event ResidualSwept(address indexed creator, uint256 amount);

    /// @notice One counted ballot of the binding vote, as the resolver's ballot commitment hashes it:
    /// leaf = keccak256(abi.encode(wallet, outcome, signatureHash)), the root the keccak256 of the leaves ascending.
    struct CountedBallot {
        address wallet;
        uint8 outcome;
        bytes32 signatureHash;
    }

    /// @notice buy or sell was not called by the market's router.
    error NotRouter(address caller);
    /// @notice Trading stopped: closeTime passed, or the market left the Open state (a proposal, or resolved).
    error MarketClosed(uint64 closeTime);
    /// @notice The outcome index is not below outcomeCount.
    error InvalidOutcome(uint8 outcome, uint8 outcomeCount);
    /// @notice A trade of zero shares.
    error ZeroShares();
    /// @notice A buy would cost more than maxCost, or a sell would pay less than minProceeds (amounts incl. fees).
    /// @param amount What the trade would cost (buy) or pay (sell).
    /// @param limit The caller's bound.
    error SlippageExceeded(uint256 amount, uint256 limit);
    /// @notice The trade would leave an outcome priced below MIN_PRICE (1e15 = 0.1%).
    error PriceOutOfBand(uint8 outcome, uint256 price);
    /// @notice A sell of more shares than are outstanding for the outcome.
    error SharesExceedOutstanding(uint256 shares, uint256 outstanding);
    /// @notice A sell whose proceeds after fees would be zero.
    error ZeroProceeds();
    /// @notice Creator fees can be collected only once the market is resolved.
    error CreatorFeesLocked(MarketState state);
    /// @notice Outcome shares arrived other than through the router's sell pull.
    error UnexpectedShares(address operator);
    /// @notice The implementation was initialized with unusable parameters.
    error InvalidParams();
    /// @notice Payouts, bond settlement and the sweep wait for resolution.
    error NotResolved();
    /// @notice settleBond ran already.
    error BondAlreadySettled();
    /// @notice No voters' part is waiting (no slash, no binding vote, or it was paid).
    error NoVoterPool();
    /// @notice The ballots given are not the set the resolver's verdict committed to.
    error BallotsMismatch();

    /// @notice Called once by the factory right after cloning.
    function initialize(InitParams calldata params) external;

    /// @notice Buys `shares` of `outcome` for `recipient`. The router pays total − protocolFee into this market and
    /// protocolFee to the protocol fee recipient in the same transaction, right after this returns.
    /// @param trader The router's caller, for the event.
    /// @param maxCost Upper bound on cost + fees.
    /// @return total cost + protocolFee + creatorFee, collateral base units.
    /// @return protocolFee The part of total the router sends to protocolFeeRecipient().
    function buy(address trader, address recipient, uint8 outcome, uint256 shares, uint256 maxCost)
        external
        returns (uint256 total, uint256 protocolFee);

    /// @notice Sells `shares` of `outcome` that the router has already moved into this market, burns them, and pays
    /// the proceeds after fees to `recipient`.
    /// @param trader Whose shares were pulled, for the event.
    /// @param minProceeds Lower bound on the proceeds after fees.
    /// @return proceeds Collateral base units paid to recipient.
    function sell(address trader, address recipient, uint8 outcome, uint256 shares, uint256 minProceeds)
        external
        returns (uint256 proceeds);

    /// @notice Exactly what buy would charge now; reverts with the errors buy would.
    /// @return total cost + protocolFee + creatorFee (compare with maxCost).
    /// @return protocolFee Part of total sent to the protocol fee recipient.
    /// @return creatorFee Part of total accrued to the creator.
    /// @return pricesAfter Every outcome's price after the trade, 1e18 = 1.
    function quoteBuy(uint8 outcome, uint256 shares)
        external
        view
        returns (uint256 total, uint256 protocolFee, uint256 creatorFee, uint256[] memory pricesAfter);

    /// @notice Exactly what sell would pay now; reverts with the errors sell would.
    /// @return proceeds Gross proceeds − protocolFee − creatorFee (compare with minProceeds).
    /// @return protocolFee Deducted and sent to the protocol fee recipient.
    /// @return creatorFee Deducted and accrued to the creator.
    /// @return pricesAfter Every outcome's price after the trade, 1e18 = 1.
    function quoteSell(uint8 outcome, uint256 shares)
        external
        view
        returns (uint256 proceeds, uint256 protocolFee, uint256 creatorFee, uint256[] memory pricesAfter);

    /// @notice Current marginal prices, 1e18 = 1, each within [MIN_PRICE, 1e18 − MIN_PRICE].
    function prices() external view returns (uint256[] memory);

    /// @notice Outstanding shares per outcome (what the market owes if that outcome wins), collateral base units.
    function outstandingShares() external view returns (uint256[] memory);

    /// @notice Lifecycle state with Closed derived from the clock.
    function state() external view returns (MarketState);

    /// @notice Every field in one call.
    function marketInfo() external view returns (MarketInfo memory);

    /// @notice Pays the accrued creator fees (marketBalance) to the creator; anyone may send it (the protocol pays the
    /// gas), the money only ever goes to the creator. Reverts with CreatorFeesLocked until the market is Resolved.
    function collectCreatorFees() external returns (uint256 amount);

    /// @notice Redeems every share `holder` has that pays, once Resolved: a winning share pays one collateral base
    /// unit; for void, every share pays 1/outcomeCount (the holder's total rounded down). Burns them, so nothing
    /// redeems twice. Anyone may send it; only the holder is paid. Pays 0 (and burns nothing) for a holder with none.
    function redeem(address holder) external returns (uint256 payout);

    /// @notice Once Resolved: returns the bond to the creator, or, if the resolver slashed the creator, splits it
    /// 5% to the caller (the keeper), 20% to the binding vote's voters (kept until distributeVoterRewards; to the
    /// treasury when no vote was binding), the rest to the treasury. Once.
    function settleBond() external;

    /// @notice Pays the voters' part of a slashed bond equally to the ballots of the final outcome, given the whole
    /// counted ballot set of the binding round (checked against the resolver's ballotRoot and ballotCount). Anyone
    /// may send it; only the voters are paid. Once.
    function distributeVoterRewards(CountedBallot[] calldata ballots) external returns (uint256 perVoter);

    /// @notice Once Resolved: pays the creator the collateral no holder can claim — the balance less the unredeemed
    /// winning shares (for void, the outstanding shares / outcomeCount, rounded up), the uncollected creator fees, and,
    /// when the collateral is the bond token, the unsettled bond and voters' part. Anyone may send it. Returns 0
    /// when there is nothing to sweep.
    function sweepResidual() external returns (uint256 amount);

    /// @notice What sweepResidual would pay now.
    function residual() external view returns (uint256);

    /// @notice PM of a slashed bond kept for the binding vote's voters.
    function voterPool() external view returns (uint256);
    /// @notice settleBond ran.
    function bondSettled() external view returns (bool);

    function factory() external view returns (address);
    function router() external view returns (address);
    function collateral() external view returns (IERC20);
    function liquidity() external view returns (uint256);
    function protocolFeeRecipient() external view returns (address);
    function creatorFees() external view returns (uint256);
    function closeTime() external view returns (uint64);
    function questionHash() external view returns (bytes32);
    function bond() external view returns (uint256);
    /// @notice 1-indexed final outcome, 0 = void; meaningful only once state() is Resolved.
    function finalOutcome() external view returns (uint8);
}

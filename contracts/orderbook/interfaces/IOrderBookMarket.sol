// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolvableMarket} from "../../resolution/interfaces/IResolvableMarket.sol";

/// @title IOrderBookMarket
/// @notice The on-chain record of one play-money ORDERBOOK market: who created it, which question, when it closes,
/// and the marketId the off-chain ledger keys its outcome assets by (asset id = (marketId << 8) | side, see
/// ILedgerCommitment). It holds no funds and trades nothing; orders and fills live in the ledger.
/// @dev Deployed once as the implementation (never initialised) and cloned per market (EIP-1167) by an
/// OrderBookMarketFactory, which initialises each clone in the transaction that creates it. The implementation names the
/// MarketResolver every clone answers to (IResolvableMarket); the outcome is recorded here, payouts are ledger
/// operations.
interface IOrderBookMarket is IResolvableMarket {
    /// @notice Lifecycle, derived as ILmsrMarket's: Resolved once the resolver called onResolved; else Proposed while
    /// the resolver's phase is Proposed, Disputed while it is Disputed, Voting or Council; else Closed from closeTime
    /// on; else Open. The ledger should accept orders only while Open.
    enum MarketState {
        Open,
        Closed,
        Proposed,
        Disputed,
        Resolved
    }

    /// @notice Everything the record holds, in one call.
    /// @param factory The OrderBookMarketFactory that created and initialised this market.
    /// @param creator The account that called createMarket.
    /// @param marketId The factory's id of this market, >= 1.
    /// @param outcomeCount Always 2 (sides 0 and 1).
    /// @param questionHash keccak256 of the question metadata document.
    /// @param closeTime Unix seconds; trading in the ledger stops then.
    /// @param resolutionWindowSeconds Seconds after closeTime for the creator to propose the outcome.
    struct MarketInfo {
        address factory;
        address creator;
        uint64 marketId;
        uint8 outcomeCount;
        bytes32 questionHash;
        uint64 closeTime;
        uint32 resolutionWindowSeconds;
    }

    /// @notice initialize was given a zero marketId or a zero creator, or the implementation a zero resolver.
    error InvalidParams();

    /// @notice Sets the record once; the caller becomes factory(). The implementation itself can never be
    /// initialised, and a clone only once (OpenZeppelin's InvalidInitialization otherwise).
    /// @param marketId >= 1.
    /// @param creator Not the zero address.
    /// @param questionHash keccak256 of the question metadata document.
    /// @param closeTime Unix seconds (the factory checks it is in the future).
    /// @param resolutionWindowSeconds Seconds (the factory checks it is positive).
    function initialize(
        uint64 marketId,
        address creator,
        bytes32 questionHash,
        uint64 closeTime,
        uint32 resolutionWindowSeconds
    ) external;

    function marketId() external view returns (uint64);
    function questionHash() external view returns (bytes32);
    /// @notice Unix seconds.
    function closeTime() external view returns (uint64);
    /// @notice Seconds after closeTime.
    function resolutionWindowSeconds() external view returns (uint32);
    function factory() external view returns (address);
    /// @notice Always "ORDERBOOK", the pricing model the service publishes for these markets.
    function pricingModel() external pure returns (string memory);
    function marketInfo() external view returns (MarketInfo memory);
    /// @notice Lifecycle state (see MarketState).
    function state() external view returns (MarketState);
    /// @notice 1-indexed final outcome (1 = side 0, 2 = side 1), 0 = void; meaningful only once state() is Resolved.
    function finalOutcome() external view returns (uint8);
}

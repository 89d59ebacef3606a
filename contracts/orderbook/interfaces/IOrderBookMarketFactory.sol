// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IOrderBookMarketFactory
/// @notice Registers play-money ORDERBOOK markets on chain: each createMarket clones the OrderBookMarket
/// implementation (EIP-1167), initialises it and gives it the next marketId (1, 2, 3, ...), the id the off-chain
/// ledger uses for the market's outcome assets. Anyone may create a market, with no fee and no bond: the markets
/// trade play money in the ledger, never on chain.
interface IOrderBookMarketFactory {
    /// @notice A market was registered; the ledger may list it from this block on.
    /// @param market The new clone.
    /// @param creator msg.sender of createMarket.
    /// @param marketId The market's id, >= 1, one more than the previous market's.
    /// @param questionHash keccak256 of the question metadata document.
    /// @param closeTime Unix seconds.
    /// @param resolutionWindowSeconds Seconds after closeTime.
    event MarketCreated(
        address indexed market,
        address indexed creator,
        uint64 indexed marketId,
        bytes32 questionHash,
        uint64 closeTime,
        uint32 resolutionWindowSeconds
    );

    /// @notice closeTime is not after the current block's timestamp.
    error CloseTimeNotInFuture(uint64 closeTime);
    /// @notice The resolution window must be at least one second.
    error ZeroResolutionWindow();
    /// @notice A zero address where a contract is required.
    error ZeroAddress();

    /// @notice Registers a market; msg.sender is its creator.
    /// @param questionHash keccak256 of the question metadata document.
    /// @param closeTime Unix seconds, after the current block's timestamp.
    /// @param resolutionWindowSeconds Seconds after closeTime for the creator to propose the outcome, > 0.
    /// @return market The new market's address.
    /// @return marketId Its id: marketCount() after the call.
    function createMarket(bytes32 questionHash, uint64 closeTime, uint32 resolutionWindowSeconds)
        external
        returns (address market, uint64 marketId);

    /// @notice The market with this id, or the zero address when there is none.
    function marketOf(uint64 marketId) external view returns (address);
    /// @notice The id of a market of this factory, or 0 when `market` is not one.
    function marketIdOf(address market) external view returns (uint64);
    /// @notice Whether `market` was created by this factory.
    function isMarket(address market) external view returns (bool);
    /// @notice Markets created so far, which is also the id of the latest one.
    function marketCount() external view returns (uint64);
    /// @notice The OrderBookMarket implementation every market is a clone of.
    function implementation() external view returns (address);
}

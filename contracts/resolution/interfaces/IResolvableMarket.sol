// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IResolvableMarket
/// @notice What a market of either lane shows the MarketResolver: its terms, the resolver it answers to, and the one
/// call the resolver makes when the market is resolved. A market calls nothing on the resolver but its views.
/// @dev Outcomes here are 1-indexed (1..outcomeCount); 0 means Invalid/Void.
interface IResolvableMarket {
    /// @notice onResolved was called by someone other than resolver().
    error NotResolver(address caller);
    /// @notice onResolved was called a second time.
    error AlreadyResolved();

    /// @notice The account that may propose this market's outcome (directly or by EIP-712 signature).
    function creator() external view returns (address);

    /// @notice Number of outcomes (2 or 3); resolution outcomes are 1..outcomeCount, or 0 for void.
    function outcomeCount() external view returns (uint8);

    /// @notice Unix seconds: closeTime plus the resolution window. The creator may propose until this instant
    /// (inclusive); after it the operator may open a vote because the creator was absent.
    function resolveBy() external view returns (uint64);

    /// @notice The MarketResolver this market answers to; a resolver acts only on markets that name it here.
    function resolver() external view returns (address);

    /// @notice Records the final outcome. Only resolver() may call it, once, when the resolution reaches Resolved.
    /// @param outcome 1-indexed winning outcome; 0 = void.
    function onResolved(uint8 outcome) external;
}

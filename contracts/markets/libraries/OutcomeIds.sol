// SPDX-License-Identifier: MIT
// The one place that knows how an outcome-token id is built from a market address and an outcome index.
pragma solidity ^0.8.24;

/// @title OutcomeIds
/// @notice id = (uint256(uint160(market)) << 8) | outcomeIndex, with outcomeIndex 0-based.
/// @dev The low byte leaves room for 256 outcomes per market; the high bits are the market's address, so ids of
/// different markets never collide and an id alone names its market.
library OutcomeIds {
    /// @param market The market contract the shares belong to.
    /// @param outcome 0-based outcome index (the trade side), not the 1-indexed resolution outcome.
    function encode(address market, uint8 outcome) internal pure returns (uint256) {
        return (uint256(uint160(market)) << 8) | outcome;
    }

    function marketOf(uint256 id) internal pure returns (address) {
        return address(uint160(id >> 8));
    }

    function outcomeOf(uint256 id) internal pure returns (uint8) {
        return uint8(id);
    }
}

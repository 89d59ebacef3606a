// SPDX-License-Identifier: MIT
// Basis-point fees, always rounded up so a fee is never under-collected.
pragma solidity ^0.8.24;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @title FeeMath
library FeeMath {
    /// @notice 100% in basis points.
    uint256 internal constant BPS = 10_000;

    /// @param amount Collateral base units the fee is charged on.
    /// @param bps Fee rate in basis points (1 bps = 0.01%).
    /// @return fee ceil(amount * bps / 10_000), in collateral base units.
    function fee(uint256 amount, uint256 bps) internal pure returns (uint256) {
        return Math.mulDiv(amount, bps, BPS, Math.Rounding.Ceil);
    }
}

// SPDX-License-Identifier: MIT
// The LMSR cost function and its prices, as one deterministic fixed-point function of the outstanding shares.
pragma solidity ^0.8.24;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {exp, sd} from "@prb/math/src/SD59x18.sol";
import {ln, ud} from "@prb/math/src/UD60x18.sol";

/// @title LmsrMath
/// @notice C(q) = b · ln Σ exp(q_i / b), evaluated as max(q) + b · ln Σ exp((q_i − max q) / b) so every exponent is
/// ≤ 0 and nothing overflows. Shares, b and costs are collateral base units; results carry 18 extra decimals ("wad").
/// @dev Solvency does not rely on exp/ln being exact: trades are charged the difference of this very function
/// (rounded in the market's favour), so the charges telescope to C(q) − C(0), and C(q) ≥ max(q) holds exactly
/// because the largest term is exactly 1e18 and ln of a value ≥ 1e18 is ≥ 0.
library LmsrMath {
    uint256 internal constant WAD = 1e18;

    /// @dev exp(−50) ≈ 2e-22 is below the 1e-18 resolution, so the term is 0 (this also keeps the int256 cast safe).
    uint256 private constant MAX_EXPONENT = 50e18;

    /// @param q Outstanding shares per outcome, collateral base units.
    /// @param b Liquidity parameter, collateral base units (> 0).
    /// @return costWad C(q) in collateral base units × 1e18.
    function cost(uint256[] memory q, uint256 b) internal pure returns (uint256 costWad) {
        (costWad,) = evaluate(q, b);
    }

    /// @param q Outstanding shares per outcome, collateral base units.
    /// @param b Liquidity parameter, collateral base units (> 0).
    /// @return costWad C(q) in collateral base units × 1e18.
    /// @return pricesWad Marginal price of each outcome, 1e18 = 1; each is rounded down, so they sum to 1e18 minus at
    /// most (n − 1) units.
    function evaluate(uint256[] memory q, uint256 b) internal pure returns (uint256 costWad, uint256[] memory pricesWad) {
        uint256 n = q.length;
        uint256 top;
        for (uint256 i; i < n; ++i) {
            if (q[i] > top) top = q[i];
        }
        pricesWad = new uint256[](n);
        uint256 sum;
        for (uint256 i; i < n; ++i) {
            uint256 d = Math.mulDiv(top - q[i], WAD, b);
            uint256 term;
            if (d == 0) term = WAD;
            else if (d <= MAX_EXPONENT) term = uint256(exp(sd(-int256(d))).unwrap());
            pricesWad[i] = term;
            sum += term;
        }
        costWad = top * WAD + b * ln(ud(sum)).unwrap();
        for (uint256 i; i < n; ++i) {
            pricesWad[i] = pricesWad[i] * WAD / sum;
        }
    }

    /// @notice The creator's initial subsidy: C(0) = b · ln(n), rounded up to whole base units. It is the maker's
    /// worst-case loss, and equals the C(0) that trade charges telescope against.
    /// @param b Liquidity parameter, collateral base units.
    /// @param n Number of outcomes.
    /// @return Collateral base units.
    function subsidy(uint256 b, uint256 n) internal pure returns (uint256) {
        return Math.ceilDiv(cost(new uint256[](n), b), WAD);
    }
}

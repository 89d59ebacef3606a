// SPDX-License-Identifier: MIT
// Many redemptions in one transaction: the protocol's relayer claims for many holders and markets at once.
pragma solidity ^0.8.24;

import {ILmsrMarket} from "./interfaces/ILmsrMarket.sol";

/// @title PayoutRouter
/// @notice Calls ILmsrMarket.redeem for each (market, holder): each market pays only the holder, so whoever sends the
/// batch (the protocol, paying the gas) cannot take anything. One claim that fails (not resolved yet, not a market)
/// is reported and skipped; the others go through. Holds nothing.
contract PayoutRouter {
    /// @notice One redemption.
    struct Claim {
        address market;
        address holder;
    }

    /// @notice A claim of the batch reverted; `reason` is its revert data.
    event ClaimSkipped(address indexed market, address indexed holder, bytes reason);

    /// @notice Redeems each claim; payouts[i] is what claim i paid (0 when skipped or when the holder had nothing).
    function redeemMany(Claim[] calldata claims) external returns (uint256[] memory payouts) {
        uint256 n = claims.length;
        payouts = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            Claim calldata c = claims[i];
            try ILmsrMarket(c.market).redeem(c.holder) returns (uint256 paid) {
                payouts[i] = paid;
            } catch (bytes memory reason) {
                emit ClaimSkipped(c.market, c.holder, reason);
            }
        }
    }
}

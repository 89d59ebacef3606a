// SPDX-License-Identifier: MIT
// Registers play-money order-book markets on chain and numbers them with the ids the off-chain ledger uses.
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IOrderBookMarket} from "./interfaces/IOrderBookMarket.sol";
import {IOrderBookMarketFactory} from "./interfaces/IOrderBookMarketFactory.sol";

/// @title OrderBookMarketFactory
/// @notice See IOrderBookMarketFactory. Permissionless and free: the owner has no power over creation or over any
/// market; ownership only names the operator that deployed the lane, like the other factories.
/// @dev Clones are created with CREATE, and this contract creates nothing else, so market k is deployed at this
/// factory's nonce k: the pair (marketId, address) is fixed by the factory alone, whatever a reorg reorders.
contract OrderBookMarketFactory is IOrderBookMarketFactory, Ownable2Step {
    /// @inheritdoc IOrderBookMarketFactory
    address public immutable implementation;
    /// @inheritdoc IOrderBookMarketFactory
    uint64 public marketCount;

    mapping(uint64 marketId => address) private _markets;
    mapping(address market => uint64) private _ids;

    /// @param implementation_ The OrderBookMarket implementation to clone.
    /// @param owner_ The operator account.
    constructor(address implementation_, address owner_) Ownable(owner_) {
        if (implementation_ == address(0)) revert ZeroAddress();
        implementation = implementation_;
    }

    /// @inheritdoc IOrderBookMarketFactory
    function createMarket(bytes32 questionHash, uint64 closeTime, uint32 resolutionWindowSeconds)
        external
        returns (address market, uint64 marketId)
    {
        if (closeTime <= block.timestamp) revert CloseTimeNotInFuture(closeTime);
        if (resolutionWindowSeconds == 0) revert ZeroResolutionWindow();
        marketId = ++marketCount;
        market = Clones.clone(implementation);
        _markets[marketId] = market;
        _ids[market] = marketId;
        IOrderBookMarket(market).initialize(marketId, msg.sender, questionHash, closeTime, resolutionWindowSeconds);
        emit MarketCreated(market, msg.sender, marketId, questionHash, closeTime, resolutionWindowSeconds);
    }

    /// @inheritdoc IOrderBookMarketFactory
    function marketOf(uint64 marketId) external view returns (address) {
        return _markets[marketId];
    }

    /// @inheritdoc IOrderBookMarketFactory
    function marketIdOf(address market) external view returns (uint64) {
        return _ids[market];
    }

    /// @inheritdoc IOrderBookMarketFactory
    function isMarket(address market) external view returns (bool) {
        return _ids[market] != 0;
    }
}

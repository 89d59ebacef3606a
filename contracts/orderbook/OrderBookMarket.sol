// SPDX-License-Identifier: MIT
// The on-chain record of one play-money order-book market, deployed as a minimal-proxy clone by OrderBookMarketFactory.
pragma solidity ^0.8.24;

import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {IOrderBookMarket} from "./interfaces/IOrderBookMarket.sol";
import {IMarketResolver} from "../resolution/interfaces/IMarketResolver.sol";
import {IResolvableMarket} from "../resolution/interfaces/IResolvableMarket.sol";

/// @title OrderBookMarket
/// @notice See IOrderBookMarket. A record, not a venue: no trading, no tokens, no funds.
contract OrderBookMarket is IOrderBookMarket, Initializable {
    uint8 private constant OUTCOME_COUNT = 2;

    /// @inheritdoc IResolvableMarket
    address public immutable resolver;

    // Three slots: (factory, marketId, resolved, finalOutcome), (creator, closeTime, resolutionWindowSeconds),
    // questionHash.
    /// @inheritdoc IOrderBookMarket
    address public factory;
    /// @inheritdoc IOrderBookMarket
    uint64 public marketId;
    bool private _resolved;
    /// @inheritdoc IOrderBookMarket
    uint8 public finalOutcome;
    /// @inheritdoc IResolvableMarket
    address public creator;
    /// @inheritdoc IOrderBookMarket
    uint64 public closeTime;
    /// @inheritdoc IOrderBookMarket
    uint32 public resolutionWindowSeconds;
    /// @inheritdoc IOrderBookMarket
    bytes32 public questionHash;

    /// @dev The implementation only carries code for the clones; it never becomes a market itself.
    /// @param resolver_ The MarketResolver every clone answers to.
    constructor(address resolver_) {
        if (resolver_ == address(0)) revert InvalidParams();
        resolver = resolver_;
        _disableInitializers();
    }

    /// @inheritdoc IOrderBookMarket
    function initialize(
        uint64 marketId_,
        address creator_,
        bytes32 questionHash_,
        uint64 closeTime_,
        uint32 resolutionWindowSeconds_
    ) external initializer {
        if (marketId_ == 0 || creator_ == address(0)) revert InvalidParams();
        factory = msg.sender;
        marketId = marketId_;
        creator = creator_;
        closeTime = closeTime_;
        resolutionWindowSeconds = resolutionWindowSeconds_;
        questionHash = questionHash_;
    }

    /// @notice Always 2: order-book markets are binary.
    function outcomeCount() external pure returns (uint8) {
        return OUTCOME_COUNT;
    }

    /// @inheritdoc IResolvableMarket
    function resolveBy() external view returns (uint64) {
        return closeTime + resolutionWindowSeconds;
    }

    /// @inheritdoc IResolvableMarket
    function onResolved(uint8 outcome) external {
        if (msg.sender != resolver) revert NotResolver(msg.sender);
        if (_resolved) revert AlreadyResolved();
        _resolved = true;
        finalOutcome = outcome;
    }

    /// @inheritdoc IOrderBookMarket
    function state() external view returns (MarketState) {
        if (_resolved) return MarketState.Resolved;
        IMarketResolver.Phase phase = IMarketResolver(resolver).phaseOf(address(this));
        if (phase == IMarketResolver.Phase.Proposed) return MarketState.Proposed;
        if (phase != IMarketResolver.Phase.None) return MarketState.Disputed;
        if (block.timestamp >= closeTime) return MarketState.Closed;
        return MarketState.Open;
    }

    /// @inheritdoc IOrderBookMarket
    function pricingModel() external pure returns (string memory) {
        return "ORDERBOOK";
    }

    /// @inheritdoc IOrderBookMarket
    function marketInfo() external view returns (MarketInfo memory) {
        return MarketInfo({
            factory: factory,
            creator: creator,
            marketId: marketId,
            outcomeCount: OUTCOME_COUNT,
            questionHash: questionHash,
            closeTime: closeTime,
            resolutionWindowSeconds: resolutionWindowSeconds
        });
    }
}

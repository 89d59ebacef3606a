// SPDX-License-Identifier: MIT
// The permanent per-collateral trade entry point: traders approve it once, and it never changes address or code.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {ILmsrMarket} from "./interfaces/ILmsrMarket.sol";
import {IOutcomeToken} from "./interfaces/IOutcomeToken.sol";
import {ITradeRouter} from "./interfaces/ITradeRouter.sol";
import {OutcomeIds} from "./libraries/OutcomeIds.sol";

/// @title TradeRouter
/// @notice See ITradeRouter. A buy asks the market to price, book and mint, then pulls exactly what the market
/// charged; a sell pulls the shares into the market, which burns them and pays out. Both run under one
/// reentrancy lock, so an ERC-1155 receiver hook cannot trade in between.
contract TradeRouter is ITradeRouter, Ownable2Step, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @inheritdoc ITradeRouter
    IERC20 public immutable collateral;
    /// @inheritdoc ITradeRouter
    IOutcomeToken public immutable outcomeToken;

    /// @inheritdoc ITradeRouter
    mapping(address factory => bool) public isFactory;
    /// @inheritdoc ITradeRouter
    mapping(address market => bool) public isMarket;

    /// @param collateral_ The one collateral this router trades.
    /// @param outcomeToken_ The shared outcome token.
    /// @param owner_ May authorise factories; has no power over funds or registered markets.
    constructor(IERC20 collateral_, IOutcomeToken outcomeToken_, address owner_) Ownable(owner_) {
        if (address(collateral_) == address(0) || address(outcomeToken_) == address(0)) revert ZeroAddress();
        collateral = collateral_;
        outcomeToken = outcomeToken_;
    }

    /// @inheritdoc ITradeRouter
    function setFactory(address factory, bool authorised) external onlyOwner {
        if (factory == address(0)) revert ZeroAddress();
        isFactory[factory] = authorised;
        emit FactorySet(factory, authorised);
    }

    /// @inheritdoc ITradeRouter
    function registerMarket(address market) external {
        if (!isFactory[msg.sender]) revert NotFactory(msg.sender);
        if (isMarket[market]) revert MarketAlreadyRegistered(market);
        if (address(ILmsrMarket(market).collateral()) != address(collateral)) {
            revert CollateralMismatch(market, address(collateral));
        }
        isMarket[market] = true;
        emit MarketRegistered(market, msg.sender);
    }

    /// @inheritdoc ITradeRouter
    function executeTradeIntent(TradeIntent calldata intent) external nonReentrant returns (uint256 amount) {
        return _execute(intent);
    }

    /// @inheritdoc ITradeRouter
    function executeBasketIntent(TradeIntent[] calldata intents)
        external
        nonReentrant
        returns (uint256[] memory amounts)
    {
        uint256 n = intents.length;
        if (n == 0) revert EmptyBasket();
        amounts = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            amounts[i] = _execute(intents[i]);
        }
    }

    function _execute(TradeIntent calldata t) private returns (uint256) {
        if (block.timestamp > t.deadline) revert DeadlineExpired(t.deadline);
        if (t.recipient == address(0)) revert ZeroRecipient();
        if (!isMarket[t.market]) revert UnknownMarket(t.market);
        ILmsrMarket market = ILmsrMarket(t.market);
        if (t.isBuy) {
            (uint256 total, uint256 protocolFee) = market.buy(msg.sender, t.recipient, t.outcome, t.shares, t.limit);
            collateral.safeTransferFrom(msg.sender, t.market, total - protocolFee);
            if (protocolFee != 0) collateral.safeTransferFrom(msg.sender, market.protocolFeeRecipient(), protocolFee);
            return total;
        }
        outcomeToken.safeTransferFrom(msg.sender, t.market, OutcomeIds.encode(t.market, t.outcome), t.shares, "");
        return market.sell(msg.sender, t.recipient, t.outcome, t.shares, t.limit);
    }
}

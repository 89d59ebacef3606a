// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IOutcomeToken} from "./IOutcomeToken.sol";

/// @title ITradeRouter
/// @notice The one permanent entry point for trading automated markets of one collateral. Traders approve it once:
/// ERC-20 approve(router) on the collateral for buys, ERC-1155 setApprovalForAll(router) on the outcome token for
/// sells. Market errors (SlippageExceeded, MarketClosed, …) and token errors (ERC20InsufficientAllowance,
/// ERC1155MissingApprovalForAll, …) bubble up unchanged; decode them with those contracts' ABIs.
interface ITradeRouter {
    /// @notice One trade, signed by nobody: the router's caller is the trader.
    /// @param market A market registered with this router.
    /// @param outcome 0-based outcome index.
    /// @param isBuy True to buy shares with collateral, false to sell shares for collateral.
    /// @param shares Shares to buy or sell, collateral base units (one share pays one base unit if it wins).
    /// @param limit Buy: the most collateral to pay including fees. Sell: the least collateral to receive after fees.
    /// @param deadline Unix seconds; the trade reverts once block.timestamp is past it.
    /// @param recipient Receives the shares (buy) or the collateral (sell); must not be zero.
    struct TradeIntent {
        address market;
        uint8 outcome;
        bool isBuy;
        uint256 shares;
        uint256 limit;
        uint256 deadline;
        address recipient;
    }

    /// @notice The owner authorised or deauthorised a factory. Markets already registered stay tradeable.
    event FactorySet(address indexed factory, bool authorised);

    /// @notice A factory registered a market of this router's collateral.
    event MarketRegistered(address indexed market, address indexed factory);

    /// @notice registerMarket was called by an address that is not an authorised factory.
    error NotFactory(address caller);
    /// @notice The intent names a market this router does not trade.
    error UnknownMarket(address market);
    /// @notice The market already is registered.
    error MarketAlreadyRegistered(address market);
    /// @notice The market's collateral is not this router's.
    error CollateralMismatch(address market, address collateral);
    /// @notice block.timestamp is past the intent's deadline.
    error DeadlineExpired(uint256 deadline);
    /// @notice The intent's recipient is the zero address.
    error ZeroRecipient();
    /// @notice executeBasketIntent was given no intents.
    error EmptyBasket();
    /// @notice A zero address where an account is required.
    error ZeroAddress();

    /// @notice Executes one trade for msg.sender.
    /// @return amount Buy: collateral paid including fees. Sell: collateral received after fees.
    function executeTradeIntent(TradeIntent calldata intent) external returns (uint256 amount);

    /// @notice Executes the trades in order, all or nothing; each is bounded by its own limit and deadline.
    /// @return amounts One amount per intent, as executeTradeIntent returns it.
    function executeBasketIntent(TradeIntent[] calldata intents) external returns (uint256[] memory amounts);

    /// @notice Authorised factories only, once per market, at creation.
    function registerMarket(address market) external;

    /// @notice Owner only.
    function setFactory(address factory, bool authorised) external;

    function collateral() external view returns (IERC20);
    function outcomeToken() external view returns (IOutcomeToken);
    function isFactory(address factory) external view returns (bool);
    function isMarket(address market) external view returns (bool);
}

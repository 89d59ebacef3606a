// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";

/// @title IOutcomeToken
/// @notice The one ERC-1155 holding every market's outcome shares. Token id = (uint256(uint160(market)) << 8) |
/// outcomeIndex (0-based). The owner authorises factories; an authorised factory registers the markets it creates;
/// a registered market mints and burns only its own ids.
interface IOutcomeToken is IERC1155 {
    /// @notice The owner authorised or deauthorised a factory. Markets it registered keep working either way.
    event FactorySet(address indexed factory, bool authorised);

    /// @notice A factory registered a new market; from now on the market may mint and burn its ids.
    event MarketRegistered(address indexed market, address indexed factory, uint8 outcomeCount);

    /// @notice The owner changed the metadata URI template (ERC-1155 {id} substitution).
    event UriSet(string uri);

    /// @notice registerMarket was called by an address that is not an authorised factory.
    error NotFactory(address caller);
    /// @notice mint or burn was called by an address that is not a registered market.
    error NotMarket(address caller);
    /// @notice The market is already registered.
    error MarketAlreadyRegistered(address market);
    /// @notice A market needs 2 to 256 outcomes to fit the id's low byte; 0 or 1 is refused.
    error InvalidOutcomeCount(uint8 outcomeCount);
    /// @notice The outcome index is not below the market's outcomeCount.
    error InvalidOutcome(uint8 outcome, uint8 outcomeCount);
    /// @notice A zero address where an account is required.
    error ZeroAddress();

    /// @notice Owner only.
    function setFactory(address factory, bool authorised) external;

    /// @notice Authorised factories only, once per market.
    function registerMarket(address market, uint8 outcomeCount) external;

    /// @notice Registered markets only; mints id (msg.sender, outcome).
    function mint(address to, uint8 outcome, uint256 amount) external;

    /// @notice Registered markets only; burns id (msg.sender, outcome) from `from` (markets burn only what they hold
    /// or what their own logic entitles them to).
    function burn(address from, uint8 outcome, uint256 amount) external;

    function isFactory(address factory) external view returns (bool);

    /// @notice 0 when the market is not registered.
    function outcomeCountOf(address market) external view returns (uint8);

    /// @notice The factory that registered the market; zero when unregistered.
    function factoryOf(address market) external view returns (address);

    /// @notice (uint256(uint160(market)) << 8) | outcome.
    function tokenId(address market, uint8 outcome) external pure returns (uint256);
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IOutcomeToken} from "./IOutcomeToken.sol";

/// @title ILmsrMarketFactory
/// @notice Creates LMSR markets with a fixed number of outcomes (one factory for binary, one for ternary) as
/// minimal-proxy clones of one implementation. It enforces the fee schedule, a liquidity floor per collateral, the
/// resolution-window range, a future close time and the creator's bond ceiling; takes the creator's PM bond and the
/// b·ln(n) subsidy into the new market; and registers the market with the outcome token and the collateral's router.
interface ILmsrMarketFactory {
    /// @notice What the factory knows about an accepted collateral.
    /// @param router The collateral's TradeRouter; zero means the collateral is not accepted.
    /// @param minLiquidity Smallest b a creator may choose, collateral base units.
    struct CollateralConfig {
        address router;
        uint256 minLiquidity;
    }

    /// @notice A market was created and funded; it is tradeable from this block on.
    /// @param liquidity LMSR b, collateral base units.
    /// @param bond PM base units taken from the creator, held by the market.
    /// @param subsidy Collateral base units taken from the creator into the market (b·ln n, rounded up).
    event MarketCreated(
        address indexed market,
        address indexed creator,
        address indexed collateral,
        uint8 outcomeCount,
        bytes32 questionHash,
        uint64 closeTime,
        uint32 resolutionWindow,
        uint256 liquidity,
        uint256 bond,
        uint256 subsidy,
        uint16 protocolFeeBps,
        uint16 creatorFeeBps
    );

    /// @notice A collateral was accepted, or its router or liquidity floor changed.
    event CollateralSet(address indexed token, address indexed router, uint256 minLiquidity);
    /// @notice A collateral is no longer accepted for new markets; existing markets are unaffected.
    event CollateralRemoved(address indexed token);
    /// @notice The fee schedule for new markets changed.
    event FeeScheduleSet(uint16 protocolFeeBps, uint16 maxCreatorFeeBps);
    /// @notice The creation bond for new markets changed (PM base units).
    event CreationBondSet(uint256 bond);
    /// @notice The protocol fee recipient for new markets changed.
    event ProtocolFeeRecipientSet(address indexed recipient);

    /// @notice The collateral is not accepted by this factory.
    error UnsupportedCollateral(address collateral);
    /// @notice b is below the collateral's liquidity floor.
    error LiquidityBelowFloor(uint256 liquidity, uint256 minLiquidity);
    /// @notice The protocol fee must equal the factory's current protocolFeeBps.
    error ProtocolFeeMismatch(uint16 protocolFeeBps, uint16 required);
    /// @notice The creator fee exceeds the factory's maxCreatorFeeBps.
    error CreatorFeeTooHigh(uint16 creatorFeeBps, uint16 maxCreatorFeeBps);
    /// @notice closeTime is not after the current block's timestamp.
    error CloseTimeNotInFuture(uint64 closeTime);
    /// @notice The resolution window is outside [MIN_RESOLUTION_WINDOW, MAX_RESOLUTION_WINDOW].
    error ResolutionWindowOutOfRange(uint32 resolutionWindow);
    /// @notice protocolFeeBps + maxCreatorFeeBps would exceed MAX_TOTAL_FEE_BPS.
    error FeeScheduleTooHigh(uint16 protocolFeeBps, uint16 maxCreatorFeeBps);
    /// @notice The router does not trade this collateral.
    error RouterCollateralMismatch(address router, address token);
    /// @notice The liquidity floor must be positive.
    error ZeroLiquidityFloor();
    /// @notice outcomeCount must be 2 or 3.
    error InvalidOutcomeCount(uint8 outcomeCount);
    /// @notice A zero address where an account or contract is required.
    error ZeroAddress();
    /// @notice The creation bond (creationBond(), PM base units) exceeds the most the creator agreed to bond, e.g.
    /// because the owner raised it between quote and send.
    /// @param bond PM base units the factory would take.
    /// @param maxBond PM base units the creator agreed to, as passed to createMarket.
    error BondAboveMax(uint256 bond, uint256 maxBond);

    /// @notice Creates, funds and registers a market; msg.sender is the creator and must have approved this factory
    /// for `subsidy` of the collateral and `bond` of PM (see quoteCreation). The bond taken is creationBond() at
    /// execution, never more than maxBond.
    /// @param collateral An accepted collateral token.
    /// @param questionHash keccak256 of the question metadata.
    /// @param closeTime Unix seconds, in the future; trading stops then.
    /// @param resolutionWindow Seconds after closeTime for the creator to propose the outcome.
    /// @param liquidity LMSR b in collateral base units, at least the collateral's minLiquidity.
    /// @param protocolFeeBps Must equal protocolFeeBps() (so a schedule change between quote and send reverts).
    /// @param creatorFeeBps At most maxCreatorFeeBps().
    /// @param maxBond The most PM base units the creator agrees to bond, normally the bond quoteCreation returned;
    /// reverts with BondAboveMax when creationBond() is higher (so a bond raised between quote and send reverts
    /// rather than taking more than the creator signed for).
    /// @return market The new market's address (predictable with nextMarketAddress).
    function createMarket(
        address collateral,
        bytes32 questionHash,
        uint64 closeTime,
        uint32 resolutionWindow,
        uint256 liquidity,
        uint16 protocolFeeBps,
        uint16 creatorFeeBps,
        uint256 maxBond
    ) external returns (address market);

    /// @notice What createMarket would take from the creator for this b, exactly.
    /// @param liquidity LMSR b, collateral base units.
    /// @return subsidy Collateral base units: b·ln(outcomeCount), rounded up.
    /// @return bond PM base units.
    function quoteCreation(uint256 liquidity) external view returns (uint256 subsidy, uint256 bond);

    /// @notice The address the creator's next createMarket will deploy to (CREATE2, salted by creator and nonce).
    function nextMarketAddress(address creator) external view returns (address);

    function collateralConfig(address token) external view returns (CollateralConfig memory);
    function isMarket(address market) external view returns (bool);
    function outcomeCount() external view returns (uint8);
    function implementation() external view returns (address);
    function outcomeToken() external view returns (IOutcomeToken);
    function bondToken() external view returns (IERC20);
    function protocolFeeBps() external view returns (uint16);
    function maxCreatorFeeBps() external view returns (uint16);
    function protocolFeeRecipient() external view returns (address);
    function creationBond() external view returns (uint256);

    /// @notice Owner only: accept `token` with its router and liquidity floor, or update them.
    function setCollateral(address token, address router, uint256 minLiquidity) external;
    /// @notice Owner only: stop accepting `token` for new markets.
    function removeCollateral(address token) external;
    /// @notice Owner only.
    function setFeeSchedule(uint16 protocolFeeBps, uint16 maxCreatorFeeBps) external;
    /// @notice Owner only; PM base units. Applies to createMarket calls from then on; one whose maxBond is lower
    /// reverts with BondAboveMax.
    function setCreationBond(uint256 bond) external;
    /// @notice Owner only.
    function setProtocolFeeRecipient(address recipient) external;
}

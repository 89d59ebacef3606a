// SPDX-License-Identifier: MIT
// Creates automated markets of one outcome count; deployed once for binary (2) and once for ternary (3).
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {ILmsrMarket} from "./interfaces/ILmsrMarket.sol";
import {ILmsrMarketFactory} from "./interfaces/ILmsrMarketFactory.sol";
import {IOutcomeToken} from "./interfaces/IOutcomeToken.sol";
import {ITradeRouter} from "./interfaces/ITradeRouter.sol";
import {LmsrMarket} from "./LmsrMarket.sol";
import {LmsrMath} from "./libraries/LmsrMath.sol";

/// @title LmsrMarketFactory
/// @notice See ILmsrMarketFactory. The owner tunes what new markets get (collaterals, floors, fees, bond, fee
/// recipient); nothing it does reaches markets that already exist.
contract LmsrMarketFactory is ILmsrMarketFactory, Ownable2Step {
    using SafeERC20 for IERC20;

    /// @notice Hard cap on protocolFeeBps + maxCreatorFeeBps (10%), whatever the owner sets.
    uint16 public constant MAX_TOTAL_FEE_BPS = 1_000;
    /// @notice Shortest resolution window a creator may choose.
    uint32 public constant MIN_RESOLUTION_WINDOW = 1 hours;
    /// @notice Longest resolution window a creator may choose.
    uint32 public constant MAX_RESOLUTION_WINDOW = 30 days;

    /// @inheritdoc ILmsrMarketFactory
    uint8 public immutable outcomeCount;
    /// @inheritdoc ILmsrMarketFactory
    address public immutable implementation;
    /// @inheritdoc ILmsrMarketFactory
    IOutcomeToken public immutable outcomeToken;
    /// @inheritdoc ILmsrMarketFactory
    IERC20 public immutable bondToken;

    /// @inheritdoc ILmsrMarketFactory
    uint16 public protocolFeeBps;
    /// @inheritdoc ILmsrMarketFactory
    uint16 public maxCreatorFeeBps;
    /// @inheritdoc ILmsrMarketFactory
    address public protocolFeeRecipient;
    /// @inheritdoc ILmsrMarketFactory
    uint256 public creationBond;
    /// @inheritdoc ILmsrMarketFactory
    mapping(address market => bool) public isMarket;
    /// @notice Markets created by each creator so far; salts the next market's CREATE2 address.
    mapping(address creator => uint256) public creatorNonce;
    /// @notice Markets created by this factory.
    uint256 public marketCount;
    mapping(address token => CollateralConfig) private _collaterals;

    /// @param outcomeCount_ 2 (binary factory) or 3 (ternary factory).
    /// @param implementation_ The LmsrMarket implementation to clone; its outcome and bond tokens become this
    /// factory's.
    /// @param owner_ Tunes the schedule for new markets.
    /// @param protocolFeeRecipient_ Receives protocol fees of markets created from now on.
    /// @param protocolFeeBps_ Protocol fee every new market charges, basis points.
    /// @param maxCreatorFeeBps_ Highest creator fee a creator may choose, basis points.
    /// @param creationBond_ PM base units taken from each creator.
    constructor(
        uint8 outcomeCount_,
        address implementation_,
        address owner_,
        address protocolFeeRecipient_,
        uint16 protocolFeeBps_,
        uint16 maxCreatorFeeBps_,
        uint256 creationBond_
    ) Ownable(owner_) {
        if (outcomeCount_ < 2 || outcomeCount_ > 3) revert InvalidOutcomeCount(outcomeCount_);
        if (implementation_ == address(0)) revert ZeroAddress();
        outcomeCount = outcomeCount_;
        implementation = implementation_;
        outcomeToken = LmsrMarket(implementation_).outcomeToken();
        bondToken = LmsrMarket(implementation_).bondToken();
        _setFeeSchedule(protocolFeeBps_, maxCreatorFeeBps_);
        _setProtocolFeeRecipient(protocolFeeRecipient_);
        creationBond = creationBond_;
        emit CreationBondSet(creationBond_);
    }

    /// @inheritdoc ILmsrMarketFactory
    function createMarket(
        address collateral,
        bytes32 questionHash,
        uint64 closeTime,
        uint32 resolutionWindow,
        uint256 liquidity,
        uint16 protocolFeeBps_,
        uint16 creatorFeeBps,
        uint256 maxBond
    ) external returns (address market) {
        ILmsrMarket.InitParams memory p = _initParams(
            collateral, questionHash, closeTime, resolutionWindow, liquidity, protocolFeeBps_, creatorFeeBps, maxBond
        );
        market = Clones.cloneDeterministic(implementation, _salt(msg.sender, creatorNonce[msg.sender]++));
        ILmsrMarket(market).initialize(p);
        isMarket[market] = true;
        ++marketCount;
        outcomeToken.registerMarket(market, outcomeCount);
        ITradeRouter(p.router).registerMarket(market);

        uint256 subsidy = LmsrMath.subsidy(liquidity, outcomeCount);
        p.collateral.safeTransferFrom(msg.sender, market, subsidy);
        if (p.bond != 0) bondToken.safeTransferFrom(msg.sender, market, p.bond);
        _emitCreated(market, p, subsidy);
    }

    /// @inheritdoc ILmsrMarketFactory
    function quoteCreation(uint256 liquidity) public view returns (uint256 subsidy, uint256 bond) {
        return (LmsrMath.subsidy(liquidity, outcomeCount), creationBond);
    }

    /// @inheritdoc ILmsrMarketFactory
    function nextMarketAddress(address creator) external view returns (address) {
        return Clones.predictDeterministicAddress(implementation, _salt(creator, creatorNonce[creator]));
    }

    /// @inheritdoc ILmsrMarketFactory
    function collateralConfig(address token) external view returns (CollateralConfig memory) {
        return _collaterals[token];
    }

    /// @inheritdoc ILmsrMarketFactory
    function setCollateral(address token, address router, uint256 minLiquidity) external onlyOwner {
        if (token == address(0) || router == address(0)) revert ZeroAddress();
        if (address(ITradeRouter(router).collateral()) != token) revert RouterCollateralMismatch(router, token);
        if (minLiquidity == 0) revert ZeroLiquidityFloor();
        _collaterals[token] = CollateralConfig({router: router, minLiquidity: minLiquidity});
        emit CollateralSet(token, router, minLiquidity);
    }

    /// @inheritdoc ILmsrMarketFactory
    function removeCollateral(address token) external onlyOwner {
        delete _collaterals[token];
        emit CollateralRemoved(token);
    }

    /// @inheritdoc ILmsrMarketFactory
    function setFeeSchedule(uint16 protocolFeeBps_, uint16 maxCreatorFeeBps_) external onlyOwner {
        _setFeeSchedule(protocolFeeBps_, maxCreatorFeeBps_);
    }

    /// @inheritdoc ILmsrMarketFactory
    function setCreationBond(uint256 bond) external onlyOwner {
        creationBond = bond;
        emit CreationBondSet(bond);
    }

    /// @inheritdoc ILmsrMarketFactory
    function setProtocolFeeRecipient(address recipient) external onlyOwner {
        _setProtocolFeeRecipient(recipient);
    }

    /// @dev Checks the creator's terms against the schedule and builds the market's parameters; msg.sender creates.
    function _initParams(
        address collateral,
        bytes32 questionHash,
        uint64 closeTime,
        uint32 resolutionWindow,
        uint256 liquidity,
        uint16 protocolFeeBps_,
        uint16 creatorFeeBps,
        uint256 maxBond
    ) private view returns (ILmsrMarket.InitParams memory) {
        CollateralConfig memory c = _collaterals[collateral];
        if (c.router == address(0)) revert UnsupportedCollateral(collateral);
        if (liquidity < c.minLiquidity) revert LiquidityBelowFloor(liquidity, c.minLiquidity);
        if (protocolFeeBps_ != protocolFeeBps) revert ProtocolFeeMismatch(protocolFeeBps_, protocolFeeBps);
        if (creatorFeeBps > maxCreatorFeeBps) revert CreatorFeeTooHigh(creatorFeeBps, maxCreatorFeeBps);
        if (closeTime <= block.timestamp) revert CloseTimeNotInFuture(closeTime);
        if (resolutionWindow < MIN_RESOLUTION_WINDOW || resolutionWindow > MAX_RESOLUTION_WINDOW) {
            revert ResolutionWindowOutOfRange(resolutionWindow);
        }
        uint256 bond = creationBond;
        if (bond > maxBond) revert BondAboveMax(bond, maxBond);
        return ILmsrMarket.InitParams({
            collateral: IERC20(collateral),
            router: c.router,
            creator: msg.sender,
            outcomeCount: outcomeCount,
            liquidity: liquidity,
            protocolFeeBps: protocolFeeBps_,
            creatorFeeBps: creatorFeeBps,
            protocolFeeRecipient: protocolFeeRecipient,
            questionHash: questionHash,
            closeTime: closeTime,
            resolutionWindow: resolutionWindow,
            bond: bond
        });
    }

    function _emitCreated(address market, ILmsrMarket.InitParams memory p, uint256 subsidy) private {
        emit MarketCreated(
            market,
            p.creator,
            address(p.collateral),
            p.outcomeCount,
            p.questionHash,
            p.closeTime,
            p.resolutionWindow,
            p.liquidity,
            p.bond,
            subsidy,
            p.protocolFeeBps,
            p.creatorFeeBps
        );
    }

    function _setFeeSchedule(uint16 protocolFeeBps_, uint16 maxCreatorFeeBps_) private {
        if (uint256(protocolFeeBps_) + maxCreatorFeeBps_ > MAX_TOTAL_FEE_BPS) {
            revert FeeScheduleTooHigh(protocolFeeBps_, maxCreatorFeeBps_);
        }
        protocolFeeBps = protocolFeeBps_;
        maxCreatorFeeBps = maxCreatorFeeBps_;
        emit FeeScheduleSet(protocolFeeBps_, maxCreatorFeeBps_);
    }

    function _setProtocolFeeRecipient(address recipient) private {
        if (recipient == address(0)) revert ZeroAddress();
        protocolFeeRecipient = recipient;
        emit ProtocolFeeRecipientSet(recipient);
    }

    /// @dev Salted by creator and nonce, so a creation that a reorg re-includes in the creator's order lands at the
    /// same address.
    function _salt(address creator, uint256 nonce) private pure returns (bytes32) {
        return keccak256(abi.encode(creator, nonce));
    }
}

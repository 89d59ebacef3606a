// SPDX-License-Identifier: MIT
// Sells PM for USDC at an owner-set price out of the PM this contract holds, and delivers PM bought by card off chain.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @title PmSale
/// @notice The operator's PM sale on one chain. A buyer signs an EIP-2612 permit on USDC (spender = this contract,
/// value = paymentAmount) and anyone, usually the operator's relayer, submits buyWithPermit; the USDC goes to the
/// treasury and the PM comes out of this contract's own balance (its inventory), never minted. Card purchases are paid
/// off chain and delivered by the owner with deliver, at most once per order.
/// @dev Pays out only PM and only from the inventory: a bug here can cost at most the inventory, never the treasury.
/// A standing USDC allowance to this contract can be spent by any caller on the buyer's behalf at the current price
/// (the buyer always receives the PM): buyers should grant it only by a permit for the exact payment.
contract PmSale is Ownable, Pausable {
    using SafeERC20 for IERC20;

    /// @notice A relayed purchase: paymentAmount USDC base units moved buyer → treasury, pmOut PM base units sale → buyer.
    event Purchased(address indexed buyer, uint256 paymentAmount, uint256 pmOut);
    /// @notice A card order was delivered: amount PM base units sale → to.
    event Delivered(bytes32 indexed orderId, address indexed to, uint256 amount);
    /// @notice The owner changed the price (USDC base units per whole PM).
    event PriceSet(uint256 priceUsdcPerPm);
    /// @notice The owner changed the smallest payment buyWithPermit accepts (USDC base units).
    event MinPaymentSet(uint256 minPayment);
    /// @notice The owner took amount PM base units out of the inventory.
    event InventoryWithdrawn(address indexed to, uint256 amount);

    /// @notice paymentAmount is below the minimum payment.
    error AmountBelowMinimum(uint256 paymentAmount, uint256 minPayment);
    /// @notice The payment buys pmOut PM base units at the current price: zero, or fewer than the buyer's minPmOut.
    error QuoteMismatch(uint256 pmOut, uint256 minPmOut);
    /// @notice The contract holds `available` PM base units, fewer than the `pmOut` a purchase or delivery needs.
    error InventoryShort(uint256 available, uint256 pmOut);
    /// @notice The buyer holds `balance` USDC base units, fewer than paymentAmount.
    error InsufficientPaymentBalance(uint256 balance, uint256 paymentAmount);
    /// @notice This order was delivered already.
    error AlreadyDelivered(bytes32 orderId);
    /// @notice A zero price: every quote would divide by zero.
    error InvalidPrice();
    /// @notice A zero address where a token or the treasury is required.
    error ZeroAddress();

    /// @notice The token sold (18 decimals).
    IERC20 public immutable pm;
    /// @notice The token paid (6 decimals, EIP-2612).
    IERC20 public immutable usdc;
    /// @notice Receives every payment.
    address public immutable treasury;
    /// @notice USDC base units for one whole PM (10^18 PM base units).
    uint256 public priceUsdcPerPm;
    /// @notice The smallest paymentAmount buyWithPermit accepts, USDC base units.
    uint256 public minPayment;
    /// @notice Card orders already delivered, by the order id the operator assigns (keccak256 of its session id).
    mapping(bytes32 orderId => bool) public delivered;

    /// @param owner_ The operator: sets price and minimum, pauses, delivers card orders, withdraws inventory.
    /// @param pm_ The token sold.
    /// @param usdc_ The token paid; must implement EIP-2612 permit.
    /// @param treasury_ Receives the USDC.
    /// @param priceUsdcPerPm_ USDC base units per whole PM; not zero.
    /// @param minPayment_ USDC base units; zero accepts any payment that buys at least one PM base unit.
    constructor(address owner_, IERC20 pm_, IERC20 usdc_, address treasury_, uint256 priceUsdcPerPm_, uint256 minPayment_)
        Ownable(owner_)
    {
        if (address(pm_) == address(0) || address(usdc_) == address(0) || treasury_ == address(0)) revert ZeroAddress();
        if (priceUsdcPerPm_ == 0) revert InvalidPrice();
        pm = pm_;
        usdc = usdc_;
        treasury = treasury_;
        priceUsdcPerPm = priceUsdcPerPm_;
        minPayment = minPayment_;
        emit PriceSet(priceUsdcPerPm_);
        emit MinPaymentSet(minPayment_);
    }

    /// @notice PM base units that paymentAmount USDC base units buy now: paymentAmount × 10^18 ÷ price, rounded down.
    function quote(uint256 paymentAmount) public view returns (uint256 pmOut) {
        return Math.mulDiv(paymentAmount, 1e18, priceUsdcPerPm);
    }

    /// @notice Buys PM for `buyer` with the USDC a permit lets this contract take; anyone may send it.
    /// @dev The permit is attempted and its failure ignored: someone who saw it in the mempool may have submitted it
    /// first, and the purchase must still go through. Whatever happened to it, the allowance is what counts, so a
    /// forged or stale permit ends in the token's ERC20InsufficientAllowance.
    /// @param buyer Signed the permit; pays the USDC and receives the PM.
    /// @param paymentAmount USDC base units, the permit's value.
    /// @param minPmOut The least PM base units the buyer accepts (its quote; guards against a price change).
    /// @param deadline The permit's deadline, unix seconds.
    /// @return pmOut PM base units sent to the buyer.
    function buyWithPermit(
        address buyer,
        uint256 paymentAmount,
        uint256 minPmOut,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external whenNotPaused returns (uint256 pmOut) {
        if (paymentAmount < minPayment) revert AmountBelowMinimum(paymentAmount, minPayment);
        pmOut = quote(paymentAmount);
        if (pmOut == 0 || pmOut < minPmOut) revert QuoteMismatch(pmOut, minPmOut);
        _requireInventory(pmOut);
        try IERC20Permit(address(usdc)).permit(buyer, address(this), paymentAmount, deadline, v, r, s) {} catch {}
        uint256 balance = usdc.balanceOf(buyer);
        if (balance < paymentAmount) revert InsufficientPaymentBalance(balance, paymentAmount);
        usdc.safeTransferFrom(buyer, treasury, paymentAmount);
        pm.safeTransfer(buyer, pmOut);
        emit Purchased(buyer, paymentAmount, pmOut);
    }

    /// @notice Delivers a card order paid off chain; a second delivery of the same order reverts.
    /// @param orderId The operator's id of the order (keccak256 of the payment provider's session id).
    /// @param to The buyer's wallet.
    /// @param amount PM base units.
    function deliver(bytes32 orderId, address to, uint256 amount) external onlyOwner whenNotPaused {
        if (delivered[orderId]) revert AlreadyDelivered(orderId);
        _requireInventory(amount);
        delivered[orderId] = true;
        pm.safeTransfer(to, amount);
        emit Delivered(orderId, to, amount);
    }

    /// @notice Owner only. USDC base units per whole PM; not zero. Relayed purchases signed at the old price stay
    /// bounded by their minPmOut.
    function setPrice(uint256 priceUsdcPerPm_) external onlyOwner {
        if (priceUsdcPerPm_ == 0) revert InvalidPrice();
        priceUsdcPerPm = priceUsdcPerPm_;
        emit PriceSet(priceUsdcPerPm_);
    }

    /// @notice Owner only. USDC base units.
    function setMinPayment(uint256 minPayment_) external onlyOwner {
        minPayment = minPayment_;
        emit MinPaymentSet(minPayment_);
    }

    /// @notice Owner only. Stops purchases and deliveries; withdrawInventory still works.
    function pause() external onlyOwner {
        _pause();
    }

    /// @notice Owner only.
    function unpause() external onlyOwner {
        _unpause();
    }

    /// @notice Owner only. Takes PM base units out of the inventory, paused or not.
    function withdrawInventory(address to, uint256 amount) external onlyOwner {
        pm.safeTransfer(to, amount);
        emit InventoryWithdrawn(to, amount);
    }

    function _requireInventory(uint256 amount) private view {
        uint256 available = pm.balanceOf(address(this));
        if (available < amount) revert InventoryShort(available, amount);
    }
}

// SPDX-License-Identifier: MIT
// Pays PM to members against EIP-712 vouchers from the operator's signer: cumulative per account, valid for one epoch.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title ParticipationDistributor
/// @notice Holds PM for one participation release and pays it out against vouchers the operator's signer signs. A
/// voucher states the account's cumulative entitlement, so a claim pays only the part not yet paid, and vouchers can be
/// re-issued with a higher total without ever paying twice. Anyone may submit a voucher: the member itself
/// (self_claim) or the operator's relayer (protocol_push); the money goes to the voucher's recipient either way.
/// @dev The domain is EIP712("svc ParticipationDistributor", "1") with this chain and address. A voucher names the epoch
/// it was signed for and claim checks it against the current epoch; advanceEpoch therefore voids every outstanding
/// voucher, and one of a past epoch fails as BadSignature (the digest is recomputed with the current epoch, so the
/// signature recovers to some other address). paid[] carries over across epochs.
contract ParticipationDistributor is Ownable, Pausable, EIP712 {
    using SafeERC20 for IERC20;

    /// @notice EIP-712 type of a voucher.
    bytes32 public constant DISTRIBUTION_TYPEHASH = keccak256(
        "Distribution(address account,address recipient,uint256 cumulativeAmount,bytes32 intentId,uint64 epoch,uint64 expiresAt)"
    );

    /// @notice amount PM base units went to recipient for account, whose cumulative total paid is now cumulativeAmount.
    event Distributed(
        bytes32 indexed intentId,
        address indexed account,
        address indexed recipient,
        uint256 amount,
        uint256 cumulativeAmount,
        uint64 epoch
    );
    /// @notice The epoch moved on to `epoch`; vouchers of earlier epochs no longer pay.
    event EpochAdvanced(uint64 epoch);
    /// @notice The owner replaced the voucher signer.
    event SignerSet(address indexed previousSigner, address indexed newSigner);
    /// @notice The owner took amount PM base units out of the distributor.
    event Withdrawn(address indexed to, uint256 amount);

    /// @notice block.timestamp is past the voucher's expiresAt.
    error VoucherExpired(uint64 expiresAt);
    /// @notice A voucher with this intent id already paid.
    error IntentUsed(bytes32 intentId);
    /// @notice The signature does not recover to the signer for this voucher in the current epoch (forged, altered,
    /// malformed, or signed for another epoch).
    error BadSignature();
    /// @notice The voucher's cumulative amount does not exceed what the account was already paid.
    error ZeroDelta(uint256 cumulativeAmount, uint256 alreadyPaid);
    /// @notice The distributor holds `available` PM base units, fewer than the `amount` the claim pays.
    error InventoryShort(uint256 available, uint256 amount);
    /// @notice A zero address where the token or the signer is required.
    error ZeroAddress();

    /// @notice The token paid out (PM).
    IERC20 public immutable token;
    /// @notice The participation release this distributor pays (the operator's id for it).
    bytes32 public immutable releaseId;
    /// @notice Signs vouchers.
    address public signer;
    /// @notice Vouchers must name this epoch; starts at 1.
    uint64 public epoch = 1;
    /// @notice PM base units paid per account, cumulative over all epochs.
    mapping(address account => uint256) public paid;
    /// @notice Intent ids that already paid.
    mapping(bytes32 intentId => bool) public intentUsed;

    /// @param owner_ The operator: sets the signer, advances the epoch, pauses, withdraws.
    /// @param token_ The token paid out.
    /// @param releaseId_ The release this distributor pays.
    /// @param signer_ Signs vouchers.
    constructor(address owner_, IERC20 token_, bytes32 releaseId_, address signer_)
        Ownable(owner_)
        EIP712("svc ParticipationDistributor", "1")
    {
        if (address(token_) == address(0) || signer_ == address(0)) revert ZeroAddress();
        token = token_;
        releaseId = releaseId_;
        signer = signer_;
        emit SignerSet(address(0), signer_);
    }

    /// @notice The EIP-712 digest the signer signs for a voucher (domain included), for off-chain checks.
    /// @param cumulativeAmount PM base units the account is owed in total, over all epochs.
    /// @param epoch_ The epoch the voucher is for.
    /// @param expiresAt Unix seconds; the voucher pays up to and including this second.
    function hashDistribution(
        address account,
        address recipient,
        uint256 cumulativeAmount,
        bytes32 intentId,
        uint64 epoch_,
        uint64 expiresAt
    ) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(abi.encode(DISTRIBUTION_TYPEHASH, account, recipient, cumulativeAmount, intentId, epoch_, expiresAt))
        );
    }

    /// @notice Pays recipient what the voucher adds to account's total: cumulativeAmount − paid[account].
    /// @param signature The signer's 65-byte signature over hashDistribution(..., epoch, expiresAt).
    /// @return amount PM base units transferred.
    function claim(
        address account,
        address recipient,
        uint256 cumulativeAmount,
        bytes32 intentId,
        uint64 expiresAt,
        bytes calldata signature
    ) external whenNotPaused returns (uint256 amount) {
        if (block.timestamp > expiresAt) revert VoucherExpired(expiresAt);
        if (intentUsed[intentId]) revert IntentUsed(intentId);
        bytes32 digest = hashDistribution(account, recipient, cumulativeAmount, intentId, epoch, expiresAt);
        if (!_signedBySigner(digest, signature)) revert BadSignature();
        amount = _delta(account, cumulativeAmount);
        paid[account] = cumulativeAmount;
        intentUsed[intentId] = true;
        token.safeTransfer(recipient, amount);
        emit Distributed(intentId, account, recipient, amount, cumulativeAmount, epoch);
    }

    /// @dev tryRecover: a malformed signature is a BadSignature like any other, and a failed recovery (address zero)
    /// can never match, since the signer is never zero.
    function _signedBySigner(bytes32 digest, bytes calldata signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        return err == ECDSA.RecoverError.NoError && recovered == signer;
    }

    /// @dev What a voucher for cumulativeAmount pays account now, checked against the inventory.
    function _delta(address account, uint256 cumulativeAmount) private view returns (uint256 amount) {
        uint256 alreadyPaid = paid[account];
        if (cumulativeAmount <= alreadyPaid) revert ZeroDelta(cumulativeAmount, alreadyPaid);
        amount = cumulativeAmount - alreadyPaid;
        uint256 available = token.balanceOf(address(this));
        if (available < amount) revert InventoryShort(available, amount);
    }

    /// @notice Owner only. Vouchers already signed by the old signer stop paying.
    function setSigner(address signer_) external onlyOwner {
        if (signer_ == address(0)) revert ZeroAddress();
        emit SignerSet(signer, signer_);
        signer = signer_;
    }

    /// @notice Owner only. Voids every outstanding voucher; paid[] is kept.
    function advanceEpoch() external onlyOwner {
        uint64 next = epoch + 1;
        epoch = next;
        emit EpochAdvanced(next);
    }

    /// @notice Owner only.
    function pause() external onlyOwner {
        _pause();
    }

    /// @notice Owner only.
    function unpause() external onlyOwner {
        _unpause();
    }

    /// @notice Owner only. Takes PM base units out, paused or not.
    function withdraw(address to, uint256 amount) external onlyOwner {
        token.safeTransfer(to, amount);
        emit Withdrawn(to, amount);
    }
}

// SPDX-License-Identifier: MIT
// The on-chain anchor of the play-money ledger: batch numbers, the balance root, and the events to replay it.
pragma solidity ^0.8.24;

import {ILedgerCommitment} from "./interfaces/ILedgerCommitment.sol";

/// @title LedgerCommitment
/// @notice See ILedgerCommitment. Stores three words (nonce, root, journal commitment) and no balances: a batch
/// costs the same whatever the ledger's size, and anyone can check a root by replaying the events.
contract LedgerCommitment is ILedgerCommitment {
    uint256 private constant COLLATERAL = 0;
    uint256 private constant BPS = 10_000;
    /// @dev A share pays 1_000_000 base units, so one basis point of a share is 100 base units.
    uint256 private constant BASE_UNITS_PER_BPS = 100;
    uint8 private constant TRANSFER = 0;
    uint8 private constant MINT = 1;
    uint8 private constant MERGE = 2;
    uint8 private constant TAKER_SELLS = 3;

    /// @inheritdoc ILedgerCommitment
    address public immutable operator;
    /// @inheritdoc ILedgerCommitment
    uint64 public batchNonce;
    /// @inheritdoc ILedgerCommitment
    bytes32 public ledgerRoot;
    /// @inheritdoc ILedgerCommitment
    bytes32 public journalCommitment;

    /// @param operator_ The only committer and the fee account. A zero operator leaves the contract unusable.
    constructor(address operator_) {
        operator = operator_;
    }

    /// @inheritdoc ILedgerCommitment
    function commitBatch(
        uint64 expectedNonce,
        bytes32 prevRoot,
        bytes32 newRoot,
        Match[] calldata matches,
        Credit[] calldata credits,
        bool emitEvents
    ) external {
        _advance(expectedNonce, prevRoot, newRoot);
        uint256 matchCount = matches.length;
        uint256 creditCount = credits.length;
        for (uint256 i; i < matchCount; ++i) {
            Match calldata m = matches[i];
            if (!_isValid(m)) revert InvalidMatch(i);
            if (emitEvents) _emitMatch(m);
        }
        for (uint256 i; i < creditCount; ++i) {
            Credit calldata c = credits[i];
            if (c.account == address(0)) revert InvalidCredit(i);
            if (emitEvents) {
                if (c.delta > 0) _move(address(0), c.account, c.id, uint256(int256(c.delta)));
                else _move(c.account, address(0), c.id, uint256(-int256(c.delta)));
            }
        }
        // Calldata of 2^32 structs would cost far more gas than a block holds, so the casts cannot truncate.
        emit BatchCommitted(expectedNonce, newRoot, uint32(matchCount), uint32(creditCount), emitEvents);
    }

    /// @inheritdoc ILedgerCommitment
    function commitJournalBatch(
        uint64 expectedNonce,
        bytes32 prevRoot,
        bytes32 newRoot,
        bytes32 prevJournalCommitment,
        bytes32 payloadHash,
        bytes calldata payload
    ) external {
        _advance(expectedNonce, prevRoot, newRoot);
        if (prevJournalCommitment != journalCommitment) {
            revert WrongJournalCommitment(journalCommitment, prevJournalCommitment);
        }
        bytes32 computed = keccak256(payload);
        if (computed != payloadHash) revert PayloadHashMismatch(computed, payloadHash);
        bytes32 commitment = keccak256(abi.encodePacked(prevJournalCommitment, expectedNonce, payloadHash));
        journalCommitment = commitment;
        emit JournalBatchCommitted(expectedNonce, newRoot, commitment, payloadHash, payload);
    }

    /// @dev The checks and state change both modes share. Writing before the mode's own checks is safe: any later
    /// revert undoes it.
    function _advance(uint64 expectedNonce, bytes32 prevRoot, bytes32 newRoot) private {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        uint64 expected = batchNonce + 1;
        if (expectedNonce != expected) revert WrongNonce(expected, expectedNonce);
        if (prevRoot != ledgerRoot) revert WrongPrevRoot(ledgerRoot, prevRoot);
        batchNonce = expectedNonce;
        ledgerRoot = newRoot;
    }

    function _isValid(Match calldata m) private pure returns (bool) {
        return m.kind <= TAKER_SELLS && m.side <= 1 && m.marketId >= 1 && m.priceBps >= 1 && m.priceBps < BPS
            && m.shares > 0 && m.maker != m.taker && m.maker != address(0) && m.taker != address(0);
    }

    /// @dev The movements of one valid match, in the order ILedgerCommitment.commitBatch documents.
    function _emitMatch(Match calldata m) private {
        uint256 own = (uint256(m.marketId) << 8) | m.side;
        uint256 other = (uint256(m.marketId) << 8) | (1 - m.side);
        uint256 shares = m.shares;
        uint256 makerCost = shares * m.priceBps * BASE_UNITS_PER_BPS;
        if (m.kind == TRANSFER) {
            _move(m.maker, m.taker, own, shares);
            _move(m.taker, m.maker, COLLATERAL, makerCost);
        } else if (m.kind == TAKER_SELLS) {
            _move(m.taker, m.maker, own, shares);
            _move(m.maker, m.taker, COLLATERAL, makerCost);
        } else {
            uint256 takerCost = shares * (BPS - m.priceBps) * BASE_UNITS_PER_BPS;
            if (m.kind == MINT) {
                _move(m.maker, address(0), COLLATERAL, makerCost);
                _move(m.taker, address(0), COLLATERAL, takerCost);
                _move(address(0), m.maker, own, shares);
                _move(address(0), m.taker, other, shares);
            } else {
                _move(m.maker, address(0), own, shares);
                _move(m.taker, address(0), other, shares);
                _move(address(0), m.maker, COLLATERAL, makerCost);
                _move(address(0), m.taker, COLLATERAL, takerCost);
            }
        }
        _move(m.taker, operator, COLLATERAL, m.fee);
    }

    /// @dev Zero-value movements change no balance, so they are not emitted.
    function _move(address from, address to, uint256 id, uint256 value) private {
        if (value != 0) emit TransferSingle(msg.sender, from, to, id, value);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ILedgerCommitment
/// @notice Commits the play-money ledger to chain in numbered batches: each batch names the Merkle root of every
/// non-zero (account, asset) balance after it. The contract keeps no balances; the root is the truth, and the
/// events let anyone replay the ledger and recompute it.
/// @dev Assets: id 0 is the play-money collateral (base units, 6 decimals); id (marketId << 8) | side is one outcome
/// of one binary market (marketId >= 1, side 0 or 1). The zero address is the supply account: its balance is the
/// negative of everyone else's, so every asset sums to zero. Two modes share one nonce sequence and one root:
/// commitBatch (legacy: the operations travel as structs and, on request, as ERC-1155 transfer events) and
/// commitJournalBatch (the complete operations travel as one opaque payload, chained by journalCommitment).
interface ILedgerCommitment {
    /// @notice One fill between two accounts on one binary market.
    /// @param maker The resting side of the fill.
    /// @param taker The incoming side; pays the fee.
    /// @param marketId >= 1.
    /// @param side The outcome the maker trades, 0 or 1.
    /// @param kind 0 TRANSFER (maker sells `side` to taker), 1 MINT (maker buys `side`, taker buys the other side),
    /// 2 MERGE (maker sells `side`, taker sells the other side), 3 TAKER_SELLS (taker sells `side` to maker).
    /// @param shares Whole shares, > 0; one share pays 1_000_000 collateral base units if its side wins.
    /// @param priceBps The maker's price of `side`, 1..9999 basis points of a share; the other side is 10000 - price.
    /// @param fee Collateral base units the taker pays to the fee account (the operator); may be 0.
    struct Match {
        address maker;
        address taker;
        uint64 marketId;
        uint8 side;
        uint8 kind;
        uint128 shares;
        uint32 priceBps;
        uint128 fee;
    }

    /// @notice Moves `delta` of asset `id` between `account` and the supply account (negative: a debit).
    /// @param account Not the zero address.
    /// @param id The asset id.
    /// @param delta Base units (collateral) or shares (outcome); 0 moves nothing.
    /// @param reason Why (1 signup grant, 2 fill pack, 3 payout, 4 adjustment); recorded, not interpreted.
    struct Credit {
        address account;
        uint256 id;
        int128 delta;
        uint8 reason;
    }

    /// @notice A legacy batch was accepted.
    /// @param nonce The batch number, now batchNonce().
    /// @param newRoot The ledger root after the batch, now ledgerRoot().
    /// @param matchCount How many matches the batch carried.
    /// @param creditCount How many credits the batch carried.
    /// @param eventsEmitted Whether the batch's movements were emitted as TransferSingle events.
    event BatchCommitted(
        uint64 indexed nonce, bytes32 indexed newRoot, uint32 matchCount, uint32 creditCount, bool eventsEmitted
    );

    /// @notice A journal batch was accepted.
    /// @param nonce The batch number, now batchNonce().
    /// @param newRoot The ledger root after the batch, now ledgerRoot().
    /// @param journalCommitment The chained commitment after the batch, now journalCommitment().
    /// @param payloadHash keccak256(payload).
    /// @param payload The complete encoded operations of the batch.
    event JournalBatchCommitted(
        uint64 indexed nonce,
        bytes32 indexed newRoot,
        bytes32 indexed journalCommitment,
        bytes32 payloadHash,
        bytes payload
    );

    /// @notice One balance movement of a legacy batch, in the ERC-1155 shape: `value` of asset `id` leaves `from`
    /// and reaches `to`. The zero address is the supply account; the fee account is the operator.
    /// @param operator The committing operator (msg.sender).
    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );

    /// @notice Several movements between the same two accounts, in the ERC-1155 shape. Declared for replayers,
    /// which must handle it; this implementation's legacy rules emit one TransferSingle per movement and never
    /// emit TransferBatch.
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );

    /// @notice A commit came from an address that is not the operator.
    error NotOperator(address caller);
    /// @notice expectedNonce is not batchNonce() + 1.
    /// @param expected batchNonce() + 1.
    error WrongNonce(uint64 expected, uint64 given);
    /// @notice prevRoot is not ledgerRoot(): the batch was built on another state.
    error WrongPrevRoot(bytes32 current, bytes32 given);
    /// @notice prevJournalCommitment is not journalCommitment(): the journal batch does not extend this chain.
    error WrongJournalCommitment(bytes32 current, bytes32 given);
    /// @notice payloadHash is not keccak256(payload).
    error PayloadHashMismatch(bytes32 computed, bytes32 given);
    /// @notice matches[index] breaks a rule: kind <= 2, side <= 1, marketId >= 1, 1 <= priceBps <= 9999,
    /// shares > 0, maker != taker, neither is the zero address.
    error InvalidMatch(uint256 index);
    /// @notice credits[index] names the zero address as its account.
    error InvalidCredit(uint256 index);

    /// @notice Operator only. Accepts batch expectedNonce built on prevRoot and sets the root to newRoot.
    /// @dev Checks, in order: caller, nonce, prevRoot, then every match and credit (always, whatever emitEvents).
    /// With emitEvents, emits one TransferSingle per movement with value > 0, matches first then credits, each in
    /// array order. cost(p) = shares * p * 100 collateral base units; own = (marketId << 8) | side,
    /// other = (marketId << 8) | (1 - side):
    /// TRANSFER: own maker->taker shares; collateral taker->maker cost(price); collateral taker->operator fee.
    /// TAKER_SELLS: own taker->maker shares; collateral maker->taker cost(price); collateral taker->operator fee.
    /// MINT: collateral maker->0 cost(price); collateral taker->0 cost(10000 - price); own 0->maker shares;
    /// other 0->taker shares; collateral taker->operator fee.
    /// MERGE: own maker->0 shares; other taker->0 shares; collateral 0->maker cost(price);
    /// collateral 0->taker cost(10000 - price); collateral taker->operator fee.
    /// Credit: delta > 0: id 0->account delta; delta < 0: id account->0 -delta.
    /// Then emits BatchCommitted. journalCommitment() is left unchanged.
    /// @param expectedNonce Must be batchNonce() + 1.
    /// @param prevRoot Must be ledgerRoot().
    /// @param newRoot The root after applying the batch.
    /// @param emitEvents Whether to emit the TransferSingle events (replayable) or only BatchCommitted (cheaper).
    function commitBatch(
        uint64 expectedNonce,
        bytes32 prevRoot,
        bytes32 newRoot,
        Match[] calldata matches,
        Credit[] calldata credits,
        bool emitEvents
    ) external;

    /// @notice Operator only. Accepts batch expectedNonce built on prevRoot, sets the root to newRoot and extends
    /// the journal chain: journalCommitment = keccak256(abi.encodePacked(prevJournalCommitment,
    /// uint64 expectedNonce, payloadHash)), i.e. keccak256 of 72 bytes (32 + 8 big-endian + 32), starting from
    /// bytes32(0). Emits JournalBatchCommitted with the payload.
    /// @dev Checks, in order: caller, nonce, prevRoot, prevJournalCommitment, payloadHash. The payload is not
    /// parsed on chain.
    /// @param expectedNonce Must be batchNonce() + 1.
    /// @param prevRoot Must be ledgerRoot().
    /// @param newRoot The root after applying the payload's operations.
    /// @param prevJournalCommitment Must be journalCommitment().
    /// @param payloadHash Must be keccak256(payload).
    /// @param payload The complete encoded operations of the batch.
    function commitJournalBatch(
        uint64 expectedNonce,
        bytes32 prevRoot,
        bytes32 newRoot,
        bytes32 prevJournalCommitment,
        bytes32 payloadHash,
        bytes calldata payload
    ) external;

    /// @notice The last accepted batch number, of either mode; 0 before any.
    function batchNonce() external view returns (uint64);

    /// @notice The root of the last accepted batch; bytes32(0) (the empty root) before any.
    function ledgerRoot() external view returns (bytes32);

    /// @notice The only address that may commit; also the fee account.
    function operator() external view returns (address);

    /// @notice The chained commitment of every journal batch so far; bytes32(0) before the first.
    function journalCommitment() external view returns (bytes32);
}

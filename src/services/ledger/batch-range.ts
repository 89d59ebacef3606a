/**
 * Which ledger batch holds an operation (docs/ledger.md "Batcher"). A batch is the range of seqs it took, first_seq to
 * last_seq, and it takes a prefix of what waits (operations commit in seq order: batcher.ts `due`), so the batches
 * cover the operations in seq order without gaps or overlaps: the operations waiting are those after the last batch's
 * last_seq, and an operation's batch is the first one that ends at or after its seq. Nothing is written on an
 * operation when its batch closes (each update was a row lock, a new row version and two index entries per operation:
 * 4-15 % of the write-ahead log an order cost, the more when a checkpoint had passed since the page was written;
 * docs/orderbook.md, session 28).
 */
import { sql, type Expression, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

type Db = Kysely<DB> | Transaction<DB>;

/** The last seq a batch holds (0 before the first batch): every operation after it waits. */
export const lastBatchedSeq = (): RawBuilder<string> => sql<string>`(SELECT coalesce(max(last_seq), 0) FROM ledger_batches)`;

/** The operations no batch holds yet, oldest first. */
export function waitingOperations(db: Db) {
  return db.selectFrom('ledger_operations').where('seq', '>', lastBatchedSeq()).orderBy('seq');
}

/**
 * The batch holding the operation of `seq` (a column or value): for a lateral join, as `b` with its nonce and status
 * (no row while the operation waits). Read from the unique index of the batches' last seqs, one probe per operation.
 */
export function batchHolding(db: Db, seq: Expression<unknown>) {
  return db
    .selectFrom('ledger_batches as lb')
    .select(['lb.nonce', 'lb.status'])
    .where('lb.last_seq', '>=', seq as Expression<string>)
    .where('lb.first_seq', '<=', seq as Expression<string>)
    .orderBy('lb.last_seq')
    .limit(1)
    .as('b');
}

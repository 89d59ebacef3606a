/**
 * Writing to the play-money ledger: operations are checked against the balances after every accepted
 * operation (no user balance may go negative), appended once, and left for the batcher to commit on
 * chain. All ledger writes take one transaction-level lock, so two writers never check against the
 * same balances. docs/ledger.md.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { LedgerBalances } from '../../core/ledger/engine.ts';
import type { Account, BalanceEntry, LedgerOperation } from '../../core/ledger/types.ts';
import type { DB } from '../../db/schema.ts';
import { balanceKeysOf, opToRow, readBalances, upsertBalances } from './rows.ts';

/** Lock key of every ledger write and batch close (pg_advisory_xact_lock). */
export const LEDGER_WRITE_LOCK = 0x1ed9e7;

export interface SubmitResult {
  /** Sequence numbers of the operations written (or already written under the same source). */
  seqs: string[];
  /** False when `source` had been written before: nothing new was appended. */
  appended: boolean;
}

export interface LedgerService {
  /** The account fees are paid to: the ledger contract's operator. */
  readonly feeAccount: Account;
  /**
   * Appends operations as one unit (all accepted or LEDGER_INSUFFICIENT_BALANCE /
   * INVALID_LEDGER_OPERATION and nothing written). With `source`, at most once per source.
   * Pass `trx` to write inside the caller's transaction.
   */
  submit(ops: readonly LedgerOperation[], opts?: { source?: string; trx?: Transaction<DB> }): Promise<SubmitResult>;
  /** Current (accepted, possibly uncommitted) balances of one account. */
  balancesOf(account: Account): Promise<BalanceEntry[]>;
}

export function createLedgerService(deps: { db: Kysely<DB>; clock: Clock; feeAccount: Account }): LedgerService {
  const { db, clock, feeAccount } = deps;

  const write = async (trx: Transaction<DB>, ops: readonly LedgerOperation[], source: string | undefined): Promise<SubmitResult> => {
    await sql`SELECT pg_advisory_xact_lock(${LEDGER_WRITE_LOCK})`.execute(trx);
    if (source !== undefined) {
      const existing = await trx.selectFrom('ledger_operations').select('seq').where('source', 'like', `${source.replace(/[\\%_]/g, '\\$&')}#%`).orderBy('seq').execute();
      if (existing.length > 0) return { seqs: existing.map((r) => String(r.seq)), appended: false };
    }
    const keys = ops.flatMap((op) => balanceKeysOf(op, feeAccount));
    const ledger = new LedgerBalances(await readBalances(trx, 'ledger_balances', keys));
    const touched = new Map<string, BalanceEntry>();
    for (const op of ops) for (const e of ledger.apply(op, feeAccount)) touched.set(`${e.account}:${e.assetId}`, e);
    const rows = await trx
      .insertInto('ledger_operations')
      .values(ops.map((op, i) => ({ ...opToRow(op), source: source === undefined ? null : `${source}#${i}`, created_at: clock.now() })))
      .returning('seq')
      .execute();
    await upsertBalances(trx, 'ledger_balances', [...touched.values()]);
    return { seqs: rows.map((r) => String(r.seq)), appended: true };
  };

  return {
    feeAccount,
    submit: (ops, opts = {}) => (opts.trx ? write(opts.trx, ops, opts.source) : db.transaction().execute((trx) => write(trx, ops, opts.source))),
    balancesOf: async (account) =>
      (await db.selectFrom('ledger_balances').selectAll().where('account', '=', account.toLowerCase()).execute()).map((r) => ({
        account: r.account as Account,
        assetId: BigInt(r.asset_id),
        balance: BigInt(r.balance),
      })),
  };
}

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
import { runStep, runSteps, type Step } from '../../db/pipeline.ts';
import { takeNumbers } from '../../db/sequences.ts';
import { unnestRows, type Cell } from '../../db/unnest.ts';
import { balanceKey, balanceKeysOfAll, balancesStep, opToRow, writeBalanceSteps } from './rows.ts';

/** Lock key of every ledger write (pg_advisory_xact_lock), held from reserving its seqs to its commit: operations commit in seq order. */
const LEDGER_WRITE_LOCK = 0x1ed9e7;

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
  /**
   * `submit` inside the caller's transaction in two pipelines of steps, for a caller that sends other statements with
   * them: `reads` (the ledger lock, then the balances the operations touch and the operations' sequence numbers,
   * reserved), then `writes` of what they answered (the operations checked in order and appended under those numbers;
   * the balances). The caller knows every seq after the reads, before anything is written. No `source`.
   */
  appending(trx: Transaction<DB>, ops: readonly LedgerOperation[]): LedgerAppend;
  /** Current (accepted, possibly uncommitted) balances of one account. */
  balancesOf(account: Account): Promise<BalanceEntry[]>;
}

export interface LedgerAppend {
  /** The ledger lock; the balances read after it; a seq for each operation, in their order (null: no operation). */
  reads: readonly [Step<void>, Step<BalanceEntry[]> | null, Step<string[]> | null];
  /**
   * Checks the operations against `balances` (LEDGER_INSUFFICIENT_BALANCE: nothing is written); their writes: the
   * operations under `seqs` (the reads' third answer), then the balances.
   */
  writes(balances: readonly BalanceEntry[], seqs: readonly string[]): Step<void>[];
}

/**
 * Seqs for `n` operations, in order, from the ledger_operations.seq column's sequence (null: none). Taken under the
 * ledger lock, which every ledger writer holds until it commits, so the operations still commit in seq order (the
 * batcher closes them in that order, docs/ledger.md). A rolled-back writer leaves a gap, as a failed insert always did.
 */
function reserveSeqs(n: number): Step<string[]> | null {
  return n === 0 ? null : takeNumbers('ledger_operations.seq', n);
}

export function createLedgerService(deps: { db: Kysely<DB>; clock: Clock; feeAccount: Account }): LedgerService {
  const { db, clock, feeAccount } = deps;

  const appending = (trx: Transaction<DB>, ops: readonly LedgerOperation[], source?: string): LedgerAppend => ({
    reads: [
      { query: sql`SELECT pg_advisory_xact_lock(${LEDGER_WRITE_LOCK})`.compile(trx), read: () => undefined },
      balancesStep('ledger_balances', balanceKeysOfAll(ops, feeAccount)),
      reserveSeqs(ops.length),
    ],
    writes: (balances, seqs) => {
      if (seqs.length !== ops.length) throw new Error(`ledger: ${ops.length} operation(s) and ${seqs.length} seq(s)`);
      const ledger = new LedgerBalances(balances);
      const touched = new Map<string, BalanceEntry>();
      for (const op of ops) for (const e of ledger.apply(op, feeAccount)) touched.set(`${e.account}:${e.assetId}`, e);
      const now = clock.now();
      const cells = ops.map((op, i): Cell[] => {
        const row = opToRow(op);
        return [seqs[i]!, row.kind, row.op, source === undefined ? null : `${source}#${i}`, now];
      });
      const query = sql`INSERT INTO ledger_operations (seq, kind, op, source, created_at) OVERRIDING SYSTEM VALUE
        SELECT u.seq::bigint, u.kind, u.op::json, u.source, u.created_at::timestamptz FROM ${unnestRows('u', ['seq', 'kind', 'op', 'source', 'created_at'], cells)}`.compile(trx);
      // The balances read above, under the ledger lock, are the rows there are: updated in place, the rest inserted.
      const stored = new Set(balances.map(balanceKey));
      return [{ query, read: () => undefined }, ...writeBalanceSteps(trx, 'ledger_balances', [...touched.values()], stored)];
    },
  });

  const write = async (trx: Transaction<DB>, ops: readonly LedgerOperation[], source: string | undefined): Promise<SubmitResult> => {
    const { reads, writes } = appending(trx, ops, source);
    await runStep(trx, reads[0]);
    if (source !== undefined) {
      const existing = await trx.selectFrom('ledger_operations').select('seq').where('source', 'like', `${source.replace(/[\\%_]/g, '\\$&')}#%`).orderBy('seq').execute();
      if (existing.length > 0) return { seqs: existing.map((r) => String(r.seq)), appended: false };
    }
    const [balances, seqs] = await runSteps(trx, [reads[1], reads[2]] as const);
    await runSteps(trx, writes(balances ?? [], seqs ?? []));
    return { seqs: seqs ?? [], appended: true };
  };

  return {
    feeAccount,
    appending: (trx, ops) => appending(trx, ops),
    submit: (ops, opts = {}) => (opts.trx ? write(opts.trx, ops, opts.source) : db.transaction().execute((trx) => write(trx, ops, opts.source))),
    balancesOf: async (account) =>
      (await db.selectFrom('ledger_balances').selectAll().where('account', '=', account.toLowerCase()).execute()).map((r) => ({
        account: r.account as Account,
        assetId: BigInt(r.asset_id),
        balance: BigInt(r.balance),
      })),
  };
}

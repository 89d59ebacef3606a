// Ledger rows: operations as json (bigints as decimal strings) and balance tables read and written by key.
import { sql, type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { fixedStatement } from '../../db/statement.ts';
import { movementsOf } from '../../core/ledger/engine.ts';
import type { Account, BalanceEntry, LedgerOperation } from '../../core/ledger/types.ts';
import { runStep, type Step } from '../../db/pipeline.ts';
import { unnestRows } from '../../db/unnest.ts';
import type { DB } from '../../db/schema.ts';

type Db = Kysely<DB> | Transaction<DB>;
export type BalanceTable = 'ledger_balances' | 'ledger_committed_balances';

export function opToRow(op: LedgerOperation): { kind: 'credit' | 'match'; op: string } {
  const body =
    op.type === 'credit'
      ? { ...op.credit, id: op.credit.id.toString(), delta: op.credit.delta.toString() }
      : { ...op.match, marketId: op.match.marketId.toString(), shares: op.match.shares.toString(), fee: op.match.fee.toString() };
  return { kind: op.type, op: JSON.stringify(body) };
}

export function rowToOp(row: { kind: 'credit' | 'match'; op: unknown }): LedgerOperation {
  const o = (typeof row.op === 'string' ? JSON.parse(row.op) : row.op) as Record<string, string | number>;
  if (row.kind === 'credit') {
    return { type: 'credit', credit: { account: o.account as Account, id: BigInt(o.id!), delta: BigInt(o.delta!), reason: Number(o.reason) as never } };
  }
  return {
    type: 'match',
    match: {
      maker: o.maker as Account,
      taker: o.taker as Account,
      marketId: BigInt(o.marketId!),
      side: Number(o.side) as 0 | 1,
      kind: Number(o.kind) as never,
      shares: BigInt(o.shares!),
      priceBps: Number(o.priceBps),
      fee: BigInt(o.fee!),
    },
  };
}

type BalanceKey = { account: Account; assetId: bigint };

/** Each key once, in the order first seen (by account, then asset id: no key is made as a string). */
export function uniqueBalanceKeys(keys: Iterable<BalanceKey>): BalanceKey[] {
  const seen = new Map<Account, Set<bigint>>();
  const out: BalanceKey[] = [];
  for (const k of keys) {
    let own = seen.get(k.account);
    if (!own) seen.set(k.account, (own = new Set()));
    if (own.has(k.assetId)) continue;
    own.add(k.assetId);
    out.push(k);
  }
  return out;
}

/** The keys of the balances `ops` touch (each movement's sender and receiver), each once, in the order first touched. */
export function balanceKeysOfAll(ops: readonly LedgerOperation[], feeAccount: Account): BalanceKey[] {
  const keys: BalanceKey[] = [];
  for (const op of ops) for (const m of movementsOf(op, feeAccount)) keys.push({ account: m.from, assetId: m.id }, { account: m.to, assetId: m.id });
  return uniqueBalanceKeys(keys);
}

/** The stored balances of the given keys (missing keys are zero and not returned). */
export async function readBalances(db: Db, table: BalanceTable, keys: readonly BalanceKey[]): Promise<BalanceEntry[]> {
  const step = balancesStep(table, keys);
  return step ? runStep(db, step) : [];
}

const BALANCES_OF = Object.fromEntries(
  (['ledger_balances', 'ledger_committed_balances'] as const).map((table) => [
    table,
    fixedStatement(`SELECT b.account, b.asset_id::text AS asset_id, b.balance::text AS balance
      FROM unnest($1::text[], $2::numeric[]) AS k (account, asset_id)
      CROSS JOIN LATERAL (SELECT account, asset_id, balance FROM ${table} WHERE account = k.account AND asset_id = k.asset_id LIMIT 1) AS b`),
  ]),
) as Record<BalanceTable, (accounts: string[], assets: string[]) => CompiledQuery>;

/** The statement reading those balances (null: no key). */
export function balancesStep(table: BalanceTable, keys: readonly BalanceKey[]): Step<BalanceEntry[]> | null {
  const unique = uniqueBalanceKeys(keys);
  if (unique.length === 0) return null;
  // One index probe per key, the keys from two arrays (an OR of pairs costs the planner more than the reads;
  // bench/orderbook-http.ts). A plain join was planned as a hash join over the whole table while it was small: every
  // placement round read all of ledger_balances (~850 rows in the order bench) for its ~20 keys. The LIMIT keeps the
  // lateral read a probe of the key's row, whatever the table's size.
  const query = BALANCES_OF[table](unique.map((k) => k.account), unique.map((k) => k.assetId.toString()));
  return {
    query,
    read: ({ rows }) => (rows as { account: string; asset_id: string; balance: string }[]).map((r) => ({ account: r.account as Account, assetId: BigInt(r.asset_id), balance: BigInt(r.balance) })),
  };
}

/** The key of a balance row in `stored` (writeBalanceSteps). */
export const balanceKey = (e: { account: Account; assetId: bigint }): string => `${e.account}:${e.assetId}`;

/** Rows at most in one statement. */
const BALANCES_PER_STATEMENT = 500;

/**
 * The statements writing absolute balances (a zero balance deletes its row), in groups of 500 rows.
 *
 * `stored`: the keys (balanceKey) of the rows the caller read under the lock that every writer of `table` holds (the
 * ledger lock; the batcher, the only writer of the committed balances), so no row comes or goes meanwhile. Those rows
 * are updated in place and the others inserted, not upserted: an upsert locks its row before it updates it (a second
 * write of the row's page and a record more in the write-ahead log, ~2 a placement), and inserts a missing row by a
 * speculative insertion (one more). An update that finds fewer rows than it was given fails the transaction, as does
 * an insert of a row that is there.
 */
export function writeBalanceSteps(db: Db, table: BalanceTable, entries: readonly BalanceEntry[], stored: ReadonlySet<string>): Step<void>[] {
  const zero = entries.filter((e) => e.balance === 0n && stored.has(balanceKey(e)));
  const set = entries.filter((e) => e.balance !== 0n);
  const steps: Step<void>[] = [];
  const chunks = (rows: readonly BalanceEntry[]) => {
    const out: (string | bigint)[][][] = [];
    for (let i = 0; i < rows.length; i += BALANCES_PER_STATEMENT) out.push(rows.slice(i, i + BALANCES_PER_STATEMENT).map((e) => [e.account, e.assetId, e.balance]));
    return out;
  };
  const columns = ['account', 'asset_id', 'balance'];
  for (const cells of chunks(set.filter((e) => stored.has(balanceKey(e))))) {
    const query = sql`UPDATE ${sql.table(table)} AS b SET balance = u.balance::numeric FROM ${unnestRows('u', columns, cells)}
      WHERE b.account = u.account AND b.asset_id = u.asset_id::numeric RETURNING b.account`.compile(db);
    steps.push({
      query,
      read: ({ rows }) => {
        if (rows.length !== cells.length) throw new Error(`ledger: ${cells.length - rows.length} of ${cells.length} balance row(s) read under the ledger lock are gone from ${table}`);
      },
    });
  }
  for (const cells of chunks(set.filter((e) => !stored.has(balanceKey(e))))) {
    const query = sql`INSERT INTO ${sql.table(table)} (account, asset_id, balance)
      SELECT u.account, u.asset_id::numeric, u.balance::numeric FROM ${unnestRows('u', columns, cells)}`.compile(db);
    steps.push({ query, read: () => undefined });
  }
  if (zero.length > 0) {
    const query = sql`DELETE FROM ${sql.table(table)} AS b USING unnest(${zero.map((e) => e.account)}::text[], ${zero.map((e) => e.assetId.toString())}::numeric[]) AS k (account, asset_id)
      WHERE b.account = k.account AND b.asset_id = k.asset_id`.compile(db);
    steps.push({ query, read: () => undefined });
  }
  return steps;
}

/** Every stored balance of a table (the supply account included). */
export async function allBalances(db: Db, table: BalanceTable): Promise<BalanceEntry[]> {
  return (await db.selectFrom(table).selectAll().execute()).map((r) => ({ account: r.account as Account, assetId: BigInt(r.asset_id), balance: BigInt(r.balance) }));
}

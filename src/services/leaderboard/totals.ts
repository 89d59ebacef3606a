/**
 * Recomputes the trader-board rows (leaderboard_totals) of some wallets after their days or positions changed, inside
 * the caller's transaction (docs/leaderboard.md "Maintenance"). 7d and 30d rows are rebuilt from the wallet's day
 * rows of the last 30 days (at most 30 per category: bounded); the all-time row folds the new days into its running
 * curve (src/core/leaderboard/curve.ts) and is rebuilt from every day row only when a day arrives out of order or is
 * taken back. Unrealized P&L is the sum of the wallet's marked positions. Rows are written in key order.
 *
 * A fold leaves what it changed in leaderboard_pending (addPending) instead of refreshing the totals itself; the
 * updater's totals step (refreshPendingTotals) takes them a few wallets at a time. Every refresh takes the rows of its
 * wallets from there first: a rebuild from the day rows (which hold them already) drops them, any other adds them.
 */
import { sql, type Transaction } from 'kysely';
import { ALL_CATEGORIES, epochDay, LONGEST_WINDOW_DAYS, windowOf, type LeaderboardPeriod } from '../../core/leaderboard/boards.ts';
import { curveOf, drawdownOf, foldDay, riskAdjusted, type CurveState } from '../../core/leaderboard/curve.ts';
import type { DB } from '../../db/schema.ts';
import { unnestRows, type Cell } from '../../db/unnest.ts';
import type { LeaderboardDeps } from './deps.ts';
import { preferIndexes } from './plan.ts';

/** What a fold added to one wallet's day row (USD micro, legs). */
export interface DayDelta {
  wallet: string;
  category: string;
  day: number;
  realized: bigint;
  volume: bigint;
  trades: number;
}

interface DayRow {
  wallet: string;
  day: number;
  category: string;
  realized: bigint;
  volume: bigint;
  trades: number;
}

interface TotalsRow {
  wallet: string;
  period: LeaderboardPeriod;
  category: string;
  realized: bigint;
  unrealized: bigint;
  volume: bigint;
  trades: number;
  curve: CurveState;
}

/** How much a wallet's unrealized P&L moved in a category, keyed `${wallet}:${category}` (USD micro). */
export type UnrealizedMoves = ReadonlyMap<string, bigint>;

/** The day of a pending row that holds a change of unrealized P&L only. */
const UNREALIZED_ONLY = -1;

/** Leaves a fold's day changes and mark moves for the totals step, summed per wallet, category and day. */
export async function addPending(trx: Transaction<DB>, deltas: readonly DayDelta[], moves: UnrealizedMoves): Promise<void> {
  const rows = new Map<string, Cell[]>();
  for (const d of deltas) rows.set(`${d.wallet}:${d.category}:${d.day}`, [d.wallet, d.category, d.day, d.realized, d.volume, d.trades, 0n]);
  for (const [key, delta] of moves) {
    const [wallet, category] = key.split(':') as [string, string];
    rows.set(`${wallet}:${category}:${UNREALIZED_ONLY}`, [wallet, category, UNREALIZED_ONLY, 0n, 0n, 0, delta]);
  }
  if (rows.size === 0) return;
  // In key order, as every writer of these rows.
  const sorted = [...rows].sort(([a], [b]) => cmp(a, b)).map(([, cells]) => cells);
  await sql`INSERT INTO leaderboard_pending AS p (wallet, category, day, realized, volume, trades, unrealized)
    SELECT v.wallet, v.category, v.day::int, v.realized::numeric, v.volume::numeric, v.trades::int, v.unrealized::numeric
    FROM ${unnestRows('v', ['wallet', 'category', 'day', 'realized', 'volume', 'trades', 'unrealized'], sorted)}
    ON CONFLICT (wallet, category, day) DO UPDATE SET realized = p.realized + excluded.realized, volume = p.volume + excluded.volume,
      trades = p.trades + excluded.trades, unrealized = p.unrealized + excluded.unrealized`.execute(trx);
}

/**
 * The totals step: the totals of up to `limit` wallets with pending changes, in one transaction; answers how many
 * wallets (fewer than `limit`: none are left).
 */
export async function refreshPendingTotals(deps: Pick<LeaderboardDeps, 'db' | 'clock'>, limit: number): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    await preferIndexes(trx);
    const { rows } = await sql<{ wallet: string }>`SELECT DISTINCT wallet FROM leaderboard_pending ORDER BY wallet LIMIT ${limit}`.execute(trx);
    if (rows.length > 0) await refreshTotals(trx, epochDay(deps.clock.now()), rows.map((r) => r.wallet), [], new Set(), new Map(), true);
    return rows.length;
  });
}

/** Takes the pending rows of `wallets` out of leaderboard_pending: their day changes and their mark moves. */
async function takePending(trx: Transaction<DB>, wallets: readonly string[]): Promise<{ deltas: DayDelta[]; moves: Map<string, bigint> }> {
  const { rows } = await sql<{ wallet: string; category: string; day: number; realized: string; volume: string; trades: number; unrealized: string }>`
    DELETE FROM leaderboard_pending WHERE wallet = ANY(${wallets}::text[])
    RETURNING wallet, category, day, realized::text, volume::text, trades, unrealized::text`.execute(trx);
  const deltas: DayDelta[] = [];
  const moves = new Map<string, bigint>();
  for (const r of rows) {
    if (r.day !== UNREALIZED_ONLY) deltas.push({ wallet: r.wallet, category: r.category, day: r.day, realized: BigInt(r.realized), volume: BigInt(r.volume), trades: r.trades });
    addMove(moves, r.wallet, r.category, BigInt(r.unrealized));
  }
  return { deltas, moves };
}

/** Adds `delta` to a move map. */
export function addMove(moves: Map<string, bigint>, wallet: string, category: string, delta: bigint): void {
  if (delta === 0n) return;
  const key = `${wallet}:${category}`;
  moves.set(key, (moves.get(key) ?? 0n) + delta);
}

/**
 * The totals of `wallets` as of `today`, after `deltas` were added to their day rows and their positions' marks moved
 * by `moves`; wallets in `refold` (days or positions taken back) recompute their all-time rows from every day row and
 * their unrealized P&L from their positions. Otherwise the unrealized P&L is the stored all-time row's plus the move,
 * so the cost does not grow with a wallet's history.
 */
export async function refreshTotals(
  trx: Transaction<DB>,
  today: number,
  wallets: Iterable<string>,
  deltas: readonly DayDelta[] = [],
  refold: ReadonlySet<string> = new Set(),
  moves: UnrealizedMoves = new Map(),
  /** Only the categories `deltas` and `moves` touch (and ALL) are rewritten: a fold's rows, not a window's move. */
  scoped = false,
): Promise<void> {
  const all = [...new Set([...wallets, ...deltas.map((d) => d.wallet), ...refold])].sort();
  if (all.length === 0) return;
  // What folds left for these wallets: a refold reads it from the day rows and positions already, anything else adds it.
  const pending = await takePending(trx, all);
  deltas = [...deltas, ...pending.deltas.filter((d) => !refold.has(d.wallet))];
  if (pending.moves.size > 0) {
    const merged = new Map(moves);
    for (const [key, delta] of pending.moves) if (!refold.has(key.split(':')[0]!)) merged.set(key, (merged.get(key) ?? 0n) + delta);
    moves = merged;
  }
  const byWallet = <T extends { wallet: string }>(rows: readonly T[]) => groupBy(rows, (r) => r.wallet);
  const deltasOfWallet = byWallet(deltas);
  const movesOfWallet = new Map<string, Map<string, bigint>>();
  for (const [key, delta] of moves) {
    const [wallet, category] = key.split(':') as [string, string];
    const m = movesOfWallet.get(wallet) ?? new Map<string, bigint>();
    m.set(category, (m.get(category) ?? 0n) + delta);
    movesOfWallet.set(wallet, m);
  }
  // A scoped wallet rewrites the categories its deltas and moves touch, and ALL; the others every category.
  const scopes = new Map<string, Set<string>>();
  if (scoped) {
    for (const wallet of all) {
      if (!refold.has(wallet)) scopes.set(wallet, new Set([ALL_CATEGORIES, ...(deltasOfWallet.get(wallet) ?? []).map((d) => d.category), ...(movesOfWallet.get(wallet)?.keys() ?? [])]));
    }
  }
  const windowOfWallet = byWallet(await readDays(trx, all, today - (LONGEST_WINDOW_DAYS - 1)));
  const allOfWallet = byWallet(await readAllTime(trx, all, scopes));
  const fromPositions = refold.size > 0 ? await readUnrealized(trx, [...refold].sort()) : new Map<string, Map<string, bigint>>();

  const rebuild = new Set(refold);
  const next: TotalsRow[] = [];
  const unrealized = new Map<string, Map<string, bigint>>();
  for (const wallet of all) {
    const scope = scopes.get(wallet) ?? null;
    // Unrealized P&L per category (and ALL): from the positions on a refold, else the stored rows plus the moves.
    const u = new Map<string, bigint>(refold.has(wallet) ? (fromPositions.get(wallet) ?? []) : []);
    if (refold.has(wallet)) u.set(ALL_CATEGORIES, sum([...u.values()]));
    else {
      for (const r of allOfWallet.get(wallet) ?? []) u.set(r.category, BigInt(r.unrealized));
      const m = movesOfWallet.get(wallet) ?? new Map<string, bigint>();
      for (const [category, delta] of m) u.set(category, (u.get(category) ?? 0n) + delta);
      u.set(ALL_CATEGORIES, (u.get(ALL_CATEGORIES) ?? 0n) + sum([...m.values()]));
    }
    unrealized.set(wallet, u);
    const inScope = (r: TotalsRow) => scope === null || scope.has(r.category);
    next.push(...windowTotals(wallet, today, windowOfWallet.get(wallet) ?? [], u).filter(inScope));
    if (rebuild.has(wallet)) continue;
    const folded = foldAllTime(wallet, allOfWallet.get(wallet) ?? [], deltasOfWallet.get(wallet) ?? [], u);
    if (folded === null) rebuild.add(wallet);
    else next.push(...folded);
  }
  if (rebuild.size > 0) {
    // A day older than the curve's last: every category is rebuilt, so every category's unrealized P&L is read.
    const late = [...rebuild].filter((w) => !refold.has(w)).sort();
    const positions = late.length > 0 ? await readUnrealized(trx, late) : new Map<string, Map<string, bigint>>();
    for (const w of late) {
      const u = new Map(positions.get(w) ?? []);
      u.set(ALL_CATEGORIES, sum([...u.values()]));
      unrealized.set(w, u);
    }
    const days = byWallet(await readDays(trx, [...rebuild].sort(), null));
    for (const wallet of [...rebuild].sort()) next.push(...allTimeFromDays(wallet, days.get(wallet) ?? [], unrealized.get(wallet)!));
  }
  next.sort((a, b) => cmp(a.wallet, b.wallet) || cmp(a.period, b.period) || cmp(a.category, b.category));

  const unscoped = all.filter((w) => !scopes.has(w));
  if (unscoped.length > 0) await sql`DELETE FROM leaderboard_totals WHERE wallet = ANY(${unscoped}::text[]) AND period IN ('7d', '30d')`.execute(trx);
  const scopedKeys = [...scopes].flatMap(([wallet, categories]) => [...categories].sort().map((category) => [wallet, category]));
  if (scopedKeys.length > 0) {
    await sql`DELETE FROM leaderboard_totals t USING ${unnestRows('v', ['wallet', 'category'], scopedKeys)}
      WHERE t.wallet = v.wallet AND t.category = v.category AND t.period IN ('7d', '30d')`.execute(trx);
  }
  if (rebuild.size > 0) await sql`DELETE FROM leaderboard_totals WHERE wallet = ANY(${[...rebuild].sort()}::text[]) AND period = 'all'`.execute(trx);
  if (next.length === 0) return;
  await sql`INSERT INTO leaderboard_totals (wallet, period, category, realized, unrealized, pnl, volume, trades, drawdown, risk_adj, last_day, closed_peak, closed_drawdown)
    SELECT v.wallet, v.period, v.category, v.realized::numeric, v.unrealized::numeric, v.pnl::numeric, v.volume::numeric, v.trades::int, v.drawdown::numeric,
      v.risk_adj::numeric, v.last_day::int, v.closed_peak::numeric, v.closed_drawdown::numeric
    FROM ${unnestRows('v', TOTALS_COLUMNS, next.map(toRow))}
    ON CONFLICT (wallet, period, category) DO UPDATE SET realized = excluded.realized, unrealized = excluded.unrealized, pnl = excluded.pnl,
      volume = excluded.volume, trades = excluded.trades, drawdown = excluded.drawdown, risk_adj = excluded.risk_adj, last_day = excluded.last_day,
      closed_peak = excluded.closed_peak, closed_drawdown = excluded.closed_drawdown`.execute(trx);
}

/** The 7d and 30d rows of a wallet, per category and ALL, from its day rows of the last 30 days; none for an empty window. */
function windowTotals(wallet: string, today: number, days: readonly DayRow[], unrealized: ReadonlyMap<string, bigint>): TotalsRow[] {
  const out: TotalsRow[] = [];
  for (const period of ['7d', '30d'] as const) {
    const from = windowOf(period, today)!.from;
    const inWindow = days.filter((d) => d.day >= from);
    if (inWindow.length === 0) continue;
    for (const [category, rows] of byCategory(inWindow)) out.push(totalsOf(wallet, period, category, rows, unrealizedOf(unrealized, category)));
  }
  return out;
}

/** The all-time rows with the new days folded in; null when a day is older than the curve's last (rebuild). */
function foldAllTime(wallet: string, existing: readonly StoredTotals[], deltas: readonly DayDelta[], unrealized: ReadonlyMap<string, bigint>): TotalsRow[] | null {
  const stored = new Map(existing.map((r) => [r.category, r]));
  const categories = new Set<string>([...stored.keys(), ...deltas.map((d) => d.category)]);
  if (deltas.length > 0 || stored.size > 0) categories.add(ALL_CATEGORIES);
  const out: TotalsRow[] = [];
  for (const category of categories) {
    const row = stored.get(category);
    let curve: CurveState | null = row ? { lastDay: row.last_day, cum: BigInt(row.realized), closedPeak: BigInt(row.closed_peak), closedDrawdown: BigInt(row.closed_drawdown) } : { lastDay: null, cum: 0n, closedPeak: 0n, closedDrawdown: 0n };
    let volume = row ? BigInt(row.volume) : 0n;
    let trades = row ? row.trades : 0;
    const mine = deltas.filter((d) => category === ALL_CATEGORIES || d.category === category);
    for (const d of perDay(mine)) {
      curve = curve && foldDay(curve, d.day, d.realized);
      if (curve === null) return null;
      volume += d.volume;
      trades += d.trades;
    }
    out.push({ wallet, period: 'all', category, realized: curve.cum, unrealized: unrealizedOf(unrealized, category), volume, trades, curve });
  }
  return out;
}

/** The all-time rows of a wallet from every one of its day rows. */
function allTimeFromDays(wallet: string, days: readonly DayRow[], unrealized: ReadonlyMap<string, bigint>): TotalsRow[] {
  if (days.length === 0) return [];
  return [...byCategory(days)].map(([category, rows]) => totalsOf(wallet, 'all', category, rows, unrealizedOf(unrealized, category)));
}

function totalsOf(wallet: string, period: LeaderboardPeriod, category: string, rows: readonly DayRow[], unrealized: bigint): TotalsRow {
  const days = perDay(rows);
  const curve = curveOf(days);
  return { wallet, period, category, realized: curve.cum, unrealized, volume: sum(days.map((d) => d.volume)), trades: days.reduce((n, d) => n + d.trades, 0), curve };
}

/** Rows of every category, and ALL, grouped. */
function byCategory(rows: readonly DayRow[]): Map<string, DayRow[]> {
  const out = groupBy(rows, (r) => r.category);
  out.set(ALL_CATEGORIES, [...rows]);
  return out;
}

/** One entry per day, ascending, summing the rows of that day. */
function perDay(rows: readonly { day: number; realized: bigint; volume: bigint; trades: number }[]): { day: number; realized: bigint; volume: bigint; trades: number }[] {
  const days = new Map<number, { day: number; realized: bigint; volume: bigint; trades: number }>();
  for (const r of rows) {
    const d = days.get(r.day) ?? { day: r.day, realized: 0n, volume: 0n, trades: 0 };
    days.set(r.day, { day: r.day, realized: d.realized + r.realized, volume: d.volume + r.volume, trades: d.trades + r.trades });
  }
  return [...days.values()].sort((a, b) => a.day - b.day);
}

/** `u` holds every category's unrealized P&L and ALL's. */
const unrealizedOf = (u: ReadonlyMap<string, bigint>, category: string): bigint => u.get(category) ?? 0n;

const TOTALS_COLUMNS = ['wallet', 'period', 'category', 'realized', 'unrealized', 'pnl', 'volume', 'trades', 'drawdown', 'risk_adj', 'last_day', 'closed_peak', 'closed_drawdown'];

/** A row's cells in TOTALS_COLUMNS' order. */
function toRow(r: TotalsRow): Cell[] {
  const drawdown = drawdownOf(r.curve);
  const pnl = r.realized + r.unrealized;
  return [r.wallet, r.period, r.category, r.realized, r.unrealized, pnl, r.volume, r.trades, drawdown, riskAdjusted(pnl, drawdown), r.curve.lastDay, r.curve.closedPeak, r.curve.closedDrawdown];
}

type StoredTotals = { category: string; realized: string; volume: string; trades: number; last_day: number | null; closed_peak: string; closed_drawdown: string };

/** The all-time rows of the wallets: every category, or only a scoped wallet's categories. */
async function readAllTime(trx: Transaction<DB>, wallets: readonly string[], scopes: ReadonlyMap<string, ReadonlySet<string>>): Promise<(StoredTotals & { wallet: string; unrealized: string })[]> {
  const columns = ['wallet', 'category', 'realized', 'unrealized', 'volume', 'trades', 'last_day', 'closed_peak', 'closed_drawdown'] as const;
  const whole = wallets.filter((w) => !scopes.has(w));
  const rows = whole.length > 0 ? await trx.selectFrom('leaderboard_totals').select(columns).where('wallet', '=', sql<string>`ANY(${whole}::text[])`).where('period', '=', 'all').execute() : [];
  const keys = [...scopes].flatMap(([wallet, categories]) => [...categories].map((category) => [wallet, category]));
  if (keys.length === 0) return rows;
  const { rows: scoped } = await sql<StoredTotals & { wallet: string; unrealized: string }>`
    SELECT t.wallet, t.category, t.realized, t.unrealized, t.volume, t.trades, t.last_day, t.closed_peak, t.closed_drawdown
    FROM ${unnestRows('v', ['wallet', 'category'], keys)}
    JOIN leaderboard_totals t ON t.wallet = v.wallet AND t.period = 'all' AND t.category = v.category`.execute(trx);
  return [...rows, ...scoped];
}

async function readDays(trx: Transaction<DB>, wallets: readonly string[], fromDay: number | null): Promise<DayRow[]> {
  let q = trx.selectFrom('leaderboard_days').select(['wallet', 'day', 'category', 'realized', 'volume', 'trades']).where('wallet', '=', sql<string>`ANY(${wallets}::text[])`);
  if (fromDay !== null) q = q.where('day', '>=', fromDay);
  const rows = await q.execute();
  return rows.map((r) => ({ wallet: r.wallet, day: r.day, category: r.category, realized: BigInt(r.realized), volume: BigInt(r.volume), trades: r.trades }));
}

/** Σ marked of each wallet's positions, per category. */
async function readUnrealized(trx: Transaction<DB>, wallets: readonly string[]): Promise<Map<string, Map<string, bigint>>> {
  const { rows } = await sql<{ wallet: string; category: string; marked: string }>`
    SELECT wallet, category, sum(marked)::text AS marked FROM leaderboard_positions WHERE wallet = ANY(${wallets}::text[]) GROUP BY wallet, category`.execute(trx);
  const out = new Map<string, Map<string, bigint>>();
  for (const r of rows) {
    const m = out.get(r.wallet) ?? new Map<string, bigint>();
    m.set(r.category, BigInt(r.marked));
    out.set(r.wallet, m);
  }
  return out;
}

function groupBy<T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

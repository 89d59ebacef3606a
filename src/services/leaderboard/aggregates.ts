/**
 * The leaderboards' aggregate rows (docs/leaderboard.md "Maintenance"): positions with their marks, day rows, creator
 * days and the markets to mark again. The fold (fold.ts) adds what legs counted, a reorg (revert.ts) takes it back and a
 * settlement (settle.ts) moves marks to realized; each writes them through these steps, in key order.
 */
import { sql, type Transaction } from 'kysely';
import { toUsdMicro, valueAt } from '../../core/leaderboard/money.ts';
import type { Position } from '../../core/leaderboard/position.ts';
import type { DB } from '../../db/schema.ts';
import { unnestRows } from '../../db/unnest.ts';
import { marketKey, type MarketFacts } from './market-facts.ts';
import { addMove, type DayDelta } from './totals.ts';

/** One leg as folded: what it counted, USD micro-dollars. */
export interface FoldedLeg {
  id: string;
  chainId: number;
  market: string;
  wallet: string;
  outcome: number;
  day: number;
  category: string;
  realized: bigint;
  volume: bigint;
  creator: string;
  creatorVolume: bigint;
  position: Position;
}

export interface PositionState {
  position: Position;
  /** USD micro at the last mark. */
  marked: bigint;
  settled: bigint | null;
  category?: string;
  touched?: boolean;
}

export const positionKey = (chainId: number, market: string, wallet: string, outcome: number): string => `${chainId}:${market}:${wallet}:${outcome}`;

/** The stored positions of these keys (absent: never held). */
export async function loadPositions(trx: Transaction<DB>, keys: readonly { chainId: number; market: string; wallet: string; outcome: number }[]): Promise<Map<string, PositionState>> {
  const out = new Map<string, PositionState>();
  if (keys.length === 0) return out;
  const distinct = [...new Map(keys.map((k) => [positionKey(k.chainId, k.market, k.wallet, k.outcome), k])).values()];
  // One lookup per key by the primary key, whatever else the wallets and markets hold.
  const { rows } = await sql<{ chain_id: number; market: string; wallet: string; outcome: number; category: string; shares: string; basis: string; marked: string; settled: string | null }>`
    SELECT p.chain_id, p.market, p.wallet, p.outcome, p.category, p.shares, p.basis, p.marked, p.settled
    FROM ${unnestRows('v', ['chain_id', 'market', 'wallet', 'outcome'], distinct.map((k) => [k.chainId, k.market, k.wallet, k.outcome]))}
    JOIN leaderboard_positions p ON p.chain_id = v.chain_id::int AND p.market = v.market AND p.wallet = v.wallet AND p.outcome = v.outcome::smallint`.execute(trx);
  for (const r of rows) {
    out.set(positionKey(r.chain_id, r.market, r.wallet, r.outcome), { position: { shares: BigInt(r.shares), basis: BigInt(r.basis) }, marked: BigInt(r.marked), settled: r.settled === null ? null : BigInt(r.settled), category: r.category });
  }
  return out;
}

/**
 * Writes the touched positions with their marks at the market's latest price (a settled market's stay at 0: realized);
 * answers how much each wallet's unrealized P&L moved per category.
 */
export async function writePositions(trx: Transaction<DB>, positions: Map<string, PositionState>, markets: ReadonlyMap<string, MarketFacts>): Promise<Map<string, bigint>> {
  const moves = new Map<string, bigint>();
  const rows = [...positions.entries()]
    .filter(([, p]) => p.touched)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, p]) => {
      const [chainId, market, wallet, outcome] = key.split(':') as [string, string, string, string];
      const facts = markets.get(marketKey(Number(chainId), market))!;
      const marked = facts.settledOutcome !== null || !facts.rule ? 0n : toUsdMicro(valueAt(p.position.shares, facts.prices[Number(outcome)] ?? 0n) - p.position.basis, facts.rule);
      addMove(moves, wallet, facts.category, marked - p.marked);
      return [chainId, market, wallet, outcome, facts.category, p.position.shares, p.position.basis, marked];
    });
  if (rows.length === 0) return moves;
  await sql`INSERT INTO leaderboard_positions (chain_id, market, wallet, outcome, category, shares, basis, marked)
    SELECT v.chain_id::int, v.market, v.wallet, v.outcome::smallint, v.category, v.shares::numeric, v.basis::numeric, v.marked::numeric
    FROM ${unnestRows('v', ['chain_id', 'market', 'wallet', 'outcome', 'category', 'shares', 'basis', 'marked'], rows)}
    ON CONFLICT (chain_id, market, wallet, outcome) DO UPDATE SET shares = excluded.shares, basis = excluded.basis, marked = excluded.marked`.execute(trx);
  return moves;
}

/** The day rows' changes of folded (sign 1) or taken back (sign −1) legs, one per (wallet, day, category). */
export function dayDeltasOf(legs: readonly Pick<FoldedLeg, 'wallet' | 'day' | 'category' | 'realized' | 'volume'>[], sign: 1 | -1): DayDelta[] {
  const out = new Map<string, DayDelta>();
  for (const l of legs) {
    const key = `${l.wallet}:${l.day}:${l.category}`;
    const d = out.get(key) ?? { wallet: l.wallet, day: l.day, category: l.category, realized: 0n, volume: 0n, trades: 0 };
    out.set(key, { ...d, realized: d.realized + BigInt(sign) * l.realized, volume: d.volume + BigInt(sign) * l.volume, trades: d.trades + sign });
  }
  return [...out.values()];
}

/** Adds the deltas to the day rows, in key order. */
export async function addDays(trx: Transaction<DB>, deltas: readonly DayDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = [...deltas].sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : a.day - b.day || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0)));
  await sql`INSERT INTO leaderboard_days (wallet, day, category, realized, volume, trades)
    SELECT v.wallet, v.day::int, v.category, v.realized::numeric, v.volume::numeric, v.trades::int
    FROM ${unnestRows('v', ['wallet', 'day', 'category', 'realized', 'volume', 'trades'], rows.map((d) => [d.wallet, d.day, d.category, d.realized, d.volume, d.trades]))}
    ON CONFLICT (wallet, day, category) DO UPDATE SET
      realized = leaderboard_days.realized + excluded.realized, volume = leaderboard_days.volume + excluded.volume, trades = leaderboard_days.trades + excluded.trades`.execute(trx);
}

/** Adds (sign 1) or takes back (sign −1) the volume the legs drew to their markets' creators. */
export async function addCreatorDays(trx: Transaction<DB>, legs: readonly Pick<FoldedLeg, 'creator' | 'day' | 'creatorVolume'>[], sign: 1 | -1): Promise<void> {
  const out = new Map<string, { creator: string; day: number; volume: bigint; trades: number }>();
  for (const l of legs) {
    if (l.creatorVolume === 0n) continue;
    const key = `${l.creator}:${l.day}`;
    const d = out.get(key) ?? { creator: l.creator, day: l.day, volume: 0n, trades: 0 };
    out.set(key, { ...d, volume: d.volume + BigInt(sign) * l.creatorVolume, trades: d.trades + sign });
  }
  const rows = [...out.values()].sort((a, b) => (a.creator < b.creator ? -1 : a.creator > b.creator ? 1 : a.day - b.day));
  if (rows.length === 0) return;
  await sql`INSERT INTO leaderboard_creator_days (creator, day, volume, trades)
    SELECT v.creator, v.day::int, v.volume::numeric, v.trades::int FROM ${unnestRows('v', ['creator', 'day', 'volume', 'trades'], rows.map((r) => [r.creator, r.day, r.volume, r.trades]))}
    ON CONFLICT (creator, day) DO UPDATE SET volume = leaderboard_creator_days.volume + excluded.volume, trades = leaderboard_creator_days.trades + excluded.trades`.execute(trx);
}

/** The markets of these legs moved: their other holders are marked again by the next pass (marks.ts). */
export async function markDirty(trx: Transaction<DB>, legs: readonly Pick<FoldedLeg, 'chainId' | 'market'>[]): Promise<void> {
  const keys = [...new Map(legs.map((l) => [marketKey(l.chainId, l.market), [l.chainId, l.market]])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  if (keys.length === 0) return;
  await sql`INSERT INTO leaderboard_markets (chain_id, market, dirty)
    SELECT v.chain_id::int, v.market, true FROM ${unnestRows('v', ['chain_id', 'market'], keys)}
    ON CONFLICT (chain_id, market) DO UPDATE SET dirty = true`.execute(trx);
}

/**
 * The updater's main step (docs/leaderboard.md "Maintenance"): the oldest pending legs, in the order they were
 * appended, and the order-book fills after the fill cursor (a maker's and a taker's leg each), folded in one
 * transaction into positions (average cost), day rows and creator days, with what that changed of the wallets' totals
 * left for the totals step; each trade's leg keeps what it counted, so a reorg takes back exactly that. Legs of markets
 * the leaderboards leave out (PM collateral) are marked skipped. The cost is a fixed number of statements per batch,
 * whatever the history.
 */
import { sql, type Transaction } from 'kysely';
import { epochDay } from '../../core/leaderboard/boards.ts';
import { legOfTrade, legsOfFill, type Leg } from '../../core/leaderboard/legs.ts';
import { toUsdMicro } from '../../core/leaderboard/money.ts';
import { applyLeg, EMPTY_POSITION } from '../../core/leaderboard/position.ts';
import type { MatchKind } from '../../core/ledger/types.ts';
import type { DB } from '../../db/schema.ts';
import { unnestRows } from '../../db/unnest.ts';
import { addCreatorDays, addDays, dayDeltasOf, loadPositions, markDirty, positionKey, writePositions, type FoldedLeg, type PositionState } from './aggregates.ts';
import type { LeaderboardDeps } from './deps.ts';
import { loadMarketFacts, marketKey, type MarketFacts } from './market-facts.ts';
import { preferIndexes } from './plan.ts';
import { addPending } from './totals.ts';

interface PendingRow {
  /** The leg's id in leaderboard_legs; a fill read after the cursor: `fill:<fill id>:<role>`, in no table. */
  id: string;
  /** A fill read after the cursor (migration 0038), not a leg row. */
  fillId?: string;
  source: 'trade' | 'fill';
  role: 'trader' | 'maker' | 'taker';
  chain_id: number;
  t_market: string | null;
  trader: string | null;
  t_outcome: number | null;
  is_buy: boolean | null;
  t_shares: string | null;
  cost: string | null;
  protocol_fee: string | null;
  creator_fee: string | null;
  block_time: Date | null;
  f_market: string | null;
  maker: string | null;
  taker: string | null;
  side: number | null;
  kind: number | null;
  price_bps: number | null;
  f_shares: string | null;
  taker_fee: string | null;
  created_at: Date | null;
}

/**
 * Folds up to `limit` pending legs and up to `limit / 2` fills after the fill cursor; answers `limit` if either was a
 * full batch (more may wait), else how many legs it took (folded or skipped).
 */
export async function foldPending(deps: LeaderboardDeps, limit: number): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    await preferIndexes(trx);
    // Folds take turns on the cursor: two at once would both count the fills after it.
    const cursor = await lockFillCursor(trx);
    const legRows = await readPending(trx, limit);
    const fillLimit = Math.max(1, Math.floor(limit / 2));
    // A fill's legs from before migration 0038 are folded first: a position takes its fills in the order they were made.
    const fills = (await fillLegsWaiting(trx)) ? [] : await readFillsAfter(trx, cursor, fillLimit);
    const rows = [...legRows, ...fills.flatMap((f) => fillLegRows(deps.chainId, f))];
    if (rows.length === 0) return 0;
    if (fills.length > 0) await sql`UPDATE leaderboard_fill_cursor SET fill_id = ${fills[fills.length - 1]!.fillId}::bigint WHERE id = 1`.execute(trx);
    const taken = legRows.length === limit || fills.length === fillLimit ? limit : rows.length;
    const markets = await loadMarketFacts(trx, deps, rows.map((r) => ({ chainId: r.chain_id, market: (r.t_market ?? r.f_market ?? '').toLowerCase() })));
    const legs = rows.map((r) => legOfRow(r, markets));
    const positions = await loadPositions(trx, legs.flatMap((l) => (l ? [{ chainId: l.market.chainId, market: l.market.address, wallet: l.leg.wallet, outcome: l.leg.outcome }] : [])));
    const { folded, skipped } = applyLegs(rows, legs, positions);

    await markSkipped(trx, rows, new Set(skipped));
    if (folded.length === 0) return taken;
    const moves = await writePositions(trx, positions, markets);
    const kinds = new Map(rows.map((r) => [r.id, r.fillId !== undefined ? ('cursor' as const) : r.source]));
    await writeFoldedLegs(trx, folded, kinds);
    const deltas = dayDeltasOf(folded, 1);
    await addDays(trx, deltas);
    await addCreatorDays(trx, folded, 1);
    await markDirty(trx, folded);
    // The totals follow in the totals step (totals.ts refreshPendingTotals): a fold holds its transaction short.
    await addPending(trx, deltas, moves);
    return taken;
  });
}

/** The last fill folded, the cursor's row locked to this transaction's end. */
async function lockFillCursor(trx: Transaction<DB>): Promise<string> {
  const row = await trx.selectFrom('leaderboard_fill_cursor').select('fill_id').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
  return row.fill_id;
}

/** Whether a fill's leg from before migration 0038 is still pending. */
async function fillLegsWaiting(trx: Transaction<DB>): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM leaderboard_legs WHERE state = 'pending' AND source = 'fill' LIMIT 1`.execute(trx);
  return rows.length > 0;
}

type FillRow = Pick<PendingRow, 'f_market' | 'maker' | 'taker' | 'side' | 'kind' | 'price_bps' | 'f_shares' | 'taker_fee' | 'created_at'> & { fillId: string };

/**
 * The fills after `cursor`, in id order (`limit` at most). Each fill's id is taken under the ledger lock, which its
 * transaction holds to its commit, so fills commit in id order: none commits later behind the cursor (migration 0038).
 */
async function readFillsAfter(trx: Transaction<DB>, cursor: string, limit: number): Promise<FillRow[]> {
  const { rows } = await sql<FillRow>`
    SELECT f.id::text AS "fillId", f.market AS f_market, f.maker, f.taker, f.side, f.kind, f.price_bps, f.shares AS f_shares, f.taker_fee, f.created_at
    FROM order_fills f
    WHERE f.id > ${cursor}::bigint
    ORDER BY f.id
    LIMIT ${limit}`.execute(trx);
  return rows;
}

/** A fill's two legs as rows of the fold, the maker's first (the order the order loop appended them in). */
function fillLegRows(chainId: number, f: FillRow): PendingRow[] {
  const none = { t_market: null, trader: null, t_outcome: null, is_buy: null, t_shares: null, cost: null, protocol_fee: null, creator_fee: null, block_time: null };
  const { fillId, ...fill } = f;
  return (['maker', 'taker'] as const).map((role) => ({ id: `fill:${fillId}:${role}`, fillId, source: 'fill', role, chain_id: chainId, ...none, ...fill }));
}

/**
 * Legs the leaderboards leave out: a leg row is marked skipped; a fill read after the cursor gets its legs as skipped
 * rows, to be folded again if its market's collateral is ever priced (docs/leaderboard.md "Values").
 */
async function markSkipped(trx: Transaction<DB>, rows: readonly PendingRow[], skipped: ReadonlySet<string>): Promise<void> {
  const ofLegs = rows.filter((r) => skipped.has(r.id) && r.fillId === undefined).map((r) => r.id);
  if (ofLegs.length > 0) await sql`UPDATE leaderboard_legs SET state = 'skipped' WHERE id = ANY(${ofLegs}::bigint[])`.execute(trx);
  const ofFills = rows.filter((r) => skipped.has(r.id) && r.fillId !== undefined);
  if (ofFills.length === 0) return;
  await sql`INSERT INTO leaderboard_legs (source, role, chain_id, fill_id, state)
    SELECT 'fill', u.role, u.chain_id::int, u.fill_id::bigint, 'skipped' FROM ${unnestRows('u', ['role', 'chain_id', 'fill_id'], ofFills.map((r) => [r.role, r.chain_id, r.fillId!]))}`.execute(trx);
}

/** The oldest pending legs (the pending index, in order, `limit` rows) with their trades and fills: never all pending legs. */
async function readPending(trx: Transaction<DB>, limit: number): Promise<PendingRow[]> {
  const { rows } = await sql<PendingRow>`
    WITH l AS (
      SELECT id, source, role, chain_id, tx_hash, log_index, fill_id FROM leaderboard_legs
      WHERE state = 'pending' ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    SELECT l.id, l.source, l.role, l.chain_id,
      t.market AS t_market, t.trader, t.outcome AS t_outcome, t.is_buy, t.shares AS t_shares, t.cost, t.protocol_fee, t.creator_fee, t.block_time,
      f.market AS f_market, f.maker, f.taker, f.side, f.kind, f.price_bps, f.shares AS f_shares, f.taker_fee, f.created_at
    FROM l
    LEFT JOIN market_trades t ON l.source = 'trade' AND t.chain_id = l.chain_id AND t.tx_hash = l.tx_hash AND t.log_index = l.log_index
    LEFT JOIN order_fills f ON l.source = 'fill' AND f.id = l.fill_id
    ORDER BY l.id`.execute(trx);
  return rows;
}

/**
 * Applies the legs in order to the positions (updated in place, marked touched); answers what each leg counted, in
 * USD micro-dollars, and the legs left out (a market the leaderboards leave out, or gone).
 */
function applyLegs(rows: readonly PendingRow[], legs: readonly (LegOfRow | null)[], positions: Map<string, PositionState>): { folded: FoldedLeg[]; skipped: string[] } {
  const folded: FoldedLeg[] = [];
  const skipped: string[] = [];
  rows.forEach((row, i) => {
    const l = legs[i];
    if (!l || !l.market.rule) {
      skipped.push(row.id);
      return;
    }
    const key = positionKey(l.market.chainId, l.market.address, l.leg.wallet, l.leg.outcome);
    const held = positions.get(key) ?? { position: EMPTY_POSITION, marked: 0n, settled: null };
    const { position, realized } = applyLeg(held.position, l.leg);
    positions.set(key, { ...held, position, touched: true });
    const usd = (amount: bigint) => toUsdMicro(amount, l.market.rule!);
    folded.push({
      id: row.id,
      chainId: l.market.chainId,
      market: l.market.address,
      wallet: l.leg.wallet,
      outcome: l.leg.outcome,
      day: epochDay(l.at),
      category: l.market.category,
      realized: usd(realized),
      volume: usd(l.leg.notional),
      creator: l.market.creator,
      creatorVolume: usd(l.creatorNotional),
      position,
    });
  });
  return { folded, skipped };
}

interface LegOfRow {
  leg: Leg;
  market: MarketFacts;
  at: Date;
  /** The trade's volume for its market's creator: counted once per trade (on the trader's or the taker's leg). */
  creatorNotional: bigint;
}

function legOfRow(r: PendingRow, markets: ReadonlyMap<string, MarketFacts>): LegOfRow | null {
  if (r.source === 'trade') {
    const market = r.t_market === null ? undefined : markets.get(marketKey(r.chain_id, r.t_market.toLowerCase()));
    if (!market || r.trader === null) return null;
    const leg = legOfTrade({ trader: r.trader, outcome: r.t_outcome!, isBuy: r.is_buy!, shares: BigInt(r.t_shares!), cost: BigInt(r.cost!), protocolFee: BigInt(r.protocol_fee!), creatorFee: BigInt(r.creator_fee!) });
    return { leg, market, at: r.block_time!, creatorNotional: leg.notional };
  }
  const market = r.f_market === null ? undefined : markets.get(marketKey(r.chain_id, r.f_market.toLowerCase()));
  if (!market || r.maker === null) return null;
  const legs = legsOfFill({ maker: r.maker, taker: r.taker!, side: r.side!, kind: r.kind! as MatchKind, priceBps: r.price_bps!, shares: BigInt(r.f_shares!), takerFee: BigInt(r.taker_fee!) });
  const leg = r.role === 'maker' ? legs.maker : legs.taker;
  return { leg, market, at: r.created_at!, creatorNotional: r.role === 'taker' ? legs.taker.notional : 0n };
}

/**
 * A trade's leg keeps what it counted, for a reorg to take back; a fill's leg row (from before migration 0038) is
 * deleted: fills are final in the ledger and never taken back, so nothing would read it again. A fill read after the
 * cursor has no row: the cursor is its record.
 */
async function writeFoldedLegs(trx: Transaction<DB>, legs: readonly FoldedLeg[], kinds: ReadonlyMap<string, 'trade' | 'fill' | 'cursor'>): Promise<void> {
  const ofFills = legs.filter((l) => kinds.get(l.id) === 'fill').map((l) => l.id);
  const ofTrades = legs.filter((l) => kinds.get(l.id) === 'trade');
  if (ofFills.length > 0) await sql`DELETE FROM leaderboard_legs WHERE id = ANY(${ofFills}::bigint[])`.execute(trx);
  if (ofTrades.length === 0) return;
  const columns = ['id', 'wallet', 'market', 'outcome', 'day', 'category', 'realized', 'volume', 'creator', 'creator_volume', 'shares_after', 'basis_after'];
  const rows = ofTrades.map((l) => [l.id, l.wallet, l.market, l.outcome, l.day, l.category, l.realized, l.volume, l.creator, l.creatorVolume, l.position.shares, l.position.basis]);
  await sql`
    UPDATE leaderboard_legs l SET state = 'folded', wallet = v.wallet, market = v.market, outcome = v.outcome::smallint, day = v.day::int, category = v.category,
      realized = v.realized::numeric, volume = v.volume::numeric, creator = v.creator, creator_volume = v.creator_volume::numeric,
      shares_after = v.shares_after::numeric, basis_after = v.basis_after::numeric
    FROM ${unnestRows('v', columns, rows)}
    WHERE l.id = v.id::bigint`.execute(trx);
}

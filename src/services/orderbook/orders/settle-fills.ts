/**
 * The writes of a batch of placements (docs/orderbook.md "The order loop"), once its orders have met the book in
 * memory: the order rows, every fill as one ledger match (one submit for the batch, in order), the fill rows, the
 * makers' order rows, the owners' fill allowances, the market record and every owner's order events — a statement or a
 * few for the whole batch each, in the lock order of docs/orderbook.md "Concurrency".
 */
import { sql, type Selectable, type Transaction } from 'kysely';
import { MATCH_KIND_NAMES, type Account, type LedgerOperation } from '../../../core/ledger/types.ts';
import type { Fill, OrderAction, SubmitResult } from '../../../core/orderbook/types.ts';
import { takerPriceOf } from '../../../core/orderbook/engine.ts';
import { baseUnitsOfShares, priceOfBps } from '../../../core/orderbook/units.ts';
import type { NewEvent, StoredEvent } from '../../events/outbox.ts';
import { runSteps, runStepsAfter, type Step } from '../../../db/pipeline.ts';
import { takeNumbers } from '../../../db/sequences.ts';
import { unnestRows, type Cell } from '../../../db/unnest.ts';
import type { DB, OrdersTable } from '../../../db/schema.ts';
import { applyFillsToMarket } from '../market-stats.ts';
import { consumeFills, countFreeFills, type Allowances } from './allowance.ts';
import { emit, eventCursors, eventWrites, type PendingEvent } from './order-events.ts';
import type { ViewFill } from './order-view.ts';
import { addReservations, reservationOf, type ReservationChange } from './reservations.ts';
import type { PhaseClock } from './round-phases.ts';
import type { OrderBookMarket } from './tradeable-market.ts';
import type { OrderBookDeps, OrderTerms } from './types.ts';

type SettleDeps = Pick<OrderBookDeps, 'clock' | 'ledger' | 'chainId' | 'fills' | 'freeFillsOf' | 'fewestFreeFills'>;

/** What an order row says about how far the order got. */
export interface OrderState {
  filled: bigint;
  remaining: bigint;
  status: SubmitResult['status'];
  reason: string | null;
}

/** An order of the batch that passed its checks and met the book. */
export interface PlacedOrder {
  orderId: string;
  market: OrderBookMarket;
  agentId: string;
  owner: Account;
  order: OrderTerms;
  seq: bigint;
  result: SubmitResult;
  /** The order as its own placement left it: what its caller is answered. */
  placedAs: OrderState;
  /** The order at the end of the batch: a later order of the batch may have filled it as its maker. */
  final: OrderState;
}

/** A fill of the batch, with what its maker had left after it. */
export interface BatchFill {
  market: OrderBookMarket;
  fill: Fill;
  takerAgent: string;
  makerRemaining: bigint;
  /** The maker's agent when the maker is an order of this batch (else read from its row). */
  makerAgent: string | null;
}

/** A resting order from before the batch that the batch filled: what is left of it and what it filled in the batch. */
export interface MakerChange {
  action: OrderAction;
  priceBps: number;
  remaining: bigint;
  filled: bigint;
}

export interface SettleFillsParams {
  /** In arrival order, market after market (the batch's markets in its order). */
  placed: readonly PlacedOrder[];
  /** In the order they happened (so, market after market as `placed`). */
  fills: readonly BatchFill[];
  makers: ReadonlyMap<string, MakerChange>;
  /** What the batch's orders reserve more or less than before it (new orders and makers), summed by addReservations. */
  reservations: readonly ReservationChange[];
  allowances: Allowances;
  /**
   * Told each order's answer once it is known, before the last writes: a step it defers (deferStep) goes with them
   * (the Idempotency-Key records, answers included).
   */
  answered: (settled: SettledOrders) => void;
  /** Told the outbox events the batch wrote (to hand them to the event bus once it commits). */
  published?: (events: StoredEvent[]) => void;
  /** Told where the matching, the two pipelines of writes and the work between them end. */
  phases?: PhaseClock;
}

/** Each placed order as its caller is answered: its row as its placement left it, and its fills (as the taker). */
export type SettledOrders = Map<string, { row: Selectable<OrdersTable>; fills: ViewFill[] }>;

/** The ledger match of a fill. */
export const matchOf = (marketId: bigint, f: Fill): LedgerOperation => ({
  type: 'match',
  match: { maker: f.maker, taker: f.taker, marketId, side: f.side, kind: f.kind, shares: f.shares, priceBps: f.priceBps, fee: f.takerFee },
});

/**
 * The batch's writes in two pipelines (src/db/pipeline.ts), each statement in the lock order of docs/orderbook.md
 * "Concurrency": (1) the order rows, the market record, the ledger lock and the balances the fills touch, the seqs of
 * their ledger operations, the makers' rows, what the orders reserve more or less on their owners' rows, the fill ids
 * (reserved), the fill counts and the agents' event cursors; (2) the ledger's operations and balances, the fills, the
 * order events and the outbox (the leaderboards read the fills after a cursor: docs/leaderboard.md "The inbox").
 * Everything (2) writes is known once (1) is answered: each order's answer goes to `answered` between the two (the
 * Idempotency-Key records go first in (2)). A batch whose agents are past the smallest tier's free fills (rare) counts
 * them between the two as well, one by one.
 */
export async function settleFills(deps: SettleDeps, trx: Transaction<DB>, { placed, fills, makers, reservations, allowances, answered, published, phases }: SettleFillsParams): Promise<void> {
  const now = deps.clock.now();
  const ledger = fills.length > 0 ? deps.ledger.appending(trx, fills.map((f) => matchOf(f.market.marketId, f.fill))) : null;
  const { rows, insert } = insertOrders(deps, trx, placed);
  // Each market's record with its fills (the rows are locked already: the batch checked them first).
  const markets = new Map<string, { market: OrderBookMarket; fills: Fill[] }>();
  for (const f of fills) {
    const entry = markets.get(f.market.address) ?? { market: f.market, fills: [] };
    entry.fills.push(f.fill);
    markets.set(f.market.address, entry);
  }
  const records = [...markets.values()].map(({ market, fills: own }) => applyFillsToMarket({ chainId: deps.chainId, address: market.address }, own, now));
  // The makers' agents, as the book knows them (books.ts); one the book does not know (none, by construction) is read.
  const unknown = [...new Set(fills.filter((f) => f.makerAgent === null).map((f) => f.fill.makerOrderId))];
  const read = unknown.length > 0 ? await agentsOf(trx, unknown) : new Map<string, string>();
  const agentOf = (f: BatchFill): string => {
    const agent = f.makerAgent ?? read.get(f.fill.makerOrderId);
    if (agent === undefined) throw new Error(`order book: maker order ${f.fill.makerOrderId} has no row`);
    return agent;
  };
  const perAgent = new Map<string, number>();
  for (const f of fills) for (const a of [agentOf(f), f.takerAgent]) perAgent.set(a, (perAgent.get(a) ?? 0) + 1);

  // Each order's events in arrival order, as one transaction per order would have written them. A fill's id and its
  // ledger seq are known once the first pipeline is in: its events' bodies are completed then, before they are written.
  const queue: PendingEvent[] = [];
  const awaiting: { fill: number; body: Record<string, unknown>; report: boolean }[] = [];
  // Each fill is also a public market.trade (docs/events.md): no agent, no order, what the trades read shows.
  const trades: NewEvent[] = [];
  const fillRows: ViewFill[] = fills.map(({ fill }) => ({
    id: '',
    maker_order: fill.makerOrderId,
    taker_order: fill.takerOrderId,
    kind: fill.kind,
    side: fill.side,
    price_bps: fill.priceBps,
    shares: fill.shares.toString(),
    taker_fee: fill.takerFee.toString(),
    ledger_seq: '',
    created_at: now,
    // Written with the fills: the ledger batch holding them cannot be committed before this transaction is.
    batch_nonce: null,
    batch_status: null,
  }));
  const settled: SettledOrders = new Map();
  let next = 0;
  for (const p of placed) {
    const { outcome, action, priceBps, shares, tif, postOnly } = p.order;
    emit(queue, p.agentId, p.orderId, 'accepted', { outcome, action, priceBps, shares: shares.toString(), tif, postOnly });
    const own = fillRows.slice(next, next + p.result.fills.length);
    for (let i = 0; i < own.length; i++) {
      const f = fills[next + i]!;
      const payload = { fillId: '', kind: MATCH_KIND_NAMES[f.fill.kind], outcome: f.fill.side, priceBps: f.fill.priceBps, shares: f.fill.shares.toString(), ledgerSeq: '', final: false };
      const maker = { ...payload, role: 'maker', fee: '0', remaining: f.makerRemaining.toString() };
      const taker = { ...payload, role: 'taker', fee: f.fill.takerFee.toString() };
      emit(queue, agentOf(f), f.fill.makerOrderId, 'fill', maker);
      awaiting.push({ fill: next + i, body: maker, report: true });
      emit(queue, f.takerAgent, f.fill.takerOrderId, 'fill', taker);
      awaiting.push({ fill: next + i, body: taker, report: true });
      const trade = { kind: 'orderbook', fillId: '', outcome, side: action, shares: baseUnitsOfShares(f.fill.shares).toString(), price: priceOfBps(takerPriceOf(f.fill.kind, f.fill.priceBps)) };
      awaiting.push({ fill: next + i, body: trade, report: false });
      // The taker's outcome, action and price, as GET /discover/markets/{address}/trades shows the fill.
      trades.push({ type: 'market.trade', chainId: deps.chainId, marketAddress: f.market.address.toLowerCase(), payload: trade });
    }
    next += p.result.fills.length;
    if (p.result.status !== 'filled' && p.result.status !== 'resting') {
      emit(queue, p.agentId, p.orderId, p.result.status, { reason: p.result.reason, cancelled: p.result.cancelled.toString() });
    }
    settled.set(p.orderId, { row: { ...rows.get(p.orderId)!, ...stateColumns(p, p.placedAs) }, fills: own });
  }

  phases?.end('matching');
  const [, balances, ledgerSeqs, , , fillIds, leftToCount, firstSeqs] = await runStepsAfter(trx, [insert, ...records], [
    ledger?.reads[0] ?? null,
    ledger?.reads[1] ?? null,
    ledger?.reads[2] ?? null,
    updateMakers(deps, trx, makers),
    addReservations(trx, reservations),
    reserveFillIds(fills.length),
    countFreeFills(deps, trx, perAgent),
    eventCursors(trx, queue),
  ] as const);
  phases?.end('firstWrites');
  for (const [i, row] of fillRows.entries()) Object.assign(row, { id: fillIds![i]!, ledger_seq: ledgerSeqs![i]! });
  for (const { fill, body, report } of awaiting) {
    const row = fillRows[fill]!;
    body.fillId = row.id;
    if (report) body.ledgerSeq = row.ledger_seq;
  }
  // Every fill is one ledger match, all written together (one balance check, in order).
  const ledgerWrites = ledger?.writes(balances ?? [], ledgerSeqs ?? []) ?? [];
  // Agents past the smallest tier's free fills (rare): counted one by one. Every batch with fills holds the ledger
  // lock, so nobody else counts fills meanwhile, although these rows are locked after the event cursors.
  if (perAgent.size > 0 && (leftToCount === undefined || leftToCount.length > 0)) await consumeFills(deps, trx, perAgent, allowances, leftToCount);
  answered(settled);

  // The balances come with the ledger's operations: every writer of them holds the ledger lock, so where they come in
  // the lock order does not matter. The outbox counter is locked last (docs/events.md).
  phases?.end('answers');
  await runSteps(trx, [
    ...ledgerWrites,
    insertFills(deps, trx, fills, fillRows),
    ...eventWrites(deps, trx, queue, firstSeqs ?? new Map(), trades, published),
  ]);
  phases?.end('lastWrites');
}

/** The agents of orders by id (the makers a book did not know). */
async function agentsOf(trx: Transaction<DB>, orderIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await sql<{ id: string; agent_id: string }>`SELECT id, agent_id FROM orders WHERE id = ANY(${[...orderIds]}::uuid[])`.execute(trx);
  return new Map(rows.map((r) => [r.id, r.agent_id]));
}

/** Ids for the batch's fills, in fill order, taken from the order_fills.id column's sequence (null: no fill). */
function reserveFillIds(n: number): Step<string[]> | null {
  return n === 0 ? null : takeNumbers('order_fills.id', n);
}

/** The columns that say how far an order got. */
function stateColumns(p: Pick<PlacedOrder, 'order'>, s: OrderState) {
  return {
    filled: s.filled.toString(),
    remaining: s.remaining.toString(),
    reserved: reservationOf(p.order.action, p.order.priceBps, s.remaining).toString(),
    status: s.status,
    reason: s.reason,
  };
}

/**
 * Writes the batch's orders as the batch left them, with the seqs they met the book with (reserved from the
 * column's sequence before matching, hence OVERRIDING SYSTEM VALUE); answers their rows by id, as written.
 */
function insertOrders(
  deps: Pick<SettleDeps, 'clock' | 'chainId'>,
  trx: Transaction<DB>,
  placed: readonly PlacedOrder[],
): { rows: Map<string, Selectable<OrdersTable>>; insert: Step<void> | null } {
  const now = deps.clock.now();
  const rows = placed.map(
    (p): Selectable<OrdersTable> => ({
      id: p.orderId,
      seq: p.seq.toString(),
      agent_id: p.agentId,
      owner: p.owner,
      chain_id: deps.chainId,
      market: p.market.address,
      market_id: p.market.marketId.toString(),
      outcome: p.order.outcome,
      action: p.order.action,
      price_bps: p.order.priceBps,
      shares: p.order.shares.toString(),
      tif: p.order.tif,
      post_only: p.order.postOnly,
      ...stateColumns(p, p.final),
      cancel_requested_at: null,
      created_at: now,
      updated_at: now,
    }),
  );
  const written = new Map(rows.map((r) => [r.id, r]));
  if (rows.length === 0) return { rows: written, insert: null };
  const columns = ['id', 'seq', 'agent_id', 'owner', 'chain_id', 'market', 'market_id', 'outcome', 'action', 'price_bps', 'shares', 'remaining', 'filled', 'tif', 'post_only', 'status', 'reason', 'reserved', 'created_at', 'updated_at'] as const;
  const query = sql`
    INSERT INTO orders (${sql.raw(columns.join(', '))}) OVERRIDING SYSTEM VALUE
    SELECT u.id::uuid, u.seq::bigint, u.agent_id::uuid, u.owner, u.chain_id::int, u.market, u.market_id::bigint, u.outcome::smallint, u.action, u.price_bps::int,
      u.shares::numeric, u.remaining::numeric, u.filled::numeric, u.tif, u.post_only::boolean, u.status, u.reason, u.reserved::numeric, u.created_at::timestamptz, u.updated_at::timestamptz
    FROM ${unnestRows('u', columns, rows.map((r) => columns.map((c) => r[c])))}`.compile(trx);
  return { rows: written, insert: { query, read: () => undefined } };
}

/** Writes the fills, in order, under the ids reserved for them and the ledger seqs their matches got (null: no fill). */
function insertFills(deps: Pick<SettleDeps, 'clock'>, trx: Transaction<DB>, fills: readonly BatchFill[], rows: readonly ViewFill[]): Step<void> | null {
  if (fills.length === 0) return null;
  const columns = ['id', 'market_id', 'market', 'maker_order', 'taker_order', 'maker', 'taker', 'side', 'kind', 'price_bps', 'shares', 'taker_fee', 'ledger_seq', 'created_at'];
  const cells = fills.map(({ market, fill }, i): Cell[] => [rows[i]!.id, market.marketId, market.address, fill.makerOrderId, fill.takerOrderId, fill.maker, fill.taker, fill.side, fill.kind, fill.priceBps, fill.shares, fill.takerFee, rows[i]!.ledger_seq, deps.clock.now()]);
  const query = sql`
    INSERT INTO order_fills (${sql.raw(columns.join(', '))}) OVERRIDING SYSTEM VALUE
    SELECT u.id::bigint, u.market_id::bigint, u.market, u.maker_order::uuid, u.taker_order::uuid, u.maker, u.taker, u.side::smallint, u.kind::smallint, u.price_bps::int,
      u.shares::numeric, u.taker_fee::numeric, u.ledger_seq::bigint, u.created_at::timestamptz
    FROM ${unnestRows('u', columns, cells)}`.compile(trx);
  return { query, read: () => undefined };
}

/** Takes the batch's fills off the resting orders from before it (filled, remaining, what they still reserve); refuses a maker without a row. */
function updateMakers(deps: Pick<SettleDeps, 'clock'>, trx: Transaction<DB>, makers: ReadonlyMap<string, MakerChange>): Step<void> | null {
  if (makers.size === 0) return null;
  const cells = [...makers].map(([id, m]): Cell[] => [id, m.remaining, m.filled, reservationOf(m.action, m.priceBps, m.remaining), m.remaining === 0n ? 'filled' : 'resting']);
  const query = sql`
    UPDATE orders SET remaining = v.remaining::numeric, filled = orders.filled + v.filled::numeric, reserved = v.reserved::numeric, status = v.status, updated_at = ${deps.clock.now()}
    FROM ${unnestRows('v', ['id', 'remaining', 'filled', 'reserved', 'status'], cells)}
    WHERE orders.id = v.id::uuid
    RETURNING orders.id`.compile(trx);
  return {
    query,
    read: (result) => {
      if (result.rows.length !== makers.size) throw new Error(`order book: ${makers.size - result.rows.length} maker order(s) of the batch have no row`);
    },
  };
}

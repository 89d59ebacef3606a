/**
 * The writes of a batch of placements (docs/orderbook.md "The order loop"), once its orders have met the book in
 * memory: the order rows, every fill as one ledger match (one submit for the batch, in order), the fill rows, the
 * makers' order rows, the owners' fill allowances, the market record, the leaderboard legs and every owner's order
 * events — a statement or a few for the whole batch each, in the lock order of docs/orderbook.md "Concurrency".
 */
import { sql, type Selectable, type Transaction } from 'kysely';
import { MATCH_KIND_NAMES, type Account, type LedgerOperation } from '../../../core/ledger/types.ts';
import type { Fill, OrderAction, SubmitResult } from '../../../core/orderbook/types.ts';
import { takerPriceOf } from '../../../core/orderbook/engine.ts';
import { baseUnitsOfShares, priceOfBps } from '../../../core/orderbook/units.ts';
import type { NewEvent } from '../../events/outbox.ts';
import type { DB, OrdersTable } from '../../../db/schema.ts';
import { applyFillsToMarket } from '../market-stats.ts';
// Leaderboards: each fill appends its maker's and taker's legs in this transaction (docs/leaderboard.md).
import { enqueueFillLegs } from '../../leaderboard/inbox.ts';
import { consumeFills, type Allowances } from './allowance.ts';
import { emit, writeEvents, type PendingEvent } from './order-events.ts';
import type { ViewFill } from './order-view.ts';
import { reservationOf } from './reservations.ts';
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
  market: OrderBookMarket;
  /** In arrival order. */
  placed: readonly PlacedOrder[];
  /** In the order they happened. */
  fills: readonly BatchFill[];
  makers: ReadonlyMap<string, MakerChange>;
  allowances: Allowances;
}

/** Each placed order as its caller is answered: its row as its placement left it, and its fills (as the taker). */
export type SettledOrders = Map<string, { row: Selectable<OrdersTable>; fills: ViewFill[] }>;

/** The ledger match of a fill. */
export const matchOf = (marketId: bigint, f: Fill): LedgerOperation => ({
  type: 'match',
  match: { maker: f.maker, taker: f.taker, marketId, side: f.side, kind: f.kind, shares: f.shares, priceBps: f.priceBps, fee: f.takerFee },
});

export async function settleFills(deps: SettleDeps, trx: Transaction<DB>, { market, placed, fills, makers, allowances }: SettleFillsParams): Promise<SettledOrders> {
  const now = deps.clock.now();
  const rows = await insertOrders(deps, trx, market, placed);
  // The market row is locked already (the batch checked it first).
  await applyFillsToMarket(trx, { chainId: deps.chainId, address: market.address }, fills.map((f) => f.fill), now);
  // Every fill is one ledger match, all written together (one balance check, in order).
  const { seqs } = fills.length > 0 ? await deps.ledger.submit(fills.map((f) => matchOf(market.marketId, f.fill)), { trx }) : { seqs: [] };
  const fillRows = await insertFills(deps, trx, market, fills, seqs);
  const makerAgents = await updateMakers(deps, trx, makers);
  const agentOf = (f: BatchFill) => f.makerAgent ?? makerAgents.get(f.fill.makerOrderId)!;

  const perAgent = new Map<string, number>();
  for (const f of fills) for (const a of [agentOf(f), f.takerAgent]) perAgent.set(a, (perAgent.get(a) ?? 0) + 1);
  await consumeFills(deps, trx, perAgent, allowances);

  // Each order's events in arrival order, as one transaction per order would have written them.
  const queue: PendingEvent[] = [];
  // Each fill is also a public market.trade (docs/events.md): no agent, no order, what the trades read shows.
  const trades: NewEvent[] = [];
  const settled: SettledOrders = new Map();
  let next = 0;
  for (const p of placed) {
    const { outcome, action, priceBps, shares, tif, postOnly } = p.order;
    emit(queue, p.agentId, p.orderId, 'accepted', { outcome, action, priceBps, shares: shares.toString(), tif, postOnly });
    const own = fillRows.slice(next, next + p.result.fills.length);
    for (const [i, row] of own.entries()) {
      const f = fills[next + i]!;
      const payload = { fillId: String(row.id), kind: MATCH_KIND_NAMES[f.fill.kind], outcome: f.fill.side, priceBps: f.fill.priceBps, shares: f.fill.shares.toString(), ledgerSeq: String(row.ledger_seq), final: false };
      emit(queue, agentOf(f), f.fill.makerOrderId, 'fill', { ...payload, role: 'maker', fee: '0', remaining: f.makerRemaining.toString() }, String(row.id));
      emit(queue, f.takerAgent, f.fill.takerOrderId, 'fill', { ...payload, role: 'taker', fee: f.fill.takerFee.toString() }, String(row.id));
      trades.push({
        type: 'market.trade',
        chainId: deps.chainId,
        marketAddress: market.address.toLowerCase(),
        // The taker's outcome, action and price, as GET /discover/markets/{address}/trades shows the fill.
        payload: { kind: 'orderbook', fillId: String(row.id), outcome, side: action, shares: baseUnitsOfShares(f.fill.shares).toString(), price: priceOfBps(takerPriceOf(f.fill.kind, f.fill.priceBps)) },
      });
    }
    next += p.result.fills.length;
    if (p.result.status !== 'filled' && p.result.status !== 'resting') {
      emit(queue, p.agentId, p.orderId, p.result.status, { reason: p.result.reason, cancelled: p.result.cancelled.toString() });
    }
    settled.set(p.orderId, { row: { ...rows.get(p.orderId)!, ...stateColumns(p, p.placedAs) }, fills: own });
  }
  await writeEvents(deps, trx, queue, trades);
  await enqueueFillLegs(trx, deps.chainId, fillRows.map((f) => String(f.id)));
  return settled;
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
async function insertOrders(deps: Pick<SettleDeps, 'clock' | 'chainId'>, trx: Transaction<DB>, market: OrderBookMarket, placed: readonly PlacedOrder[]): Promise<Map<string, Selectable<OrdersTable>>> {
  const now = deps.clock.now();
  const rows = placed.map(
    (p): Selectable<OrdersTable> => ({
      id: p.orderId,
      seq: p.seq.toString(),
      agent_id: p.agentId,
      owner: p.owner,
      chain_id: deps.chainId,
      market: market.address,
      market_id: market.marketId.toString(),
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
  if (rows.length === 0) return new Map();
  const values = rows.map(
    (r) =>
      sql`(${r.id}, ${r.seq}, ${r.agent_id}, ${r.owner}, ${r.chain_id}, ${r.market}, ${r.market_id}, ${r.outcome}, ${r.action}, ${r.price_bps}, ${r.shares}, ${r.remaining}, ${r.filled}, ${r.tif}, ${r.post_only}, ${r.status}, ${r.reason}, ${r.reserved}, ${r.created_at}, ${r.updated_at})`,
  );
  await sql`
    INSERT INTO orders (id, seq, agent_id, owner, chain_id, market, market_id, outcome, action, price_bps, shares, remaining, filled, tif, post_only, status, reason, reserved, created_at, updated_at)
    OVERRIDING SYSTEM VALUE VALUES ${sql.join(values)}`.execute(trx);
  return new Map(rows.map((r) => [r.id, r]));
}

/** Writes the fills, in order (their ids follow it); answers them as an order's view shows them (none is in a ledger batch yet). */
async function insertFills(deps: Pick<SettleDeps, 'clock'>, trx: Transaction<DB>, market: OrderBookMarket, fills: readonly BatchFill[], ledgerSeqs: readonly string[]): Promise<ViewFill[]> {
  if (fills.length === 0) return [];
  const rows = await trx
    .insertInto('order_fills')
    .values(
      fills.map(({ fill }, i) => ({
        market_id: market.marketId.toString(),
        market: market.address,
        maker_order: fill.makerOrderId,
        taker_order: fill.takerOrderId,
        maker: fill.maker,
        taker: fill.taker,
        side: fill.side,
        kind: fill.kind,
        price_bps: fill.priceBps,
        shares: fill.shares.toString(),
        taker_fee: fill.takerFee.toString(),
        ledger_seq: ledgerSeqs[i]!,
        created_at: deps.clock.now(),
      })),
    )
    .returning(['id', 'maker_order', 'taker_order', 'kind', 'side', 'price_bps', 'shares', 'taker_fee', 'ledger_seq', 'created_at'])
    .execute();
  // Written with the fills: the ledger batch holding them cannot be committed before this transaction is.
  return rows.map((r) => ({ ...r, batch_nonce: null, batch_status: null }));
}

/** Takes the batch's fills off the resting orders from before it (filled, remaining, what they still reserve); answers each one's agent. */
async function updateMakers(deps: Pick<SettleDeps, 'clock'>, trx: Transaction<DB>, makers: ReadonlyMap<string, MakerChange>): Promise<Map<string, string>> {
  if (makers.size === 0) return new Map();
  const values = [...makers].map(
    ([id, m]) => sql`(${id}::uuid, ${m.remaining.toString()}::numeric, ${m.filled.toString()}::numeric, ${reservationOf(m.action, m.priceBps, m.remaining).toString()}::numeric, ${m.remaining === 0n ? 'filled' : 'resting'}::text)`,
  );
  const { rows } = await sql<{ id: string; agent_id: string }>`
    UPDATE orders SET remaining = v.remaining, filled = orders.filled + v.filled, reserved = v.reserved, status = v.status, updated_at = ${deps.clock.now()}
    FROM (VALUES ${sql.join(values)}) AS v (id, remaining, filled, reserved, status)
    WHERE orders.id = v.id
    RETURNING orders.id, orders.agent_id`.execute(trx);
  if (rows.length !== makers.size) throw new Error(`order book: ${makers.size - rows.length} maker order(s) of the batch have no row`);
  return new Map(rows.map((r) => [r.id, r.agent_id]));
}

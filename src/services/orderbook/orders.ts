/**
 * The order loop of play-money ORDERBOOK markets (docs/orderbook.md): place, cancel, confirm a
 * cancellation, list order events. One in-memory OrderBook per market does the matching; every fill
 * becomes one ledger match operation in the same database transaction as the order rows, the fills,
 * the per-agent order events, the execution:report outbox events and the fill-allowance count.
 * Placements on one market are serialised; a failed transaction rebuilds that market's book from the
 * database, so memory never runs ahead of what was committed. A market the indexer voids has its resting
 * orders cancelled in the indexer's transaction (cancelMarketOrders) and its book dropped after it; so does a
 * market the lifecycle closes at its close time.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { fillMonth } from '../../core/fill-allowance.ts';
import { costOf } from '../../core/ledger/engine.ts';
import { COLLATERAL_ASSET, MATCH_KIND_NAMES, outcomeAsset, type Account } from '../../core/ledger/types.ts';
import { ORDERBOOK_FEES } from '../../core/markets/fees.ts';
import { isTradeable, type Controls, type MarketState } from '../../core/markets/states.ts';
import { OrderBook, takerFeeOf } from '../../core/orderbook/engine.ts';
import type { Fill, OrderAction, OrderInput, Outcome, RestingOrder, SubmitResult, TimeInForce } from '../../core/orderbook/types.ts';
import type { DB, OrderFillsTable, OrdersTable } from '../../db/schema.ts';
import type { z } from 'zod';
import type { Principal } from '../../core/principal.ts';
import type { OrderSchema } from '../../wire/orders.ts';
import { appendEvents } from '../events/outbox.ts';
import { applyFillsToMarket } from './market-stats.ts';
import type { EventBus } from '../events/bus.ts';
import { requireAgent } from '../identity/agents.ts';
import type { LedgerService } from '../ledger/ledger.ts';
import type { EndedMarket } from '../markets/ended-markets.ts';

export const ENGINE_CONFIG = { tickBps: ORDERBOOK_FEES.tickBps, minShares: BigInt(ORDERBOOK_FEES.minShares), takerFeeBps: ORDERBOOK_FEES.takerFeeBps };

/** A new order as the caller names it: the engine's order without what the service assigns, on `market`. */
export type PlaceOrderInput = Omit<OrderInput, 'id' | 'owner' | 'seq'> & { market: string };

/** An order as the order loop answers it (the catalog's Order schema). */
export type OrderView = z.output<typeof OrderSchema>;

/** One order event as listed: its per-agent seq, type and order, plus the type's fields. */
export interface OrderEvent {
  seq: string;
  type: string;
  orderId: string;
  at: string;
  [field: string]: unknown;
}

export interface OrderBookService {
  place(principal: Principal, input: PlaceOrderInput): Promise<OrderView>;
  cancel(principal: Principal, orderId: string): Promise<OrderView>;
  /** The cancelled order once it is final (every fill committed on chain); ORDER_CANCEL_PENDING before. */
  confirmCancel(principal: Principal, orderId: string): Promise<OrderView & { final: true }>;
  events(principal: Principal, after: bigint, limit: number): Promise<{ events: OrderEvent[]; nextAfter: string; hasMore: boolean }>;
  /** The live book of a market (levels on the outcome-0 axis). */
  depth(marketId: bigint, levels: number): Promise<ReturnType<OrderBook['depth']>>;
  /**
   * Inside the transaction that ends these markets (the indexer voiding them, the lifecycle closing them): cancels
   * each resting order with `reason`, releasing its reservation, with a `cancelled` order event and execution:report
   * for its owner. Fills already settled stay in the ledger. Returns how many were cancelled.
   */
  cancelMarketOrders(trx: Transaction<DB>, markets: readonly EndedMarket[], reason: typeof MARKET_VOID | typeof MARKET_CLOSED): Promise<number>;
  /** After that transaction committed: drops the markets' in-memory books (the next read rebuilds them, empty). */
  forgetBooks(markets: readonly EndedMarket[]): void;
}

/** The reason of orders cancelled because their market was voided (its creation reorged out). */
export const MARKET_VOID = 'MARKET_VOID';
/** The reason of orders cancelled because their market reached its close time. */
export const MARKET_CLOSED = 'MARKET_CLOSED';

/** Namespace of the per-owner placement lock (pg_advisory_xact_lock(namespace, hashtext(owner))). */
const ORDER_OWNER_LOCK = 0x0b0c;
/** A placement or cancel the database aborted as a deadlock or serialization failure is tried this many times in all. */
const PLACE_ATTEMPTS = 3;
const isRetryable = (err: unknown): boolean => ['40P01', '40001'].includes(String((err as { code?: unknown } | null)?.code));

/**
 * Runs `attempt` again when the database aborted it as a deadlock or serialization failure (a writer outside the
 * order loop's lock order, e.g. the indexer voiding a market, can meet it); after PLACE_ATTEMPTS in all, 503.
 */
async function retryingDeadlocks<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRetryable(err)) throw err;
      if (n >= PLACE_ATTEMPTS) throw problem('SERVICE_UNAVAILABLE', 'the order book is busy (the database broke a lock conflict several times); retry shortly', { cause: err, headers: { 'Retry-After': '1' } });
    }
  }
}

/** An order event waiting for the end of its transaction (writeEvents). */
interface PendingEvent {
  agentId: string;
  orderId: string;
  type: string;
  payload: Record<string, unknown>;
  fillId: string | null;
}

/** What an order reserves while it can still fill: collateral (buys: cost plus the most fee it could pay) or shares (sells). */
export function reservationOf(action: OrderAction, priceBps: number, remaining: bigint): bigint {
  if (action === 'sell') return remaining;
  return costOf(remaining, priceBps) + takerFeeOf(remaining, priceBps, ENGINE_CONFIG.takerFeeBps);
}

/** A fill as an order's view shows it: the fill row with the status of the ledger batch holding it (null: none yet). */
type ViewFill = Pick<Selectable<OrderFillsTable>, 'id' | 'maker_order' | 'taker_order' | 'kind' | 'side' | 'price_bps' | 'shares' | 'taker_fee' | 'ledger_seq' | 'created_at'> & {
  batch_nonce: string | null;
  batch_status: string | null;
};

/** The wire order: its row and its fills (oldest first), each from this order's side. */
function renderView(o: Selectable<OrdersTable>, fills: readonly ViewFill[]): OrderView {
  return {
    id: o.id,
    market: o.market,
    marketId: String(o.market_id),
    outcome: o.outcome as Outcome,
    action: o.action,
    priceBps: o.price_bps,
    shares: String(o.shares),
    filled: String(o.filled),
    remaining: String(o.remaining),
    tif: o.tif,
    postOnly: o.post_only,
    status: o.status,
    reason: o.reason,
    reserved: String(o.reserved),
    createdAt: o.created_at.toISOString(),
    fills: fills.map((f) => {
      const maker = f.maker_order === o.id;
      return {
        id: String(f.id),
        role: maker ? ('maker' as const) : ('taker' as const),
        counterpartyOrderId: maker ? f.taker_order : f.maker_order,
        kind: MATCH_KIND_NAMES[f.kind as 0 | 1 | 2 | 3],
        outcome: f.side as Outcome,
        priceBps: f.price_bps,
        shares: String(f.shares),
        fee: maker ? '0' : String(f.taker_fee),
        ledgerSeq: String(f.ledger_seq),
        final: f.batch_status === 'confirmed',
        batchNonce: f.batch_nonce === null ? null : String(f.batch_nonce),
        at: f.created_at.toISOString(),
      };
    }),
  };
}

export function createOrderBookService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  ledger: LedgerService;
  events: EventBus;
  chainId: number;
  fills: { enabled: boolean; freePerMonth: number };
}): OrderBookService {
  const { db, clock, ledger } = deps;
  const books = new Map<string, OrderBook>();
  const queues = new Map<string, Promise<unknown>>();
  // One load of a market's book at a time, shared by everyone who asks meanwhile (depth reads too), and only
  // the latest load is cached: a load started before a rebuild or a drop never overwrites what came after.
  const loads = new Map<string, Promise<OrderBook>>();

  /** Rebuilds a market's book from its resting orders (replacing whatever is cached). */
  const loadBook = (marketId: bigint): Promise<OrderBook> => {
    const key = marketId.toString();
    books.delete(key);
    const load = (async () => {
      const book = new OrderBook(ENGINE_CONFIG);
      const rows = await db.selectFrom('orders').selectAll().where('market_id', '=', key).where('status', '=', 'resting').orderBy('seq').execute();
      book.restore(rows.map(toResting));
      return book;
    })();
    loads.set(key, load);
    const settle = (book: OrderBook | null) => {
      if (loads.get(key) !== load) return;
      loads.delete(key);
      if (book) books.set(key, book);
    };
    load.then(settle, () => settle(null));
    return load;
  };
  const bookOf = (marketId: bigint): Promise<OrderBook> => {
    const key = marketId.toString();
    const cached = books.get(key);
    return cached ? Promise.resolve(cached) : (loads.get(key) ?? loadBook(marketId));
  };

  /** Runs placements and cancels of one market one at a time. */
  const serial = <T>(marketId: bigint, fn: () => Promise<T>): Promise<T> => {
    const key = marketId.toString();
    const next = (queues.get(key) ?? Promise.resolve()).then(fn, fn);
    queues.set(key, next.catch(() => undefined));
    return next;
  };

  const walletOf = async (principal: Principal) => {
    const agent = await requireAgent(db, principal);
    if (!agent.wallet_address) throw problem('WALLET_NOT_BOUND', 'order-book trading settles in the ledger under your wallet: bind one (POST /agents/me/bind-wallet)');
    return { agentId: agent.id, owner: agent.wallet_address.toLowerCase() as Account, paidFills: agent.paid_fills_remaining };
  };

  const marketOf = async (address: string) => {
    const m = await db
      .selectFrom('markets')
      .select(['address', 'ledger_market_id', 'pricing_model', 'state', 'controls', 'close_time'])
      .where('chain_id', '=', deps.chainId)
      .where('address', '=', address.toLowerCase())
      .executeTakeFirst();
    if (!m || m.pricing_model !== 'ORDERBOOK' || m.ledger_market_id === null) throw problem('MARKET_NOT_FOUND', `no order-book market ${address} on chain ${deps.chainId}`);
    return { address: m.address, marketId: BigInt(m.ledger_market_id), open: tradeable(m) };
  };
  const tradeable = (m: { state: string; controls: unknown; close_time: Date }) => {
    const controls = (typeof m.controls === 'string' ? JSON.parse(m.controls) : m.controls) as Controls;
    return isTradeable(m.state as MarketState, controls, m.close_time, clock.now());
  };
  const notTradeable = (address: string) => problem('MARKET_NOT_TRADEABLE', `market ${address} does not take orders now (closed, halted, resolving or void)`);

  const freeRemaining = async (trx: Transaction<DB>, agentId: string): Promise<number> => {
    const row = await trx.selectFrom('fill_usage').select('free_used').where('agent_id', '=', agentId).where('month', '=', fillMonth(clock.now())).executeTakeFirst();
    return Math.max(0, deps.fills.freePerMonth - (row?.free_used ?? 0));
  };

  /**
   * The fills of one order off their owners' allowances (each fill counts once for each owner): this month's
   * free fills first, then purchased ones (never below zero). One read and at most two writes per owner, the
   * owners in agent-id order (a fixed lock order).
   */
  const consumeFills = async (trx: Transaction<DB>, perAgent: ReadonlyMap<string, number>): Promise<void> => {
    if (!deps.fills.enabled) return;
    for (const agentId of [...perAgent.keys()].sort()) {
      const n = perAgent.get(agentId)!;
      const free = Math.min(n, await freeRemaining(trx, agentId));
      if (free > 0) {
        await trx
          .insertInto('fill_usage')
          .values({ agent_id: agentId, month: fillMonth(clock.now()), free_used: free })
          .onConflict((oc) => oc.columns(['agent_id', 'month']).doUpdateSet({ free_used: sql`fill_usage.free_used + ${free}` }))
          .execute();
      }
      if (n > free) await trx.updateTable('agents').set({ paid_fills_remaining: sql`greatest(paid_fills_remaining - ${n - free}, 0)` }).where('id', '=', agentId).execute();
    }
  };

  /** Queues an order event for the agent; the transaction writes its queue at the end (writeEvents). */
  const emit = (queue: PendingEvent[], agentId: string, orderId: string, type: string, payload: Record<string, unknown>, fillId: string | null = null) => {
    queue.push({ agentId, orderId, type, payload, fillId });
  };

  /**
   * Writes a transaction's order events, each in its agent's gap-free sequence, and their execution:report
   * outbox events. The rows that serialise writers are locked last and in one order — the agents' cursors
   * sorted by agent id, then the outbox counter — so concurrent placements on different markets wait for each
   * other instead of deadlocking.
   */
  const writeEvents = async (trx: Transaction<DB>, queue: readonly PendingEvent[]) => {
    if (queue.length === 0) return;
    const counts = new Map<string, number>();
    for (const e of queue) counts.set(e.agentId, (counts.get(e.agentId) ?? 0) + 1);
    const next = new Map<string, bigint>();
    for (const agentId of [...counts.keys()].sort()) {
      const n = counts.get(agentId)!;
      const row = await trx
        .insertInto('order_event_cursors')
        .values({ agent_id: agentId, last_seq: String(n) })
        .onConflict((oc) => oc.column('agent_id').doUpdateSet({ last_seq: sql`order_event_cursors.last_seq + ${n}` }))
        .returning('last_seq')
        .executeTakeFirstOrThrow();
      next.set(agentId, BigInt(row.last_seq) - BigInt(n) + 1n);
    }
    const now = clock.now();
    const written = queue.map((e) => {
      const seq = next.get(e.agentId)!;
      next.set(e.agentId, seq + 1n);
      return { e, seq, body: { seq: seq.toString(), type: e.type, orderId: e.orderId, ...e.payload } };
    });
    await trx
      .insertInto('order_events')
      .values(written.map(({ e, seq, body }) => ({ agent_id: e.agentId, seq: seq.toString(), order_id: e.orderId, type: e.type, fill_id: e.fillId, payload: JSON.stringify(body), created_at: now })))
      .execute();
    await appendEvents(trx, clock, written.map(({ e, body }) => ({ type: 'execution:report', chainId: deps.chainId, agentId: e.agentId, payload: body })));
  };

  /** Cancels a resting order: no reservation left, and its owner's `cancelled` event (the remainder it took off the book). */
  const writeCancelled = async (trx: Transaction<DB>, queue: PendingEvent[], order: { id: string; agentId: string }, reason: string, cancelled: bigint) => {
    await trx.updateTable('orders').set({ status: 'cancelled', reason, reserved: '0', updated_at: clock.now() }).where('id', '=', order.id).execute();
    emit(queue, order.agentId, order.id, 'cancelled', { reason, cancelled: cancelled.toString() });
  };

  const agentOfOrder = async (trx: Transaction<DB>, orderId: string) => (await trx.selectFrom('orders').select(['agent_id', 'action', 'price_bps', 'remaining', 'filled']).where('id', '=', orderId).executeTakeFirstOrThrow());

  /** Records one fill whose ledger match was written as operation `ledgerSeq`. */
  const recordFill = async (trx: Transaction<DB>, queue: PendingEvent[], market: { address: string; marketId: bigint }, fill: Fill, ledgerSeq: string, takerAgent: string): Promise<{ fill: ViewFill; makerAgent: string }> => {
    const row = await trx
      .insertInto('order_fills')
      .values({
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
        ledger_seq: ledgerSeq,
        created_at: clock.now(),
      })
      .returning(['id', 'maker_order', 'taker_order', 'kind', 'side', 'price_bps', 'shares', 'taker_fee', 'ledger_seq', 'created_at'])
      .executeTakeFirstOrThrow();
    const maker = await agentOfOrder(trx, fill.makerOrderId);
    const remaining = BigInt(maker.remaining) - fill.shares;
    await trx
      .updateTable('orders')
      .set({
        remaining: remaining.toString(),
        filled: (BigInt(maker.filled) + fill.shares).toString(),
        reserved: reservationOf(maker.action, maker.price_bps, remaining).toString(),
        status: remaining === 0n ? 'filled' : 'resting',
        updated_at: clock.now(),
      })
      .where('id', '=', fill.makerOrderId)
      .execute();
    const fillPayload = { fillId: String(row.id), kind: MATCH_KIND_NAMES[fill.kind], outcome: fill.side, priceBps: fill.priceBps, shares: fill.shares.toString(), ledgerSeq, final: false };
    emit(queue, maker.agent_id, fill.makerOrderId, 'fill', { ...fillPayload, role: 'maker', fee: '0', remaining: remaining.toString() }, String(row.id));
    emit(queue, takerAgent, fill.takerOrderId, 'fill', { ...fillPayload, role: 'taker', fee: fill.takerFee.toString() }, String(row.id));
    // Written with the fills: the ledger batch holding them cannot be committed before this transaction is.
    return { fill: { ...row, batch_nonce: null, batch_status: null }, makerAgent: maker.agent_id };
  };

  /** The caller's available balance of an asset: ledger balance minus what its resting orders reserve (one statement). */
  const available = async (trx: Transaction<DB>, owner: Account, asset: { id: bigint; marketId?: bigint; outcome?: Outcome }): Promise<bigint> => {
    // Buys reserve collateral; sells reserve shares of their market's outcome.
    const reserving = asset.marketId === undefined ? sql`action = 'buy'` : sql`action = 'sell' AND market_id = ${asset.marketId.toString()} AND outcome = ${asset.outcome}`;
    const row = await sql<{ available: string }>`
      SELECT (coalesce((SELECT balance FROM ledger_balances WHERE account = ${owner} AND asset_id = ${asset.id.toString()}::numeric), 0)
        - coalesce((SELECT sum(reserved) FROM orders WHERE owner = ${owner} AND status = 'resting' AND ${reserving}), 0))::text AS available`.execute(trx);
    return BigInt(row.rows[0]!.available);
  };

  const view = async (executor: Kysely<DB> | Transaction<DB>, orderId: string): Promise<OrderView> => {
    const o = await executor.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    const fills = await executor
      .selectFrom('order_fills as f')
      .innerJoin('ledger_operations as op', 'op.seq', 'f.ledger_seq')
      .leftJoin('ledger_batches as b', 'b.nonce', 'op.batch_nonce')
      .select(['f.id', 'f.maker_order', 'f.taker_order', 'f.kind', 'f.side', 'f.price_bps', 'f.shares', 'f.taker_fee', 'f.ledger_seq', 'f.created_at', 'op.batch_nonce', 'b.status as batch_status'])
      .where((eb) => eb.or([eb('f.maker_order', '=', orderId), eb('f.taker_order', '=', orderId)]))
      .orderBy('f.id')
      .execute();
    return renderView(o, fills);
  };

  const ownOrder = async (principal: Principal, orderId: string) => {
    if (!/^[0-9a-f-]{36}$/i.test(orderId)) throw problem('ORDER_NOT_FOUND', `no order ${orderId}`);
    const { agentId } = await walletOf(principal);
    const o = await db.selectFrom('orders').select(['id', 'agent_id', 'market_id', 'status']).where('id', '=', orderId).executeTakeFirst();
    if (!o || o.agent_id !== agentId) throw problem('ORDER_NOT_FOUND', `no order ${orderId} of this agent`);
    return { ...o, marketId: BigInt(o.market_id) };
  };

  return {
    async place(principal, input) {
      const { agentId, owner, paidFills } = await walletOf(principal);
      const market = await marketOf(input.market);
      if (!market.open) throw notTradeable(market.address);
      if (input.priceBps % ENGINE_CONFIG.tickBps !== 0 || input.priceBps < ENGINE_CONFIG.tickBps || input.priceBps > 10_000 - ENGINE_CONFIG.tickBps) {
        throw problem('INVALID_PAYLOAD', `priceBps must be a multiple of the ${ENGINE_CONFIG.tickBps}-bps tick between ${ENGINE_CONFIG.tickBps} and ${10_000 - ENGINE_CONFIG.tickBps}`);
      }
      if (input.shares < ENGINE_CONFIG.minShares) throw problem('INVALID_PAYLOAD', `shares must be at least ${ENGINE_CONFIG.minShares}`);

      return serial(market.marketId, async () => {
        const orderId = randomUUID();
        return retryingDeadlocks(async () => {
          const book = await bookOf(market.marketId);
          let result: SubmitResult | undefined;
          let order: Selectable<OrdersTable> | undefined;
          const fills: ViewFill[] = [];
          try {
            await db.transaction().execute(async (trx) => {
              const queue: PendingEvent[] = [];
              // One placement of an owner at a time, whatever the market: what it may reserve depends on its others.
              await sql`SELECT pg_advisory_xact_lock(${ORDER_OWNER_LOCK}, hashtext(${owner}))`.execute(trx);
              // Again under the row lock (the fills update this row anyway): the indexer voids a market, and cancels its
              // orders, in a transaction of its own, so an order cannot land between the void and the cancellations.
              const now = await trx.selectFrom('markets').select(['state', 'controls', 'close_time']).where('chain_id', '=', deps.chainId).where('address', '=', market.address).forUpdate().executeTakeFirstOrThrow();
              if (!tradeable(now)) throw notTradeable(market.address);
              if (deps.fills.enabled && (await freeRemaining(trx, agentId)) + paidFills <= 0) {
                throw problem('FILL_ALLOWANCE_EXHAUSTED', 'no fills remain this month: resting orders keep filling and cancels are always accepted; buy a fill pack or wait for the monthly reset (GET /me fills.resetsOn)');
              }
              const asset = input.action === 'buy' ? { id: COLLATERAL_ASSET } : { id: outcomeAsset(market.marketId, input.outcome), marketId: market.marketId, outcome: input.outcome };
              const need = reservationOf(input.action, input.priceBps, input.shares);
              const have = await available(trx, owner, asset);
              if (have < need) {
                throw problem('INSUFFICIENT_BALANCE', `this order needs ${need} of ledger asset ${asset.id} available; you have ${have} (balance minus what your resting orders reserve)`, {
                  extensions: { assetId: asset.id.toString(), required: need.toString(), available: have.toString() },
                });
              }
              const inserted = await trx
                .insertInto('orders')
                .values({
                  id: orderId,
                  agent_id: agentId,
                  owner,
                  chain_id: deps.chainId,
                  market: market.address,
                  market_id: market.marketId.toString(),
                  outcome: input.outcome,
                  action: input.action,
                  price_bps: input.priceBps,
                  shares: input.shares.toString(),
                  remaining: input.shares.toString(),
                  tif: input.tif,
                  post_only: input.postOnly,
                  status: 'resting',
                  created_at: clock.now(),
                  updated_at: clock.now(),
                })
                .returning('seq')
                .executeTakeFirstOrThrow();
              emit(queue, agentId, orderId, 'accepted', { outcome: input.outcome, action: input.action, priceBps: input.priceBps, shares: input.shares.toString(), tif: input.tif, postOnly: input.postOnly });
              result = book.submit({ id: orderId, owner, outcome: input.outcome, action: input.action, priceBps: input.priceBps, shares: input.shares, tif: input.tif, postOnly: input.postOnly, seq: BigInt(inserted.seq) });
              // Every fill of the order is one ledger match, written together (one balance check, in order).
              const matches = result.fills.map((f) => ({ type: 'match' as const, match: { maker: f.maker, taker: f.taker, marketId: market.marketId, side: f.side, kind: f.kind, shares: f.shares, priceBps: f.priceBps, fee: f.takerFee } }));
              const { seqs } = matches.length > 0 ? await ledger.submit(matches, { trx }) : { seqs: [] };
              const perAgent = new Map<string, number>();
              for (const [i, fill] of result.fills.entries()) {
                const recorded = await recordFill(trx, queue, market, fill, seqs[i]!, agentId);
                fills.push(recorded.fill);
                for (const a of [recorded.makerAgent, agentId]) perAgent.set(a, (perAgent.get(a) ?? 0) + 1);
              }
              await consumeFills(trx, perAgent);
              await applyFillsToMarket(trx, { chainId: deps.chainId, address: market.address }, result.fills, clock.now());
              const filled = result.fills.reduce((n, f) => n + f.shares, 0n);
              const remaining = result.resting?.remaining ?? 0n;
              order = await trx
                .updateTable('orders')
                .set({
                  filled: filled.toString(),
                  remaining: remaining.toString(),
                  reserved: reservationOf(input.action, input.priceBps, remaining).toString(),
                  status: result.status === 'filled' ? 'filled' : result.status === 'resting' ? 'resting' : result.status,
                  reason: result.reason,
                  updated_at: clock.now(),
                })
                .where('id', '=', orderId)
                .returningAll()
                .executeTakeFirstOrThrow();
              if (result.status !== 'filled' && result.status !== 'resting') {
                emit(queue, agentId, orderId, result.status, { reason: result.reason, cancelled: result.cancelled.toString() });
              }
              await writeEvents(trx, queue);
            });
          } catch (err) {
            // The book may have matched in memory what the database did not keep: rebuild it from the rows.
            // (A failed reload leaves nothing cached: the next call loads again.)
            if (result) await loadBook(market.marketId).catch(() => undefined);
            throw err;
          }
          deps.events.notify();
          // The answer is what the transaction wrote (no fill of it can be in a committed batch yet).
          return renderView(order!, fills);
        });
      });
    },

    async cancel(principal, orderId) {
      const o = await ownOrder(principal, orderId);
      return serial(o.marketId, () =>
        retryingDeadlocks(async () => {
          const book = await bookOf(o.marketId);
          let touched = false;
          try {
            await db.transaction().execute(async (trx) => {
              const queue: PendingEvent[] = [];
              const row = await trx.selectFrom('orders').select(['status']).where('id', '=', orderId).forUpdate().executeTakeFirstOrThrow();
              // Always accepted: an order with nothing left to cancel just records the request.
              await trx.updateTable('orders').set({ cancel_requested_at: clock.now(), updated_at: clock.now() }).where('id', '=', orderId).where('cancel_requested_at', 'is', null).execute();
              if (row.status !== 'resting') return;
              touched = true;
              const removed = book.cancel(orderId);
              await writeCancelled(trx, queue, { id: orderId, agentId: o.agent_id }, 'CANCELLED_BY_OWNER', removed?.remaining ?? 0n);
              await writeEvents(trx, queue);
            });
          } catch (err) {
            // The order left the book in memory but not in the database: rebuild the book from the rows.
            if (touched) await loadBook(o.marketId).catch(() => undefined);
            throw err;
          }
          deps.events.notify();
          return view(db, orderId);
        }),
      );
    },

    async confirmCancel(principal, orderId) {
      await ownOrder(principal, orderId);
      const v = await view(db, orderId);
      if (v.status === 'resting') throw problem('ORDER_CANCEL_PENDING', 'the order still rests: cancel it first (POST /orderbook/cancel-order)');
      const pending = v.fills.filter((f) => !f.final);
      if (pending.length > 0) {
        throw problem('ORDER_CANCEL_PENDING', `${pending.length} fill(s) of this order are not in a ledger batch committed on chain yet; retry after the next batch`, {
          extensions: { pendingFills: pending.map((f) => f.id) },
          headers: { 'Retry-After': '5' },
        });
      }
      return { ...v, final: true as const };
    },

    async events(principal, after, limit) {
      const { agentId } = await walletOf(principal);
      const rows = await db
        .selectFrom('order_events as e')
        .leftJoin('order_fills as f', 'f.id', 'e.fill_id')
        .leftJoin('ledger_operations as op', 'op.seq', 'f.ledger_seq')
        .leftJoin('ledger_batches as b', 'b.nonce', 'op.batch_nonce')
        .select(['e.seq', 'e.payload', 'e.created_at', 'b.status as batch_status', 'op.batch_nonce'])
        .where('e.agent_id', '=', agentId)
        .where('e.seq', '>', after.toString())
        .orderBy('e.seq')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit);
      return {
        events: page.map((r) => {
          const body = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { seq: string; type: string; orderId: string; [field: string]: unknown };
          return body.type === 'fill' ? { ...body, final: r.batch_status === 'confirmed', batchNonce: r.batch_nonce === null ? null : String(r.batch_nonce), at: r.created_at.toISOString() } : { ...body, at: r.created_at.toISOString() };
        }),
        nextAfter: page.length > 0 ? String(page[page.length - 1]!.seq) : after.toString(),
        hasMore: rows.length > limit,
      };
    },

    // In the market's queue: a placement's match is shown once its transaction has committed, never before.
    depth: (marketId, levels) => serial(marketId, async () => (await bookOf(marketId)).depth(levels)),

    async cancelMarketOrders(trx, markets, reason) {
      const ids = markets.flatMap((m) => (m.ledgerMarketId === null ? [] : [m.ledgerMarketId.toString()]));
      if (ids.length === 0) return 0;
      const resting = await trx
        .selectFrom('orders')
        .select(['id', 'agent_id', 'remaining'])
        .where('chain_id', '=', deps.chainId)
        .where('market_id', 'in', ids)
        .where('status', '=', 'resting')
        .orderBy('seq')
        .forUpdate()
        .execute();
      const queue: PendingEvent[] = [];
      for (const r of resting) await writeCancelled(trx, queue, { id: r.id, agentId: r.agent_id }, reason, BigInt(r.remaining));
      await writeEvents(trx, queue);
      return resting.length;
    },

    forgetBooks(markets) {
      for (const m of markets) {
        if (m.ledgerMarketId === null) continue;
        const key = m.ledgerMarketId.toString();
        loads.delete(key);
        books.delete(key);
      }
    },
  };
}

function toResting(r: { id: string; owner: string; outcome: number; action: 'buy' | 'sell'; price_bps: number; shares: string; remaining: string; tif: TimeInForce; post_only: boolean; seq: string }): RestingOrder {
  return {
    id: r.id,
    owner: r.owner as Account,
    outcome: r.outcome as Outcome,
    action: r.action,
    priceBps: r.price_bps,
    shares: BigInt(r.shares),
    remaining: BigInt(r.remaining),
    tif: r.tif,
    postOnly: r.post_only,
    seq: BigInt(r.seq),
  };
}

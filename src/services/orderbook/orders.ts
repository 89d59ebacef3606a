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
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { fillMonth } from '../../core/fill-allowance.ts';
import { costOf } from '../../core/ledger/engine.ts';
import { COLLATERAL_ASSET, MATCH_KIND_NAMES, outcomeAsset, type Account } from '../../core/ledger/types.ts';
import { ORDERBOOK_FEES } from '../../core/markets/fees.ts';
import { isTradeable, type Controls, type MarketState } from '../../core/markets/states.ts';
import { OrderBook, takerFeeOf } from '../../core/orderbook/engine.ts';
import type { Fill, OrderAction, Outcome, RestingOrder, SubmitResult, TimeInForce } from '../../core/orderbook/types.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../api/catalog/types.ts';
import { appendEvents } from '../events/outbox.ts';
import { applyFillsToMarket } from './market-stats.ts';
import type { EventBus } from '../events/bus.ts';
import { requireAgent } from '../identity/agents.ts';
import type { LedgerService } from '../ledger/ledger.ts';
import type { EndedMarket } from '../markets/ended-markets.ts';

export const ENGINE_CONFIG = { tickBps: ORDERBOOK_FEES.tickBps, minShares: BigInt(ORDERBOOK_FEES.minShares), takerFeeBps: ORDERBOOK_FEES.takerFeeBps };

export interface PlaceOrderInput {
  market: string;
  outcome: Outcome;
  action: OrderAction;
  priceBps: number;
  shares: bigint;
  tif: TimeInForce;
  postOnly: boolean;
}

export interface OrderView {
  id: string;
  market: string;
  marketId: string;
  outcome: Outcome;
  action: OrderAction;
  priceBps: number;
  shares: string;
  filled: string;
  remaining: string;
  tif: TimeInForce;
  postOnly: boolean;
  status: 'resting' | 'filled' | 'cancelled' | 'rejected';
  reason: string | null;
  reserved: string;
  createdAt: string;
  fills: FillView[];
}

export interface FillView {
  id: string;
  role: 'maker' | 'taker';
  counterpartyOrderId: string;
  kind: 'TRANSFER' | 'MINT' | 'MERGE' | 'TAKER_SELLS';
  outcome: Outcome;
  priceBps: number;
  shares: string;
  fee: string;
  ledgerSeq: string;
  /** True once the fill's ledger batch is committed on chain (canonical matched-settlement truth). */
  final: boolean;
  batchNonce: string | null;
  at: string;
}

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
/** A placement the database aborted as a deadlock or serialization failure is tried this many times in all. */
const PLACE_ATTEMPTS = 3;
const isRetryable = (err: unknown): boolean => ['40P01', '40001'].includes(String((err as { code?: unknown } | null)?.code));

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
  // Bumped when a book is dropped: a load that read the rows before the drop must not cache what it read.
  const generations = new Map<string, number>();

  const loadBook = async (marketId: bigint): Promise<OrderBook> => {
    const key = marketId.toString();
    const generation = generations.get(key) ?? 0;
    const book = new OrderBook(ENGINE_CONFIG);
    const rows = await db.selectFrom('orders').selectAll().where('market_id', '=', key).where('status', '=', 'resting').orderBy('seq').execute();
    book.restore(rows.map(toResting));
    if ((generations.get(key) ?? 0) === generation) books.set(key, book);
    return book;
  };
  const bookOf = async (marketId: bigint) => books.get(marketId.toString()) ?? loadBook(marketId);

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

  /** One fill off an agent's allowance: free fills of this month first, then purchased ones (never below zero). */
  const consumeFill = async (trx: Transaction<DB>, agentId: string): Promise<void> => {
    if (!deps.fills.enabled) return;
    if ((await freeRemaining(trx, agentId)) > 0) {
      await trx
        .insertInto('fill_usage')
        .values({ agent_id: agentId, month: fillMonth(clock.now()), free_used: 1 })
        .onConflict((oc) => oc.columns(['agent_id', 'month']).doUpdateSet({ free_used: sql`fill_usage.free_used + 1` }))
        .execute();
      return;
    }
    await trx.updateTable('agents').set({ paid_fills_remaining: sql`greatest(paid_fills_remaining - 1, 0)` }).where('id', '=', agentId).execute();
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
  const recordFill = async (trx: Transaction<DB>, queue: PendingEvent[], market: { address: string; marketId: bigint }, fill: Fill, ledgerSeq: string, takerAgent: string): Promise<void> => {
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
      .returning('id')
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
    await consumeFill(trx, maker.agent_id);
    await consumeFill(trx, takerAgent);
  };

  /** The caller's available balance of an asset: ledger balance minus what its resting orders reserve. */
  const available = async (trx: Transaction<DB>, owner: Account, assetId: bigint): Promise<bigint> => {
    const bal = await trx.selectFrom('ledger_balances').select('balance').where('account', '=', owner).where('asset_id', '=', assetId.toString()).executeTakeFirst();
    const reservedRows = await trx
      .selectFrom('orders')
      .select(['action', 'outcome', 'market_id', 'reserved'])
      .where('owner', '=', owner)
      .where('status', '=', 'resting')
      .execute();
    let reserved = 0n;
    for (const r of reservedRows) {
      const asset = r.action === 'buy' ? COLLATERAL_ASSET : outcomeAsset(BigInt(r.market_id), r.outcome as Outcome);
      if (asset === assetId) reserved += BigInt(r.reserved);
    }
    return BigInt(bal?.balance ?? '0') - reserved;
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
        const maker = f.maker_order === orderId;
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
        for (let attempt = 1; ; attempt++) {
          const book = await bookOf(market.marketId);
          let result: SubmitResult | undefined;
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
              const asset = input.action === 'buy' ? COLLATERAL_ASSET : outcomeAsset(market.marketId, input.outcome);
              const need = reservationOf(input.action, input.priceBps, input.shares);
              const have = await available(trx, owner, asset);
              if (have < need) {
                throw problem('INSUFFICIENT_BALANCE', `this order needs ${need} of ledger asset ${asset} available; you have ${have} (balance minus what your resting orders reserve)`, {
                  extensions: { assetId: asset.toString(), required: need.toString(), available: have.toString() },
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
              for (const [i, fill] of result.fills.entries()) await recordFill(trx, queue, market, fill, seqs[i]!, agentId);
              await applyFillsToMarket(trx, { chainId: deps.chainId, address: market.address }, result.fills, clock.now());
              const filled = result.fills.reduce((n, f) => n + f.shares, 0n);
              const remaining = result.resting?.remaining ?? 0n;
              await trx
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
                .execute();
              if (result.status !== 'filled' && result.status !== 'resting') {
                emit(queue, agentId, orderId, result.status, { reason: result.reason, cancelled: result.cancelled.toString() });
              }
              await writeEvents(trx, queue);
            });
          } catch (err) {
            // The book may have matched in memory what the database did not keep: rebuild it from the rows.
            if (result) await loadBook(market.marketId);
            // A deadlock the database broke (another writer of the outbox, e.g. the indexer voiding a market) is retried.
            if (isRetryable(err) && attempt < PLACE_ATTEMPTS) continue;
            throw err;
          }
          deps.events.notify();
          return view(db, orderId);
        }
      });
    },

    async cancel(principal, orderId) {
      const o = await ownOrder(principal, orderId);
      return serial(o.marketId, async () => {
        const book = await bookOf(o.marketId);
        await db.transaction().execute(async (trx) => {
          const queue: PendingEvent[] = [];
          const row = await trx.selectFrom('orders').select(['status']).where('id', '=', orderId).forUpdate().executeTakeFirstOrThrow();
          // Always accepted: an order with nothing left to cancel just records the request.
          await trx.updateTable('orders').set({ cancel_requested_at: clock.now(), updated_at: clock.now() }).where('id', '=', orderId).where('cancel_requested_at', 'is', null).execute();
          if (row.status !== 'resting') return;
          const removed = book.cancel(orderId);
          await writeCancelled(trx, queue, { id: orderId, agentId: o.agent_id }, 'CANCELLED_BY_OWNER', removed?.remaining ?? 0n);
          await writeEvents(trx, queue);
        });
        deps.events.notify();
        return view(db, orderId);
      });
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

    depth: async (marketId, levels) => (await bookOf(marketId)).depth(levels),

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
        generations.set(key, (generations.get(key) ?? 0) + 1);
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

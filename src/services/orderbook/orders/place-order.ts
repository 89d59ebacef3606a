/**
 * Places an order (POST /orderbook/place-order): the market's book matches it in memory, and the order row, its
 * fills settled in the ledger and every owner's order events are written in one transaction, in the lock order of
 * docs/orderbook.md "Concurrency". Placements on one market run one at a time.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { Principal } from '../../../core/principal.ts';
import type { SubmitResult } from '../../../core/orderbook/types.ts';
import { baseUnitsOfShares, bpsOfPrice, priceOfBps, sharesOfBaseUnits } from '../../../core/orderbook/units.ts';
import type { DB, OrdersTable } from '../../../db/schema.ts';
import { requireFillLeft, type FillAllowanceError } from './allowance.ts';
import type { BookChanges, MarketBooks } from './books.ts';
import { lockOwner, retryingDeadlocks, type BusyError } from './locks.ts';
import { emit, writeEvents, type PendingEvent } from './order-events.ts';
import { renderView, type ViewFill } from './order-view.ts';
import { requireAvailable, reservationOf, type InsufficientBalanceError } from './reservations.ts';
import { settleFills } from './settle-fills.ts';
import { lockOpenMarket, openMarketOf, type MarketError, type OrderBookMarket } from './tradeable-market.ts';
import { walletOf, type Trader, type TraderError } from './trader.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import { ENGINE_CONFIG, type OrderBookDeps, type OrderLoopError, type OrderTerms, type OrderView, type PlaceOrderInput } from './types.ts';

export type PlaceOrderDeps = OrderBookDeps & { books: MarketBooks };
export interface PlaceOrderParams {
  principal: Principal;
  order: PlaceOrderInput;
  /** Under an Idempotency-Key: records the placement (by order id) in its own transaction, exactly once. */
  recordEffect?: EffectRecorder;
}
/** The order with its fills so far, as the transaction wrote them. */
export type PlaceOrderResult = OrderView;
export type PlaceOrderError = TraderError | MarketError | OrderLoopError<'INVALID_PAYLOAD'> | FillAllowanceError | InsufficientBalanceError | BusyError;

/** What one attempt places: the order (its id kept across attempts, its terms in the engine's units) by the trader on the market. */
interface Placement {
  orderId: string;
  trader: Trader;
  market: OrderBookMarket;
  order: OrderTerms;
  recordEffect?: EffectRecorder;
}

export async function placeOrder(deps: PlaceOrderDeps, { principal, order, recordEffect }: PlaceOrderParams): Promise<PlaceOrderResult> {
  const terms = termsOf(order);
  const trader = await walletOf(deps, principal);
  const market = await openMarketOf(deps, order.market);
  return deps.books.serial(market.marketId, async () => {
    const placement: Placement = { orderId: randomUUID(), trader, market, order: terms, recordEffect };
    return retryingDeadlocks(async () => {
      const placed = await deps.books.changing(market.marketId, (book) => deps.db.transaction().execute((trx) => placeInTransaction(deps, trx, book, placement)));
      deps.events.notify();
      // The answer is what the transaction wrote (no fill of it can be in a committed batch yet).
      return renderView(placed.order, placed.fills);
    });
  });
}

/**
 * The order's terms in the engine's units (basis points, whole shares). A price off the tick or out of range, or a
 * size that is not a whole number of shares or below the minimum, is a 400 that says what is allowed (the engine
 * would refuse it with a RangeError).
 */
function termsOf(order: PlaceOrderInput): OrderTerms {
  const { tickBps, minShares } = ENGINE_CONFIG;
  const { price, shares } = order;
  const priceBps = bpsOfPrice(price);
  if (priceBps === null || priceBps % tickBps !== 0 || priceBps < tickBps || priceBps > 10_000 - tickBps) {
    throw problem('INVALID_PAYLOAD', `price must be a decimal on the ${priceOfBps(tickBps)} tick between ${priceOfBps(tickBps)} and ${priceOfBps(10_000 - tickBps)}, e.g. "0.57"; got "${price}"`);
  }
  const whole = sharesOfBaseUnits(shares);
  if (whole === null || whole < minShares) {
    throw problem('INVALID_PAYLOAD', `shares are base units, a whole number of shares (one share = ${baseUnitsOfShares(1n)}) of at least ${baseUnitsOfShares(minShares)}; got ${shares}`);
  }
  return { outcome: order.outcome, action: order.action, priceBps, shares: whole, tif: order.tif, postOnly: order.postOnly };
}

/** The placement's transaction, its locks in the fixed order: owner, market row, ledger, makers' rows, allowances, events. */
async function placeInTransaction(deps: OrderBookDeps, trx: Transaction<DB>, book: BookChanges, p: Placement): Promise<{ order: Selectable<OrdersTable>; fills: ViewFill[] }> {
  const queue: PendingEvent[] = [];
  await lockOwner(trx, p.trader.owner);
  await lockOpenMarket(deps, trx, p.market.address);
  await requireFillLeft(deps, trx, p.trader);
  await requireAvailable(trx, p.trader.owner, p.market.marketId, p.order);
  const seq = await insertOrder(deps, trx, p);
  await p.recordEffect?.(trx, p.orderId);
  const { outcome, action, priceBps, shares, tif, postOnly } = p.order;
  emit(queue, p.trader.agentId, p.orderId, 'accepted', { outcome, action, priceBps, shares: shares.toString(), tif, postOnly });
  const result = book.submit({ id: p.orderId, owner: p.trader.owner, outcome, action, priceBps, shares, tif, postOnly, seq });
  const fills = await settleFills(deps, trx, queue, { market: p.market, takerAgent: p.trader.agentId, fills: result.fills });
  const row = await finishOrder(deps, trx, p, result);
  if (result.status !== 'filled' && result.status !== 'resting') {
    emit(queue, p.trader.agentId, p.orderId, result.status, { reason: result.reason, cancelled: result.cancelled.toString() });
  }
  await writeEvents(deps, trx, queue);
  return { order: row, fills };
}

/** Writes the new order as resting with nothing filled yet; answers its seq (its time priority in the book). */
async function insertOrder(deps: Pick<OrderBookDeps, 'clock' | 'chainId'>, trx: Transaction<DB>, { orderId, trader, market, order }: Placement): Promise<bigint> {
  const inserted = await trx
    .insertInto('orders')
    .values({
      id: orderId,
      agent_id: trader.agentId,
      owner: trader.owner,
      chain_id: deps.chainId,
      market: market.address,
      market_id: market.marketId.toString(),
      outcome: order.outcome,
      action: order.action,
      price_bps: order.priceBps,
      shares: order.shares.toString(),
      remaining: order.shares.toString(),
      tif: order.tif,
      post_only: order.postOnly,
      status: 'resting',
      created_at: deps.clock.now(),
      updated_at: deps.clock.now(),
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  return BigInt(inserted.seq);
}

/** Writes what matching left of the order: filled, remaining, what it still reserves, its status and reason. */
async function finishOrder(deps: Pick<OrderBookDeps, 'clock'>, trx: Transaction<DB>, { orderId, order }: Placement, result: SubmitResult): Promise<Selectable<OrdersTable>> {
  const filled = result.fills.reduce((n, f) => n + f.shares, 0n);
  const remaining = result.resting?.remaining ?? 0n;
  return trx
    .updateTable('orders')
    .set({
      filled: filled.toString(),
      remaining: remaining.toString(),
      reserved: reservationOf(order.action, order.priceBps, remaining).toString(),
      status: result.status,
      reason: result.reason,
      updated_at: deps.clock.now(),
    })
    .where('id', '=', orderId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

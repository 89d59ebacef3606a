/**
 * The order loop of play-money ORDERBOOK markets (docs/orderbook.md): place, cancel, confirm a cancellation, list
 * order events and the caller's orders, read a book's depth, and cancel the orders of markets that end. Each operation is a function of
 * its own under ./orders/; this builds the shared state once (the per-market books and their queues) and binds
 * every operation to it. One in-memory OrderBook per market does the matching; every fill becomes one ledger match
 * operation in the same database transaction as the order rows, the fills, the per-agent order events, the
 * execution:report outbox events and the fill-allowance count. Placements on one market queue up and the ones waiting
 * together are placed in one transaction (group commit); a failed transaction rebuilds that market's book from the
 * database, so memory never runs ahead of what was committed, and its orders are tried again one by one. A
 * market the indexer voids, or the lifecycle closes at its close time, has its resting orders cancelled in that
 * transaction (cancelMarketOrders) and its book dropped after it (forgetBooks).
 */
import type { Transaction } from 'kysely';
import type { Principal } from '../../core/principal.ts';
import type { DB } from '../../db/schema.ts';
import type { EndedMarket } from '../markets/ended-markets.ts';
import { MarketBooks } from './orders/books.ts';
import { Lookups } from './orders/lookups.ts';
import { cancelMarketOrders } from './orders/cancel-market-orders.ts';
import { cancelOrder } from './orders/cancel-order.ts';
import { confirmCancel, type ConfirmCancelResult } from './orders/confirm-cancel.ts';
import { forgetBooks } from './orders/forget-books.ts';
import { listOrderEvents, type ListOrderEventsResult } from './orders/list-order-events.ts';
import { listOrders, type ListOrdersParams, type ListOrdersResult } from './orders/list-orders.ts';
import { placementRounds, placeOrder } from './orders/place-order.ts';
import { readView } from './orders/order-view.ts';
import { copyOfTally, noPhaseTally } from './orders/round-phases.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { readDepth, type ReadDepthResult } from './orders/read-depth.ts';
import type { MarketEndReason, OrderBookDeps, OrderView, PlaceOrderInput, PlacementStats } from './orders/types.ts';

export { ENGINE_CONFIG, MARKET_CLOSED, MARKET_TAKEN_DOWN, MARKET_VOID } from './orders/types.ts';
export type { PlacementStats } from './orders/types.ts';

export interface OrderBookService {
  /** `recordEffect`, under an Idempotency-Key, is called inside the placement's transaction with the order id. */
  place(principal: Principal, input: PlaceOrderInput, recordEffect?: EffectRecorder): Promise<OrderView>;
  /** One order as it is now, with its fills (the answer a retry of its placement or cancel gets after a crash). */
  view(orderId: string): Promise<OrderView>;
  /** `recordEffect`, under an Idempotency-Key, is called inside the cancel's transaction with the order id. */
  cancel(principal: Principal, orderId: string, recordEffect?: EffectRecorder): Promise<OrderView>;
  /** The cancelled order once it is final (every fill committed on chain); ORDER_CANCEL_PENDING before. */
  confirmCancel(principal: Principal, orderId: string): Promise<ConfirmCancelResult>;
  events(principal: Principal, after: bigint, limit: number): Promise<ListOrderEventsResult>;
  /** The caller's orders, newest first, by market and status, a page at a time. */
  list(principal: Principal, filter: Omit<ListOrdersParams, 'principal'>): Promise<ListOrdersResult>;
  /** The live book of a market (levels on the outcome-0 axis). */
  depth(marketId: bigint, levels: number): Promise<ReadDepthResult>;
  /**
   * Inside the transaction that ends these markets (the indexer voiding them, the lifecycle closing them): cancels
   * each resting order with `reason`, releasing its reservation, with a `cancelled` order event and execution:report
   * for its owner. Fills already settled stay in the ledger. Returns how many were cancelled.
   */
  cancelMarketOrders(trx: Transaction<DB>, markets: readonly EndedMarket[], reason: MarketEndReason): Promise<number>;
  /** After that transaction committed: drops the markets' in-memory books (the next read rebuilds them, empty). */
  forgetBooks(markets: readonly EndedMarket[]): void;
  /** Placement transactions and the orders they placed since the start (a copy). */
  stats(): PlacementStats;
}

export function createOrderBookService(deps: OrderBookDeps): OrderBookService {
  const base = { ...deps, books: new MarketBooks(deps.db, deps.expect), lookups: new Lookups(), stats: { ...noPhaseTally(), transactionMs: 0, slow: noPhaseTally() } };
  const ctx = { ...base, rounds: placementRounds(base) };
  return {
    place: (principal, order, recordEffect) => placeOrder(ctx, { principal, order, recordEffect }),
    view: (orderId) => readView(ctx.db, orderId),
    cancel: (principal, orderId, recordEffect) => cancelOrder(ctx, { principal, orderId, recordEffect }),
    confirmCancel: (principal, orderId) => confirmCancel(ctx, { principal, orderId }),
    events: (principal, after, limit) => listOrderEvents(ctx, { principal, after, limit }),
    list: (principal, filter) => listOrders(ctx, { principal, ...filter }),
    depth: (marketId, levels) => readDepth(ctx, { marketId, levels }),
    cancelMarketOrders: (trx, markets, reason) => cancelMarketOrders(ctx, { trx, markets, reason }),
    forgetBooks: (markets) => forgetBooks(ctx, { markets }),
    stats: () => ({ ...copyOfTally(ctx.stats), slow: copyOfTally(ctx.stats.slow) }),
  };
}

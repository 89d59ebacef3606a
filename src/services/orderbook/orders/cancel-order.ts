/**
 * Cancels what is left of the caller's order (POST /orderbook/cancel-order), releasing its reservation. Always
 * accepted: an order with nothing left to cancel just records the request. Runs in the market's queue, alone and after
 * every placement queued before it. Under an Idempotency-Key the cancel's transaction records it (by order id),
 * whatever it had left to cancel.
 */
import { runStep } from '../../../db/pipeline.ts';
import type { Transaction } from 'kysely';
import type { Principal } from '../../../core/principal.ts';
import type { DB } from '../../../db/schema.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import type { BookChanges, MarketBooks } from './books.ts';
import { retryingDeadlocks, type BusyError } from './locks.ts';
import { writeEvents, type PendingEvent } from './order-events.ts';
import { readView } from './order-view.ts';
import { ownOrder, type OrderNotFoundError, type TraderError } from './trader.ts';
import type { OrderBookDeps, OrderView } from './types.ts';
import { CANCEL_COLUMNS, writeCancelled } from './write-cancelled.ts';

export type CancelOrderDeps = Pick<OrderBookDeps, 'db' | 'clock' | 'events' | 'chainId' | 'fence'> & { books: MarketBooks };
export interface CancelOrderParams {
  principal: Principal;
  orderId: string;
  /** Under an Idempotency-Key: records the cancel (by order id) in its own transaction, exactly once. */
  recordEffect?: EffectRecorder;
}
/** The order as it stands after the cancel. */
export type CancelOrderResult = OrderView;
export type CancelOrderError = TraderError | OrderNotFoundError | BusyError;

export async function cancelOrder(deps: CancelOrderDeps, { principal, orderId, recordEffect }: CancelOrderParams): Promise<CancelOrderResult> {
  const o = await ownOrder(deps, principal, orderId);
  return deps.books.serial(o.marketId, () =>
    retryingDeadlocks(async () => {
      await deps.books.changing(o.marketId, (book) => deps.db.transaction().execute((trx) => cancelInTransaction(deps, trx, book, { id: orderId, agentId: o.agent_id, marketId: o.marketId }, recordEffect)));
      deps.events.notify();
      return readView(deps.db, orderId);
    }),
  );
}

/** The fence first; when it refuses, another process holds the book now and the next use loads it from the rows. */
async function fence(deps: Pick<CancelOrderDeps, 'fence' | 'books'>, trx: Transaction<DB>, marketId: bigint): Promise<void> {
  try {
    const step = deps.fence?.(trx, marketId);
    if (step) await runStep(trx, step);
  } catch (err) {
    deps.books.forget(marketId);
    throw err;
  }
}

async function cancelInTransaction(
  deps: Pick<CancelOrderDeps, 'clock' | 'chainId' | 'fence' | 'books'>,
  trx: Transaction<DB>,
  book: BookChanges,
  order: { id: string; agentId: string; marketId: bigint },
  recordEffect: EffectRecorder | undefined,
): Promise<void> {
  await fence(deps, trx, order.marketId);
  const queue: PendingEvent[] = [];
  const row = await trx.selectFrom('orders').select(['status', ...CANCEL_COLUMNS]).where('id', '=', order.id).forUpdate().executeTakeFirstOrThrow();
  // Always accepted: an order with nothing left to cancel just records the request.
  await trx.updateTable('orders').set({ cancel_requested_at: deps.clock.now(), updated_at: deps.clock.now() }).where('id', '=', order.id).where('cancel_requested_at', 'is', null).execute();
  await recordEffect?.(trx, order.id);
  if (row.status !== 'resting') return;
  const removed = book.cancel(order.id);
  await writeCancelled(deps, trx, queue, [{ ...row, cancelled: removed?.remaining ?? 0n }], 'CANCELLED_BY_OWNER');
  await writeEvents(deps, trx, queue);
}

// Cancelling a resting order in the rows: what an owner's cancel and a market's end both write.
import type { Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { emit, type PendingEvent } from './order-events.ts';
import type { OrderBookDeps } from './types.ts';

/** Cancels a resting order: nothing left on the book or reserved, and its owner's `cancelled` event (the remainder it took off the book). */
export async function writeCancelled(deps: Pick<OrderBookDeps, 'clock'>, trx: Transaction<DB>, queue: PendingEvent[], order: { id: string; agentId: string }, reason: string, cancelled: bigint): Promise<void> {
  await trx.updateTable('orders').set({ status: 'cancelled', reason, remaining: '0', reserved: '0', updated_at: deps.clock.now() }).where('id', '=', order.id).execute();
  emit(queue, order.agentId, order.id, 'cancelled', { reason, cancelled: cancelled.toString() });
}

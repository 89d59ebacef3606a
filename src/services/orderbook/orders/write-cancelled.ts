// Cancelling resting orders in the rows: what an owner's cancel and a market's end both write.
import { sql, type Transaction } from 'kysely';
import type { Account } from '../../../core/ledger/types.ts';
import { runStep } from '../../../db/pipeline.ts';
import type { DB } from '../../../db/schema.ts';
import { emit, type PendingEvent } from './order-events.ts';
import { addReservations, overReleased, RESERVED_ASSET_SQL } from './reservations.ts';
import type { OrderBookDeps } from './types.ts';

/**
 * Cancels a resting order: nothing left on the book or reserved, what it reserved taken off its owner's row (as the row
 * held it, in the same statement), and its owner's `cancelled` event (the remainder it took off the book).
 */
export async function writeCancelled(deps: Pick<OrderBookDeps, 'clock'>, trx: Transaction<DB>, queue: PendingEvent[], order: { id: string; agentId: string }, reason: string, cancelled: bigint): Promise<void> {
  const { rows } = await sql<Record<string, unknown>>`
    WITH old AS (SELECT id, owner, action, market_id, outcome, reserved FROM orders WHERE id = ${order.id}::uuid FOR UPDATE),
    c AS (
      UPDATE orders o SET status = 'cancelled', reason = ${reason}, remaining = 0, reserved = 0, updated_at = ${deps.clock.now()}
      FROM old WHERE o.id = old.id
      RETURNING old.owner, ${RESERVED_ASSET_SQL('old')} AS asset_id, old.reserved)
    INSERT INTO order_reservations AS r (owner, asset_id, reserved)
    SELECT owner, asset_id, -reserved FROM c WHERE reserved > 0
    ON CONFLICT (owner, asset_id) DO UPDATE SET reserved = r.reserved + EXCLUDED.reserved
    RETURNING owner, asset_id::text, reserved::text`.execute(trx);
  overReleased(rows);
  emit(queue, order.agentId, order.id, 'cancelled', { reason, cancelled: cancelled.toString() });
}

/**
 * Cancels resting orders together (a market's end): each row as writeCancelled leaves it, what they reserved taken off
 * their owners' rows in one statement (in owner and asset order), and each owner's `cancelled` event in `orders`' order.
 */
export async function writeAllCancelled(
  deps: Pick<OrderBookDeps, 'clock'>,
  trx: Transaction<DB>,
  queue: PendingEvent[],
  orders: readonly { id: string; agentId: string; owner: string; assetId: bigint; reserved: bigint; remaining: bigint }[],
  reason: string,
): Promise<void> {
  if (orders.length === 0) return;
  // The ids as one array: a market may end with thousands of orders resting (a parameter each would pass the limit).
  const ids = orders.map((o) => o.id);
  await sql`UPDATE orders SET status = 'cancelled', reason = ${reason}, remaining = 0, reserved = 0, updated_at = ${deps.clock.now()} WHERE id = ANY(${ids}::uuid[])`.execute(trx);
  const released = new Map<string, { owner: Account; assetId: bigint; delta: bigint }>();
  for (const o of orders) {
    const key = `${o.owner}:${o.assetId}`;
    const change = released.get(key) ?? { owner: o.owner as Account, assetId: o.assetId, delta: 0n };
    change.delta -= o.reserved;
    released.set(key, change);
  }
  const step = addReservations(trx, [...released.values()]);
  if (step) await runStep(trx, step);
  for (const o of orders) emit(queue, o.agentId, o.id, 'cancelled', { reason, cancelled: o.remaining.toString() });
}

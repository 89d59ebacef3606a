// Cancelling resting orders in the rows: what an owner's cancel and a market's end both write.
import { sql, type Transaction } from 'kysely';
import type { Account } from '../../../core/ledger/types.ts';
import type { OrderAction, Outcome } from '../../../core/orderbook/types.ts';
import { runStep } from '../../../db/pipeline.ts';
import type { DB } from '../../../db/schema.ts';
import { emit, type PendingEvent } from './order-events.ts';
import { addReservations, reservedAssetOf, type ReservationChange } from './reservations.ts';
import type { OrderBookDeps } from './types.ts';

/** The columns of an order row a cancel reads (under its lock) to cancel it. */
export const CANCEL_COLUMNS = ['id', 'agent_id', 'owner', 'action', 'market_id', 'outcome', 'reserved'] as const;

/** An order to cancel: its row's CANCEL_COLUMNS, and the remainder the cancel takes off the book (whole shares). */
export interface CancelledOrder {
  id: string;
  agent_id: string;
  owner: string;
  action: OrderAction;
  market_id: string;
  outcome: number;
  reserved: string;
  cancelled: bigint;
}

/**
 * Cancels resting orders (an owner's cancel, a market's end): nothing left on the book or reserved, what they reserved
 * (as their rows held it) taken off their owners' rows in one statement (in owner and asset order), and each owner's
 * `cancelled` event (the remainder it took off the book), in `orders`' order.
 */
export async function writeCancelled(deps: Pick<OrderBookDeps, 'clock'>, trx: Transaction<DB>, queue: PendingEvent[], orders: readonly CancelledOrder[], reason: string): Promise<void> {
  if (orders.length === 0) return;
  // The ids as one array: a market may end with thousands of orders resting (a parameter each would pass the limit).
  const ids = orders.map((o) => o.id);
  await sql`UPDATE orders SET status = 'cancelled', reason = ${reason}, remaining = 0, reserved = 0, updated_at = ${deps.clock.now()} WHERE id = ANY(${ids}::uuid[])`.execute(trx);
  const released = orders.map((o): ReservationChange => ({
    owner: o.owner as Account,
    assetId: reservedAssetOf(BigInt(o.market_id), { action: o.action, outcome: o.outcome as Outcome }),
    delta: -BigInt(o.reserved),
  }));
  const step = addReservations(trx, released);
  if (step) await runStep(trx, step);
  for (const o of orders) emit(queue, o.agent_id, o.id, 'cancelled', { reason, cancelled: o.cancelled.toString() });
}

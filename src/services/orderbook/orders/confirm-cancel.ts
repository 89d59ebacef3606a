/**
 * Confirms a cancellation (POST /orderbook/confirm-cancel): answers the order once it is final — it no longer rests
 * and every fill it had is in a ledger batch committed on chain. Changes nothing.
 */
import { problem } from '../../../core/error-codes.ts';
import type { Principal } from '../../../core/principal.ts';
import { readView } from './order-view.ts';
import { ownOrder, type OrderNotFoundError, type TraderError } from './trader.ts';
import type { OrderBookDeps, OrderLoopError, OrderView } from './types.ts';

export type ConfirmCancelDeps = Pick<OrderBookDeps, 'db'>;
export interface ConfirmCancelParams {
  principal: Principal;
  orderId: string;
}
export type ConfirmCancelResult = OrderView & { final: true };
/** ORDER_CANCEL_PENDING: the order still rests, or some of its fills are not final yet (`pendingFills`, Retry-After). */
export type ConfirmCancelError = TraderError | OrderNotFoundError | OrderLoopError<'ORDER_CANCEL_PENDING'>;

export async function confirmCancel(deps: ConfirmCancelDeps, { principal, orderId }: ConfirmCancelParams): Promise<ConfirmCancelResult> {
  await ownOrder(deps, principal, orderId);
  const v = await readView(deps.db, orderId);
  if (v.status === 'resting') throw problem('ORDER_CANCEL_PENDING', 'the order still rests: cancel it first (POST /orderbook/cancel-order)');
  const pending = v.fills.filter((f) => !f.final);
  if (pending.length > 0) {
    throw problem('ORDER_CANCEL_PENDING', `${pending.length} fill(s) of this order are not in a ledger batch committed on chain yet; retry after the next batch`, {
      extensions: { pendingFills: pending.map((f) => f.id) },
      headers: { 'Retry-After': '5' },
    });
  }
  return { ...v, final: true as const };
}

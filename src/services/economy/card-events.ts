/**
 * What the card provider says about a session, from its webhook or from a status read (docs/economy.md "Card"): paid
 * moves the order from open to paid (once: the update is conditional on the state), expired from open to expired. A
 * paid order is then delivered by the delivery loop (deliver.ts). A duplicate webhook, a replayed one or a late one
 * changes nothing.
 */
import type { EconomyDeps } from './deps.ts';
import type { CheckoutSession } from '../payments/provider.ts';
import type { CardPurchaseRow } from './purchase-view.ts';

export type SessionOutcome = 'paid' | 'expired' | 'unchanged' | 'unknown';

export async function applySession(deps: EconomyDeps, session: CheckoutSession): Promise<SessionOutcome> {
  const { db, clock } = deps;
  const row = await db.selectFrom('card_purchases').selectAll().where('session_id', '=', session.id).executeTakeFirst();
  if (!row) return 'unknown';
  if (!matches(row, session)) {
    deps.log.warn({ sessionId: session.id, orderId: row.order_id }, 'card session does not match its order (amount or order id); not delivering');
    return 'unchanged';
  }
  if (session.status === 'complete' && session.paymentStatus === 'paid') {
    const moved = await db
      .updateTable('card_purchases')
      .set({ state: 'paid', paid_at: clock.now() })
      .where('order_id', '=', row.order_id)
      .where('state', 'in', ['open', 'expired'])
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n ? 'paid' : 'unchanged';
  }
  if (session.status === 'expired') {
    const moved = await db.updateTable('card_purchases').set({ state: 'expired' }).where('order_id', '=', row.order_id).where('state', '=', 'open').executeTakeFirst();
    return moved.numUpdatedRows > 0n ? 'expired' : 'unchanged';
  }
  return 'unchanged';
}

/** The provider's session is the one made for this order: same order id, the bundle's amount in cents. */
function matches(row: CardPurchaseRow, session: CheckoutSession): boolean {
  return session.orderId === row.order_id && session.amountTotalCents === row.usd * 100 && session.currency.toLowerCase() === 'usd';
}

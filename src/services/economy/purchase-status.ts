/**
 * GET /economy/purchase-status/{sessionId} (docs/economy.md "Card"): one card purchase of the signed-in wallet. While
 * the order is open the provider is asked (a lost webhook does not strand a paid order); a paid order is delivered by
 * the delivery loop. Another wallet's session is 404, like an unknown one: nothing is disclosed.
 */
import { problem } from '../../core/error-codes.ts';
import { PaymentProviderUnavailable } from '../payments/provider.ts';
import { applySession } from './card-events.ts';
import { cardUnavailable } from './checkout.ts';
import type { EconomyDeps } from './deps.ts';
import { cardPurchaseView, type CardPurchaseView } from './purchase-view.ts';

export async function purchaseStatus(deps: EconomyDeps, wallet: string, sessionId: string, onPaid: () => void): Promise<CardPurchaseView> {
  if (!deps.provider) throw cardUnavailable('card checkout is not configured on this service', 'CARD_NOT_CONFIGURED');
  const find = () => deps.db.selectFrom('card_purchases').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
  let row = await find();
  if (!row || row.wallet_address !== wallet.toLowerCase()) throw problem('NOT_FOUND', 'no card purchase of the signed-in wallet has this session id');
  if (row.state === 'open') {
    try {
      const session = await deps.provider.retrieveSession(sessionId);
      if (session && (await applySession(deps, session)) === 'paid') onPaid();
    } catch (err) {
      // The stored state is still true as far as it goes: answer it, and let the webhook or the next read move it.
      if (!(err instanceof PaymentProviderUnavailable)) throw err;
      deps.log.warn({ err, sessionId }, 'card provider unreachable while reading a purchase status');
    }
    row = (await find())!;
  }
  return cardPurchaseView(row);
}

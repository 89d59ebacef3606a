/**
 * POST /economy/checkout-session (docs/economy.md "Card"): a card purchase of one PM bundle for the signed-in wallet.
 * The order is written first (state creating, counted by the cap) under a per-wallet lock, so two checkouts at once
 * cannot both slip under the cap; then the provider makes the checkout session (the order id is its idempotency key);
 * then the order takes the session id, with the request's Idempotency-Key record, in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { checkCap, pmForUsd } from '../../core/economy/terms.ts';
import { problem } from '../../core/error-codes.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { PaymentProviderUnavailable } from '../payments/provider.ts';
import type { EconomyDeps } from './deps.ts';
import { cardPurchaseView, type CardPurchaseView } from './purchase-view.ts';
import { readSaleState } from './sale-state.ts';

/** States a purchase counts toward the cap in: everything but a session that expired unpaid or failed to open. */
const CAP_STATES = ['creating', 'open', 'paid', 'delivered'] as const;
/** A 'creating' order whose session never came back (a crash, a provider failure) stops counting after this. */
export const CREATING_TIMEOUT_MS = 10 * 60_000;
const HOUR_MS = 3_600_000;

export function cardUnavailable(detail: string, reason: string) {
  return problem('SERVICE_UNAVAILABLE', detail, { extensions: { reason }, headers: { 'Retry-After': '60' } });
}

export async function startCheckout(deps: EconomyDeps, wallet: string, usd: number, recordEffect: EffectRecorder | null): Promise<CardPurchaseView> {
  const { db, clock, terms } = deps;
  const provider = deps.provider;
  if (!provider) throw cardUnavailable('card checkout is not configured on this service (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET); buy with USDC through POST /economy/relay-purchase', 'CARD_NOT_CONFIGURED');
  if (!terms.bundlesUsd.includes(usd)) {
    throw problem('PURCHASE_NOT_A_BUNDLE', `$${usd} is not a bundle; card purchases come in bundles of ${terms.bundlesUsd.map((b) => `$${b}`).join(', ')} (GET /economy/purchase-terms)`, {
      extensions: { bundlesUsd: [...terms.bundlesUsd] },
    });
  }
  const sale = await readSaleState(deps);
  const pmAmount = pmForUsd(usd, sale.priceUsdcPerPm);
  if (sale.state !== 'open' || sale.inventory < pmAmount) {
    const reason = sale.state === 'not_deployed' ? 'SALE_NOT_DEPLOYED' : sale.state === 'paused' ? 'SALE_PAUSED' : 'SALE_INVENTORY_SHORT';
    throw cardUnavailable(`card purchases are not being delivered now (${reason}); GET /economy/purchase-terms shows the sale's state`, reason);
  }
  const walletKey = wallet.toLowerCase();
  const orderId = randomUUID();
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`card-cap:${walletKey}`}))`.execute(trx);
    const since = new Date(now.getTime() - terms.cap.hours * HOUR_MS);
    const staleCreating = new Date(now.getTime() - CREATING_TIMEOUT_MS);
    const { spent } = await trx
      .selectFrom('card_purchases')
      .select(sql<string>`coalesce(sum(usd), 0)`.as('spent'))
      .where('wallet_address', '=', walletKey)
      .where('created_at', '>', since)
      .where('state', 'in', CAP_STATES)
      .where((eb) => eb.or([eb('state', '!=', 'creating'), eb('created_at', '>', staleCreating)]))
      .executeTakeFirstOrThrow();
    const cap = checkCap(Number(spent), usd, terms.cap.usd);
    if (!cap.allowed) {
      throw problem('PURCHASE_CAP_EXCEEDED', `a wallet may buy $${terms.cap.usd} of PM by card in ${terms.cap.hours} hours; this wallet has $${cap.remainingUsd} left`, {
        extensions: { capUsd: terms.cap.usd, periodHours: terms.cap.hours, spentUsd: cap.spentUsd, remainingUsd: cap.remainingUsd },
        headers: { 'Retry-After': String(terms.cap.hours * 3600) },
      });
    }
    await trx
      .insertInto('card_purchases')
      .values({ order_id: orderId, session_id: null, provider: provider.name, chain_id: deps.chainId, wallet_address: walletKey, usd, pm_amount: pmAmount, state: 'creating', checkout_url: null, created_at: now, expires_at: new Date(now.getTime() + CREATING_TIMEOUT_MS) })
      .execute();
  });
  let session;
  try {
    session = await provider.createCheckoutSession({
      orderId,
      usd,
      pmAmount,
      wallet: walletKey,
      successUrl: deps.returnUrls.success,
      cancelUrl: deps.returnUrls.cancel,
      idempotencyKey: `svc-order-${orderId}`,
    });
  } catch (err) {
    await db.updateTable('card_purchases').set({ state: 'failed', last_error: String((err as Error).message ?? err).slice(0, 500) }).where('order_id', '=', orderId).execute();
    if (err instanceof PaymentProviderUnavailable) throw cardUnavailable('the card payment provider is not reachable; retry shortly', 'PROVIDER_UNAVAILABLE');
    throw err;
  }
  const row = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('card_purchases')
      .set({ session_id: session.id, checkout_url: session.url, state: 'open', expires_at: session.expiresAt })
      .where('order_id', '=', orderId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEffect?.(trx, orderId);
    return updated;
  });
  return cardPurchaseView(row);
}

/** The checkout a keyed request made (its answer was lost). */
export async function recordedCheckout(deps: EconomyDeps, orderId: string): Promise<CardPurchaseView> {
  const row = await deps.db.selectFrom('card_purchases').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  return cardPurchaseView(row);
}

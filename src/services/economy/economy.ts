/**
 * PM purchase (docs/economy.md): the terms, card checkout through the payment provider with delivery from the sale
 * contract exactly once, the USDC permit purchase the relayer submits, and the signup-grant read. This binds the
 * operations of this folder, and runs the delivery loop in the process that writes to the chain.
 */
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { keeperLoop } from '../keeper-loop.ts';
import { problem } from '../../core/error-codes.ts';
import { WebhookSignatureError, type ProviderEvent } from '../payments/provider.ts';
import { applySession, type SessionOutcome } from './card-events.ts';
import { recordedCheckout, startCheckout } from './checkout.ts';
import { deliverPaid, type DeliveryPass } from './deliver.ts';
import type { EconomyDeps } from './deps.ts';
import type { CardPurchaseView } from './purchase-view.ts';
import { purchaseStatus } from './purchase-status.ts';
import { recordedRelayPurchase, relayPurchase, type RelayPurchaseInput, type RelayPurchaseResult } from './relay-purchase.ts';
import { signupGrantOf, type SignupGrant } from './signup-grant.ts';
import { purchaseTerms, type PurchaseTerms } from './terms.ts';

export type { EconomyDeps, EconomyTerms } from './deps.ts';
export type { CardPurchaseView } from './purchase-view.ts';
export type { RelayPurchaseInput, RelayPurchaseResult } from './relay-purchase.ts';
export type { SignupGrant } from './signup-grant.ts';
export type { PurchaseTerms } from './terms.ts';

export interface EconomyService {
  terms(): Promise<PurchaseTerms>;
  checkout(wallet: string, usd: number, recordEffect: EffectRecorder | null): Promise<CardPurchaseView>;
  recordedCheckout(orderId: string): Promise<CardPurchaseView>;
  status(wallet: string, sessionId: string): Promise<CardPurchaseView>;
  /**
   * The provider's webhook: the raw body and its signature header, verified against the webhook secret and applied.
   * A bad signature is 400 INVALID_PAYLOAD (reason WEBHOOK_SIGNATURE_INVALID); no provider configured is 404 NOT_FOUND.
   */
  providerWebhook(rawBody: string, signature: string | undefined): Promise<SessionOutcome>;
  relayPurchase(wallet: string, input: RelayPurchaseInput, recordEffect: EffectRecorder | null): Promise<RelayPurchaseResult>;
  recordedRelayPurchase(txHash: string): Promise<RelayPurchaseResult>;
  signupGrant(wallet: string): Promise<SignupGrant>;
  /** One delivery pass now (tests; the loop runs them every intervalMs). */
  deliverNow(): Promise<DeliveryPass>;
  /** The delivery loop (the process that writes to the chain). */
  start(): void;
  stop(): Promise<void>;
  /** Whether card checkout is configured (a provider is set). */
  readonly cardConfigured: boolean;
}

export function createEconomyService(deps: EconomyDeps & { currentGrant: bigint; intervalMs: number; chainLive: () => boolean }): EconomyService {
  // Passes run one at a time, whoever asks (the loop, a webhook, a status read, a test).
  let last: Promise<unknown> = Promise.resolve();
  const deliver = (): Promise<DeliveryPass> => {
    const next = last.catch(() => undefined).then(() => deliverPaid(deps));
    last = next;
    return next;
  };
  let started = false;
  const loop = keeperLoop({ name: 'card-delivery', pass: deliver, log: deps.log, intervalMs: deps.intervalMs, chainLive: deps.chainLive });
  // A paid order is delivered at once by the delivering process; elsewhere, by that process's next pass.
  const kick = () => {
    if (started && deps.chainLive()) void deliver().catch((err: unknown) => deps.log.error({ err }, 'card-delivery: pass failed; retrying on the next tick'));
  };
  return {
    terms: () => purchaseTerms(deps),
    checkout: (wallet, usd, recordEffect) => startCheckout(deps, wallet, usd, recordEffect),
    recordedCheckout: (orderId) => recordedCheckout(deps, orderId),
    status: (wallet, sessionId) => purchaseStatus(deps, wallet, sessionId, kick),
    async providerWebhook(rawBody, signature) {
      if (!deps.provider) throw problem('NOT_FOUND', 'no card payment provider is configured on this service');
      let event: ProviderEvent;
      try {
        event = deps.provider.parseWebhook(rawBody, signature);
      } catch (err) {
        if (err instanceof WebhookSignatureError) throw problem('INVALID_PAYLOAD', 'the webhook signature does not verify', { extensions: { reason: 'WEBHOOK_SIGNATURE_INVALID' } });
        throw err;
      }
      if (event.kind === 'ignored') return 'unchanged';
      const outcome = await applySession(deps, event.session);
      if (outcome === 'paid') kick();
      return outcome;
    },
    relayPurchase: (wallet, input, recordEffect) => relayPurchase(deps, wallet, input, recordEffect),
    recordedRelayPurchase: (txHash) => recordedRelayPurchase(deps, txHash),
    signupGrant: (wallet) => signupGrantOf(deps, wallet),
    deliverNow: deliver,
    start() {
      started = true;
      loop.start();
    },
    async stop() {
      started = false;
      await loop.stop();
      await last.catch(() => undefined);
    },
    cardConfigured: deps.provider !== null,
  };
}

/**
 * Stripe as the card payment provider: hosted Checkout Sessions in payment mode for one PM bundle, read back by id, and
 * webhooks verified by Stripe's signature. Stripe's types and errors stay in this file; callers see provider.ts only.
 */
import Stripe from 'stripe';
import { decimalString, PM_DECIMALS } from '../../core/economy/terms.ts';
import {
  PaymentProviderRejected,
  PaymentProviderUnavailable,
  WebhookSignatureError,
  type CheckoutRequest,
  type CheckoutSession,
  type PaymentProvider,
  type ProviderEvent,
} from './provider.ts';

export interface StripeProviderOptions {
  /** `sk_live_…` / `sk_test_…` (or a restricted `rk_…` key allowed to write Checkout Sessions). */
  secretKey: string;
  /** The endpoint's signing secret, `whsec_…`. */
  webhookSecret: string;
  /** Where Stripe's API is, e.g. http://127.0.0.1:PORT for tests; default https://api.stripe.com. Origin only: the client adds /v1/. */
  apiBase?: string;
  /** Per-attempt request timeout in milliseconds; one retry on a network error or a retryable answer. */
  timeoutMs?: number;
}

/** A buyer waits on this call: far below the library's 80 s default. */
const DEFAULT_TIMEOUT_MS = 15_000;

const EVENT_KINDS = {
  'checkout.session.completed': 'checkout.completed',
  'checkout.session.expired': 'checkout.expired',
  'checkout.session.async_payment_succeeded': 'checkout.async_payment_succeeded',
  'checkout.session.async_payment_failed': 'checkout.async_payment_failed',
} as const;

export function createStripeProvider(opts: StripeProviderOptions): PaymentProvider {
  if (!opts.secretKey) throw new Error('stripe: secretKey is empty');
  if (!opts.webhookSecret) throw new Error('stripe: webhookSecret is empty');
  const stripe = new Stripe(opts.secretKey, {
    ...endpointOf(opts.apiBase),
    maxNetworkRetries: 1,
    timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    // Telemetry reports the host's OS and kernel and the last call's latency in every request, and the library's
    // CommonJS build also writes an id to ~/.config/stripe/telemetry_id: none of it is Stripe's business.
    telemetry: false,
  });

  return {
    name: 'stripe',

    async createCheckoutSession(req: CheckoutRequest): Promise<CheckoutSession> {
      if (!Number.isSafeInteger(req.usd) || req.usd <= 0) throw new RangeError(`usd must be a positive whole number of dollars, got ${req.usd}`);
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [{ price_data: { currency: 'usd', unit_amount: req.usd * 100, product_data: { name: bundleName(req.usd, req.pmAmount) } }, quantity: 1 }],
            client_reference_id: req.orderId,
            metadata: { orderId: req.orderId, wallet: req.wallet, pmAmount: req.pmAmount.toString() },
            success_url: req.successUrl,
            cancel_url: req.cancelUrl,
          },
          { idempotencyKey: req.idempotencyKey },
        );
        return toSession(session);
      } catch (err) {
        throw providerError(err, 'create a checkout session');
      }
    },

    async retrieveSession(id: string): Promise<CheckoutSession | null> {
      try {
        return toSession(await stripe.checkout.sessions.retrieve(id));
      } catch (err) {
        // Stripe's "No such checkout.session"; another 404 (a wrong apiBase, say) is not an answer about the session.
        if (err instanceof Stripe.errors.StripeError && err.statusCode === 404 && err.code === 'resource_missing') return null;
        throw providerError(err, 'read a checkout session');
      }
    },

    parseWebhook(rawBody: string | Buffer, signatureHeader: string | undefined): ProviderEvent {
      let event: Stripe.Event;
      try {
        // Default tolerance: 300 s between Stripe's signing timestamp and now.
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader ?? '', opts.webhookSecret);
      } catch (err) {
        if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new WebhookSignatureError(err.message, { cause: err });
        throw err;
      }
      if (!Object.hasOwn(EVENT_KINDS, event.type)) return { kind: 'ignored', eventId: event.id, type: event.type };
      const kind = EVENT_KINDS[event.type as keyof typeof EVENT_KINDS];
      return { kind, eventId: event.id, session: toSession(event.data.object as Stripe.Checkout.Session) };
    },
  };
}

/** The Stripe client's host, port and protocol for an API origin; the library takes them apart, not as one URL. */
function endpointOf(apiBase: string | undefined): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (apiBase === undefined) return {};
  const url = new URL(apiBase);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`stripe: apiBase must be http(s), got ${apiBase}`);
  // The client always requests /v1/…; a path here would be dropped without a word.
  if (url.pathname !== '/' || url.search || url.hash || url.username) throw new Error(`stripe: apiBase must be an origin (scheme, host, port), got ${apiBase}`);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
  };
}

/** The line item's name the buyer sees on Stripe's page: "PM bundle — $25 → 2,500 PM". */
export function bundleName(usd: number, pmAmount: bigint): string {
  const [whole = '0', fraction] = decimalString(pmAmount, PM_DECIMALS).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // Four decimals at most, cut down: the exact amount is in the metadata.
  const shown = fraction ? `${grouped}.${fraction.slice(0, 4)}`.replace(/\.?0+$/, '') : grouped;
  return `PM bundle — $${usd.toLocaleString('en-US')} → ${shown} PM`;
}

function toSession(s: Stripe.Checkout.Session): CheckoutSession {
  return {
    id: s.id,
    url: s.url ?? '',
    status: oneOf(s.status, ['complete', 'expired'] as const, 'open'),
    paymentStatus: oneOf(s.payment_status, ['paid', 'no_payment_required'] as const, 'unpaid'),
    amountTotalCents: s.amount_total ?? 0,
    currency: s.currency ?? '',
    orderId: s.client_reference_id ?? s.metadata?.orderId ?? null,
    expiresAt: new Date(s.expires_at * 1000),
  };
}

/**
 * Stripe's enums are open (a newer API version may add values; `status` is null outside hosted sessions): anything but
 * the values that move an order reads as the state that does not, open and unpaid.
 */
function oneOf<const T extends string, const D extends string>(value: string | null, known: readonly T[], otherwise: D): T | D {
  return known.includes(value as T) ? (value as T) : otherwise;
}

/**
 * A Stripe client error as the provider's error: unreachable, timed out, 5xx, bad credentials, no permission or rate
 * limited is PaymentProviderUnavailable (the caller answers 503); another refusal of the request is PaymentProviderRejected.
 * Anything that is not Stripe's (a bug here) passes unchanged.
 */
function providerError(err: unknown, what: string): unknown {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  const status = typeof err.statusCode === 'number' ? err.statusCode : null;
  const message = `stripe: could not ${what}: ${err.message}`;
  if (status === null || status >= 500 || status === 401 || status === 403 || status === 429 || err instanceof Stripe.errors.StripeConnectionError) {
    return new PaymentProviderUnavailable(message, { cause: err, status });
  }
  return new PaymentProviderRejected(message, { cause: err, status, providerCode: err.code ?? null });
}

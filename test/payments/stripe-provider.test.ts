// The Stripe payment provider with the real `stripe` client against the local stand-in of Stripe's API
// (test/support/stripe-server.ts): checkout sessions made and read back, idempotent creates, the provider's failures
// as PaymentProviderUnavailable, and webhooks verified by Stripe's signature.
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_SESSION_ID_PATTERN } from '../../src/core/economy/terms.ts';
import { PaymentProviderRejected, PaymentProviderUnavailable, WebhookSignatureError, type CheckoutRequest, type PaymentProvider } from '../../src/services/payments/provider.ts';
import { bundleName, createStripeProvider } from '../../src/services/payments/stripe.ts';
import { startStripeServer, type StripeServer } from '../support/stripe-server.ts';

const PM = 10n ** 18n;
const WALLET = '0x5b38da6a701c568545dcfcb03fcb875f56beddc4';

let stripe: StripeServer;
let provider: PaymentProvider;
beforeAll(async () => {
  stripe = await startStripeServer();
  provider = createStripeProvider({ secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiBase: stripe.url, timeoutMs: 5_000 });
});
afterAll(async () => {
  await stripe?.close();
});

function request(over: Partial<CheckoutRequest> = {}): CheckoutRequest {
  const orderId = randomUUID();
  return {
    orderId,
    usd: 25,
    pmAmount: 2_500n * PM,
    wallet: WALLET,
    successUrl: 'https://svc.example/?purchase={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://svc.example/?purchase=cancelled',
    idempotencyKey: `svc-order-${orderId}`,
    ...over,
  };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => expect.unreachable('the call succeeded'),
    (err: unknown) => err,
  );
}

describe('checkout sessions', () => {
  it('opens a payment session for the bundle whose fields come back as sent', async () => {
    const req = request();
    const before = Date.now();
    const session = await provider.createCheckoutSession(req);
    expect(session.id).toMatch(/^cs_[A-Za-z0-9_]{8,240}$/);
    expect(session.id).toMatch(CARD_SESSION_ID_PATTERN);
    expect(session).toMatchObject({ status: 'open', paymentStatus: 'unpaid', amountTotalCents: 2_500, currency: 'usd', orderId: req.orderId });
    expect(session.url).toBe(`${stripe.url}/c/pay/${session.id}`);
    // Stripe's default: a session expires 24 hours after it is made.
    expect(session.expiresAt.getTime()).toBeGreaterThan(before + 23 * 3600_000);
    expect(session.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);

    // What reached Stripe, decoded from the client's form encoding.
    const stored = stripe.sessions.get(session.id)!;
    expect(stored).toMatchObject({
      mode: 'payment',
      client_reference_id: req.orderId,
      metadata: { orderId: req.orderId, wallet: WALLET, pmAmount: (2_500n * PM).toString() },
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
    });
    expect(stored.line_items.data).toHaveLength(1);
    expect(stored.line_items.data[0]).toMatchObject({ quantity: 1, currency: 'usd', description: 'PM bundle — $25 → 2,500 PM', price: { unit_amount: 2_500 } });
    const sent = stripe.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', idempotencyKey: req.idempotencyKey, stripeVersion: Stripe.API_VERSION, status: 200 });
    expect(sent.params).toMatchObject({ line_items: [{ price_data: { unit_amount: '2500', currency: 'usd' }, quantity: '1' }] });
  });

  it('makes one session for a create retried with the same idempotency key', async () => {
    const req = request({ usd: 10, pmAmount: 1_000n * PM });
    const first = await provider.createCheckoutSession(req);
    const count = stripe.sessions.size;
    const again = await provider.createCheckoutSession(req);
    expect(again).toEqual(first);
    expect(stripe.sessions.size).toBe(count);
    // Another order, another key: another session.
    const other = await provider.createCheckoutSession(request({ usd: 10, pmAmount: 1_000n * PM }));
    expect(other.id).not.toBe(first.id);
  });

  it('reads a session back as complete and paid once the buyer paid, and as expired once it expired', async () => {
    const paid = await provider.createCheckoutSession(request());
    expect(await provider.retrieveSession(paid.id)).toEqual(paid);
    stripe.markPaid(paid.id);
    expect(await provider.retrieveSession(paid.id)).toMatchObject({ id: paid.id, status: 'complete', paymentStatus: 'paid', amountTotalCents: 2_500, orderId: paid.orderId, url: '' });

    const lapsed = await provider.createCheckoutSession(request({ usd: 5, pmAmount: 500n * PM }));
    stripe.expire(lapsed.id);
    expect(await provider.retrieveSession(lapsed.id)).toMatchObject({ status: 'expired', paymentStatus: 'unpaid', amountTotalCents: 500 });
  });

  it('reads a session the provider does not know as null', async () => {
    expect(await provider.retrieveSession('cs_test_doesNotExist0000000000000000')).toBeNull();
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'GET', status: 404 });
  });

  it('names the bundle in whole PM with thousands separators, and at most four decimals', () => {
    expect(bundleName(25, 2_500n * PM)).toBe('PM bundle — $25 → 2,500 PM');
    expect(bundleName(100, 1_234_567n * PM)).toBe('PM bundle — $100 → 1,234,567 PM');
    expect(bundleName(5, 333n * PM + PM / 3n)).toBe('PM bundle — $5 → 333.3333 PM');
    expect(bundleName(5, 50n * PM + PM / 2n)).toBe('PM bundle — $5 → 50.5 PM');
  });
});

describe('provider failures', () => {
  it('turns a 5xx into PaymentProviderUnavailable with the cause, for a create and a read', async () => {
    stripe.failNext(500);
    const created = await rejection(provider.createCheckoutSession(request()));
    expect(created).toBeInstanceOf(PaymentProviderUnavailable);
    expect(created).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', status: 500 });
    expect((created as Error).cause).toBeInstanceOf(Stripe.errors.StripeAPIError);

    const session = await provider.createCheckoutSession(request());
    stripe.failNext(503);
    expect(await rejection(provider.retrieveSession(session.id))).toBeInstanceOf(PaymentProviderUnavailable);
    // The failure was one answer; the next read works.
    expect((await provider.retrieveSession(session.id))?.id).toBe(session.id);
  });

  it('retries once a failure the provider marks retryable, under the same idempotency key', async () => {
    const req = request();
    const start = stripe.requests.length;
    stripe.failNext(503, { retryable: true });
    const session = await provider.createCheckoutSession(req);
    const calls = stripe.requests.slice(start);
    expect(calls.map((c) => c.status)).toEqual([503, 200]);
    expect(calls.map((c) => c.idempotencyKey)).toEqual([req.idempotencyKey, req.idempotencyKey]);
    expect(stripe.sessions.get(session.id)?.client_reference_id).toBe(req.orderId);
  });

  it('turns a refused secret key into PaymentProviderUnavailable', async () => {
    const wrongKey = createStripeProvider({ secretKey: 'sk_test_notTheRightKey000000', webhookSecret: stripe.webhookSecret, apiBase: stripe.url });
    const err = await rejection(wrongKey.createCheckoutSession(request()));
    expect(err).toBeInstanceOf(PaymentProviderUnavailable);
    expect(err).toMatchObject({ status: 401 });
    expect((err as Error).cause).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(await rejection(wrongKey.retrieveSession('cs_test_any00000000000000000000'))).toBeInstanceOf(PaymentProviderUnavailable);
  });

  it('turns a provider that is not listening into PaymentProviderUnavailable', async () => {
    const gone = await startStripeServer();
    await gone.close();
    const unreachable = createStripeProvider({ secretKey: gone.secretKey, webhookSecret: gone.webhookSecret, apiBase: gone.url, timeoutMs: 2_000 });
    const err = await rejection(unreachable.createCheckoutSession(request()));
    expect(err).toBeInstanceOf(PaymentProviderUnavailable);
    expect(err).toMatchObject({ status: null });
    expect((err as Error).cause).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(await rejection(unreachable.retrieveSession('cs_test_any00000000000000000000'))).toBeInstanceOf(PaymentProviderUnavailable);
  });

  it('turns a refusal of the request itself into PaymentProviderRejected, not an outage', async () => {
    // The same idempotency key with other parameters: Stripe's idempotency_error.
    const req = request();
    await provider.createCheckoutSession(req);
    const err = await rejection(provider.createCheckoutSession({ ...req, usd: 50, pmAmount: 5_000n * PM }));
    expect(err).toBeInstanceOf(PaymentProviderRejected);
    expect(err).not.toBeInstanceOf(PaymentProviderUnavailable);
    expect(err).toMatchObject({ status: 400, code: 'PROVIDER_REJECTED' });
    expect((err as Error).cause).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it('refuses an amount that is not a whole number of dollars before calling the provider', async () => {
    const start = stripe.requests.length;
    await expect(provider.createCheckoutSession(request({ usd: 2.5 }))).rejects.toThrow(RangeError);
    await expect(provider.createCheckoutSession(request({ usd: 0 }))).rejects.toThrow(RangeError);
    expect(stripe.requests.length).toBe(start);
  });

  it('takes only an origin as the API base', () => {
    const base = { secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret };
    expect(() => createStripeProvider({ ...base, apiBase: `${stripe.url}/v1` })).toThrow(/origin/);
    expect(() => createStripeProvider({ ...base, apiBase: 'ftp://127.0.0.1:21' })).toThrow(/http/);
    expect(() => createStripeProvider({ ...base, webhookSecret: '' })).toThrow(/webhookSecret/);
  });
});

describe('webhooks', () => {
  it('reads a signed checkout.session.completed as a completed checkout with the session', async () => {
    const opened = await provider.createCheckoutSession(request());
    stripe.markPaid(opened.id);
    const { payload, header } = stripe.webhookFor(opened.id);
    const event = provider.parseWebhook(payload, header);
    expect(event).toMatchObject({ kind: 'checkout.completed', eventId: expect.stringMatching(/^evt_/) });
    if (event.kind === 'ignored') throw new Error('unreachable');
    expect(event.session).toMatchObject({ id: opened.id, status: 'complete', paymentStatus: 'paid', amountTotalCents: 2_500, currency: 'usd', orderId: opened.orderId });
    expect(event.session.expiresAt).toEqual(opened.expiresAt);
    // The raw body as bytes verifies the same.
    expect(provider.parseWebhook(Buffer.from(payload), header)).toMatchObject({ kind: 'checkout.completed' });
  });

  it('maps the expired and asynchronous-payment events', async () => {
    const opened = await provider.createCheckoutSession(request());
    const kinds = {
      'checkout.session.expired': 'checkout.expired',
      'checkout.session.async_payment_succeeded': 'checkout.async_payment_succeeded',
      'checkout.session.async_payment_failed': 'checkout.async_payment_failed',
    };
    for (const [type, kind] of Object.entries(kinds)) {
      const { payload, header } = stripe.webhookFor(opened.id, type);
      expect(provider.parseWebhook(payload, header)).toMatchObject({ kind, session: { id: opened.id } });
    }
  });

  it('ignores a verified event of an unrelated type', async () => {
    const opened = await provider.createCheckoutSession(request());
    const { payload, header } = stripe.webhookFor(opened.id, 'payment_intent.succeeded');
    const event = provider.parseWebhook(payload, header);
    expect(event).toEqual({ kind: 'ignored', eventId: JSON.parse(payload).id, type: 'payment_intent.succeeded' });
    // A type named like an Object.prototype member is just another unknown type.
    const odd = stripe.webhookFor(opened.id, 'constructor');
    expect(provider.parseWebhook(odd.payload, odd.header)).toMatchObject({ kind: 'ignored', type: 'constructor' });
  });

  it('refuses a tampered payload, another secret, a missing or garbled header and a stale timestamp', async () => {
    const opened = await provider.createCheckoutSession(request());
    const { payload, header } = stripe.webhookFor(opened.id);
    const refuse = (body: string, sig: string | undefined) => expect(() => provider.parseWebhook(body, sig)).toThrow(WebhookSignatureError);

    refuse(payload.replace('"amount_total": 2500', '"amount_total": 250000'), header);
    refuse(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someoneElsesSecret000000' }));
    refuse(payload, undefined);
    refuse(payload, '');
    refuse(payload, 't=1,v1=deadbeef');
    refuse(payload, 'garbage');
    // Signed correctly, ten minutes ago: outside Stripe's 300 s tolerance.
    refuse(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: stripe.webhookSecret, timestamp: Math.floor(Date.now() / 1000) - 600 }));
    // The same secret in another provider verifies (the check is the secret, not the instance).
    const twin = createStripeProvider({ secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiBase: stripe.url });
    expect(twin.parseWebhook(payload, header).kind).toBe('checkout.completed');
    const stranger = createStripeProvider({ secretKey: stripe.secretKey, webhookSecret: 'whsec_someoneElsesSecret000000', apiBase: stripe.url });
    expect(() => stranger.parseWebhook(payload, header)).toThrow(WebhookSignatureError);
  });
});

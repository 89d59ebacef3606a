/**
 * The card payment provider as the economy service sees it (docs/economy.md "Card"): hosted checkout sessions for one
 * PM bundle, their status, and the provider's signed webhooks. Provider-neutral: no vendor type crosses this interface,
 * and a vendor's errors are turned into the classes below.
 */

export interface CheckoutRequest {
  /** Our order id: the session's client reference and `metadata.orderId`. */
  orderId: string;
  /** Whole US dollars: the bundle's price. */
  usd: number;
  /** PM base units (18 decimals) the bundle delivers; metadata only, the provider charges `usd`. */
  pmAmount: bigint;
  /** The buyer's wallet (metadata). */
  wallet: string;
  successUrl: string;
  cancelUrl: string;
  /** Passed to the provider, so a retried create makes one session. */
  idempotencyKey: string;
}

export interface CheckoutSession {
  /** The provider's session id (`cs_…`). */
  id: string;
  /** Where the buyer pays; '' once the session is complete or expired (the provider withdraws it). */
  url: string;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  /** The session's total in cents of `currency`. */
  amountTotalCents: number;
  /** ISO 4217, lower case as the provider writes it ('usd'). */
  currency: string;
  /** Our order id as the provider holds it; null when the session carries none. */
  orderId: string | null;
  expiresAt: Date;
}

export type ProviderEvent =
  | { kind: 'checkout.completed' | 'checkout.expired' | 'checkout.async_payment_succeeded' | 'checkout.async_payment_failed'; eventId: string; session: CheckoutSession }
  | { kind: 'ignored'; eventId: string; type: string };

export interface PaymentProvider {
  readonly name: string;
  /** @throws PaymentProviderUnavailable when the provider cannot be reached or refuses us (5xx, auth, rate limit). */
  createCheckoutSession(req: CheckoutRequest): Promise<CheckoutSession>;
  /** Null when the provider says the session does not exist. @throws PaymentProviderUnavailable like create. */
  retrieveSession(id: string): Promise<CheckoutSession | null>;
  /** Verifies the provider's signature over the raw body and parses it. @throws WebhookSignatureError on a bad or missing signature or a stale timestamp. */
  parseWebhook(rawBody: string | Buffer, signatureHeader: string | undefined): ProviderEvent;
}

/** The base of the provider's errors; `code` is stable, the message is for the log. */
export abstract class PaymentProviderError extends Error {
  abstract readonly code: string;
}

/** The provider could not be reached, failed (5xx), refused our credentials or rate-limited us: the caller answers 503 and retries later. */
export class PaymentProviderUnavailable extends PaymentProviderError {
  readonly code = 'PROVIDER_UNAVAILABLE';
  override readonly name = 'PaymentProviderUnavailable';
  /** The provider's HTTP status, when it answered at all. */
  readonly status: number | null;

  constructor(message: string, options: { cause: unknown; status?: number | null }) {
    super(message, { cause: options.cause });
    this.status = options.status ?? null;
  }
}

/** The provider refused the request itself (4xx other than auth and rate limit): a bug or a misconfiguration here, not a passing outage. */
export class PaymentProviderRejected extends PaymentProviderError {
  readonly code = 'PROVIDER_REJECTED';
  override readonly name = 'PaymentProviderRejected';
  readonly status: number;
  /** The provider's own error code (e.g. 'parameter_invalid_integer'), when it gave one. */
  readonly providerCode: string | null;

  constructor(message: string, options: { cause: unknown; status: number; providerCode?: string | null }) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.providerCode = options.providerCode ?? null;
  }
}

/** A webhook whose signature is missing, does not verify, or is too old to accept. */
export class WebhookSignatureError extends PaymentProviderError {
  readonly code = 'WEBHOOK_SIGNATURE_INVALID';
  override readonly name = 'WebhookSignatureError';

  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

// The shapes the webhook capabilities share: the filter an endpoint receives by, an endpoint, a delivery, the path
// parameters, and what every management capability declares (REST-only by the spec, scope webhooks:manage).
import { z } from 'zod';
import type { ErrorCode } from '../../../core/error-codes.ts';
import type { Scope } from '../../../core/scopes.ts';
import { MAX_FILTER_KINDS, MAX_FILTER_MARKETS, MAX_URL_LENGTH } from '../../../core/webhooks/policy.ts';
import { IsoTimestamp } from '../../../wire/schemas.ts';

export const WEBHOOK_SCOPES: readonly Scope[] = ['webhooks:manage'];
export const WEBHOOKS_REST_ONLY = { restOnly: 'webhooks are REST-only by the spec: manage endpoints over REST (GET /webhooks/discovery describes them)' } as const;
/** Every management call: a key of an agent (an operator key owns no endpoints). */
export const WEBHOOK_ERRORS: readonly ErrorCode[] = ['FORBIDDEN'];

export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' })
  .max(MAX_URL_LENGTH)
  .describe('where deliveries are POSTed: http(s), a public address (GET /webhooks/discovery "targets")');

const Kind = z.string().regex(/^[A-Za-z][A-Za-z0-9_.:*-]{0,63}$/, 'must be an event kind, or a prefix ending in .*');
const Market = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a market address');

export const WebhookFilterInput = z
  .strictObject({
    kinds: z.array(Kind).max(MAX_FILTER_KINDS).optional().describe('event kinds, exact or a prefix ending in .* (market.*); none: every kind'),
    markets: z.array(Market).max(MAX_FILTER_MARKETS).optional().describe('market addresses; none: every market'),
    includePrivate: z.boolean().optional().describe("the agent's own private events too (default true); never anyone else's"),
  })
  .describe('which events the endpoint receives (GET /events/discovery lists the kinds)');

/** The filter as stored: market addresses lowercase, as the outbox keeps them. */
export const filterOf = (f: z.output<typeof WebhookFilterInput>) => ({ ...f, ...(f.markets ? { markets: f.markets.map((m) => m.toLowerCase()) } : {}) });

export const WebhookFilterSchema = z.object({ kinds: z.array(z.string()).optional(), markets: z.array(z.string()).optional(), includePrivate: z.boolean().optional() });

export const WebhookEndpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  filter: WebhookFilterSchema,
  status: z.enum(['active', 'disabled']),
  disabledReason: z.enum(['GONE', 'FAILING', 'MANUAL']).nullable().describe('GONE: it answered 410; FAILING: every attempt failed for 5 days; MANUAL: PATCH status disabled'),
  cursorSequence: z.string().describe('the last outbox sequence scheduled for this endpoint'),
  previousSecretExpiresAt: IsoTimestamp.nullable().describe('while set, the rotated-out secret still signs alongside the current one'),
  failingSince: IsoTimestamp.nullable(),
  createdAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
});

export const WebhookDeliverySchema = z.object({
  id: z.uuid(),
  endpointId: z.uuid(),
  eventId: z.string().describe('the envelope id, sent as webhook-id on every attempt and replay'),
  eventSequence: z.string(),
  eventType: z.string(),
  status: z.enum(['pending', 'delivered', 'failed', 'abandoned']),
  attempts: z.number().int().nonnegative(),
  nextAttemptAt: IsoTimestamp.nullable(),
  lastAttemptAt: IsoTimestamp.nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: IsoTimestamp,
  deliveredAt: IsoTimestamp.nullable(),
});

export const EndpointParams = z.strictObject({ id: z.uuid() });
export const DeliveryParams = z.strictObject({ id: z.uuid(), deliveryId: z.uuid() });

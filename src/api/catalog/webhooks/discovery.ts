// GET /webhooks/discovery (spec: describes verification following the Standard Webhooks specification): the request
// a receiver gets, the exact signed string, the retry schedule, when an endpoint is disabled, rotation, the envelope,
// the filter, which targets are allowed, the management endpoints and the limits (docs/events.md "Webhooks"). Public.
import { z } from 'zod';
import {
  DELIVERY_TIMEOUT_MS,
  DISABLE_AFTER_FAILING_MS,
  MAX_ATTEMPTS,
  MAX_ENDPOINTS_PER_AGENT,
  MAX_FILTER_KINDS,
  MAX_FILTER_MARKETS,
  MAX_URL_LENGTH,
  RETRY_DELAYS_SECONDS,
  RETRY_JITTER,
  ROTATION_OVERLAP_MS,
} from '../../../core/webhooks/policy.ts';
import { WEBHOOK_SECRET_BYTES } from '../../../core/webhooks/signature.ts';
import { defineCapability } from '../types.ts';

const V1 = '/api/agent/v1';

export const webhooksDiscovery = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/webhooks/discovery',
  category: 'webhooks',
  summary: 'How webhooks are signed, verified, retried and managed',
  description:
    'Webhooks follow the Standard Webhooks specification: the request a receiver gets (headers, the event envelope as body), the exact signed string and how to verify it, the retry schedule, when an endpoint is disabled (410 at once, 5 days of failures), secret rotation with overlap, the filter, which target URLs are allowed, the management endpoints (REST-only, scope webhooks:manage) and the limits.',
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_webhooks_discovery' },
  output: z.looseObject({
    specification: z.looseObject({ name: z.string(), url: z.string() }),
    request: z.looseObject({ headers: z.looseObject({}) }),
    verification: z.looseObject({ signedContent: z.string() }),
    retries: z.looseObject({ delaysSeconds: z.array(z.number().int()) }),
    management: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string() })),
  }),
  outputName: 'WebhooksDiscovery',
  errors: [],
  handler: async (ctx) => {
    const base = ctx.documents.site.publicBaseUrl;
    const hours = (s: number) => s / 3600;
    return {
      specification: { name: 'Standard Webhooks', version: '1.0.0', url: 'https://www.standardwebhooks.com' },
      request: {
        method: 'POST',
        contentType: 'application/json',
        body: 'the event envelope (below) as minified JSON. Verify the raw bytes before parsing: re-serialised JSON does not verify.',
        headers: {
          'webhook-id': 'the envelope id (evt_<sequence>): the same on every retry and replay of the event; dedupe by it',
          'webhook-timestamp': 'unix seconds when this attempt was made',
          'webhook-signature': 'space-separated v1,<base64> signatures: one per live secret (two during a rotation overlap)',
          'content-type': 'application/json',
          'user-agent': 'svc-webhooks/1',
        },
        timeoutSeconds: DELIVERY_TIMEOUT_MS / 1000,
        success: 'any 2xx answer within the timeout; redirects are not followed (a 3xx is a failure: update the URL)',
      },
      verification: {
        signedContent: '${webhook-id}.${webhook-timestamp}.${raw body}',
        algorithm: 'HMAC-SHA256',
        key: "the secret's bytes: base64-decode what follows whsec_",
        signature: 'v1, followed by the base64 of the HMAC; accept the request when any v1 signature of webhook-signature equals yours (compare in constant time)',
        timestampTolerance: 'refuse a webhook-timestamp more than 5 minutes from your clock (replays)',
        library: "npm standardwebhooks (or any Standard Webhooks library): new Webhook(secret).verify(rawBody, headers) returns the parsed envelope or throws",
        example: {
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          headers: { 'webhook-id': 'evt_1234', 'webhook-timestamp': '1767225600', 'webhook-signature': 'v1,<base64 HMAC-SHA256 of "evt_1234.1767225600.<body>">' },
        },
      },
      secrets: {
        format: `whsec_ + base64 of ${WEBHOOK_SECRET_BYTES} random bytes, one per endpoint`,
        shown: 'once: in the answer of POST /webhooks and of POST /webhooks/{id}/rotate-secret (a retry of either answers secret null)',
        storage: 'sealed (AES-256-GCM) with a key only the service holds; never returned again',
      },
      envelope: {
        description: 'the same envelope WebSocket and SSE deliver (GET /events/discovery): the kind\'s own fields are in data',
        fields: {
          id: 'string, evt_<sequence>: stable per event',
          type: 'string, the event kind',
          sequence: 'string, the outbox sequence: global, strictly increasing, gap-free; order deliveries by it',
          timestamp: 'ISO 8601, when the event was written (webhook-timestamp is when the attempt was made)',
          chainId: 'integer, or null',
          marketAddress: 'lowercase address, or null',
          private: "boolean: true for an event only its agent's endpoints receive",
          data: 'object: the kind\'s fields (GET /events/discovery kinds[].data)',
        },
        kinds: `${base}${V1}/events/discovery`,
      },
      filter: {
        kinds: `event kinds, exact or a prefix ending in .* (market.*); at most ${MAX_FILTER_KINDS}; none: every kind`,
        markets: `market addresses; at most ${MAX_FILTER_MARKETS}; none: every market`,
        includePrivate: "your agent's own private events (negotiation.countered, execution:report) too; default true. Another agent's private events never reach your endpoints",
        appliesFrom: 'an endpoint receives the events written after it was registered; a filter change applies to the events scheduled after it',
      },
      retries: {
        delaysSeconds: [...RETRY_DELAYS_SECONDS],
        schedule: 'attempt 1 at once; each failure waits the next delay (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)',
        jitter: `each delay is lengthened by up to ${RETRY_JITTER * 100} %`,
        maxAttempts: MAX_ATTEMPTS,
        retryAfter: `a Retry-After in a failed answer pushes the next attempt later, up to ${hours(Math.max(...RETRY_DELAYS_SECONDS))} h`,
        failed: 'after the last failed attempt (about 27.6 hours after the first) the delivery is failed; replay it by hand',
        order: 'not guaranteed (attempts go out in parallel, retries overtake): order by the envelope sequence; delivery is at least once: dedupe by webhook-id',
        persisted: 'every delivery and attempt is kept in the database: a restart loses none, and of several processes one makes each attempt',
      },
      disabling: {
        gone: 'an answer of 410 Gone disables the endpoint at once (disabledReason GONE)',
        failing: `an endpoint whose attempts have all failed for ${DISABLE_AFTER_FAILING_MS / 86_400_000} days (no 2xx in between) is disabled (disabledReason FAILING)`,
        manual: 'PATCH /webhooks/{id} {"status":"disabled"} (disabledReason MANUAL)',
        effect: 'nothing is sent to a disabled endpoint; its pending deliveries become abandoned (replayable). PATCH {"status":"active"} re-enables it and scheduling resumes where it stopped: the events written meanwhile are delivered too',
      },
      rotation: {
        endpoint: `POST ${V1}/webhooks/{id}/rotate-secret`,
        overlapSeconds: ROTATION_OVERLAP_MS / 1000,
        rule: 'the new secret signs at once; the previous one also signs until previousSecretExpiresAt (overlapSeconds in the body: less, or 0 for a leaked secret), so a receiver holding either verifies every delivery; rotating again during an overlap drops the oldest',
      },
      targets: {
        schemes: ['https', 'http'],
        refused: 'URLs with credentials; this service itself; hosts that are, or resolve to, loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast or reserved addresses — checked at registration and again when each attempt connects',
        privateTargetsAllowed: ctx.services.webhooks.settings.allowPrivateTargets,
        privateTargetsNote: 'the operator may allow private targets on a test deployment (WEBHOOK_ALLOW_PRIVATE_TARGETS); never on a live one',
      },
      management: ctx.documents
        .agentCapabilities()
        .filter((c) => c.category === 'webhooks' && c.path !== '/webhooks/discovery')
        .map((c) => ({ method: c.method, path: `${V1}${c.path}`, summary: c.description.split('. ')[0]! })),
      authentication: 'an agent API key with scope webhooks:manage (wallet-registered agents have it); an agent manages its own endpoints only',
      restOnly: 'webhook management is REST-only by the spec; this document is also an MCP tool',
      limits: { endpointsPerAgent: MAX_ENDPOINTS_PER_AGENT, filterKinds: MAX_FILTER_KINDS, filterMarkets: MAX_FILTER_MARKETS, urlLength: MAX_URL_LENGTH, descriptionLength: 500, deliveriesPage: { minimum: 1, maximum: 100, default: 20 } },
    };
  },
});

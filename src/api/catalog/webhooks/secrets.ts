// POST /webhooks/:id/rotate-secret: a new signing secret, shown once; the previous one keeps signing alongside it for
// the overlap (docs/events.md "Webhooks", "Rotation").
import { z } from 'zod';
import { ROTATION_OVERLAP_MS } from '../../../core/webhooks/policy.ts';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { EndpointParams, WEBHOOK_ERRORS, WEBHOOK_SCOPES, WEBHOOKS_REST_ONLY, WebhookEndpointSchema } from './shared.ts';

const MAX_OVERLAP_SECONDS = ROTATION_OVERLAP_MS / 1000;

export const rotateWebhookSecret = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/webhooks/:id/rotate-secret',
  category: 'webhooks',
  summary: 'Rotate a webhook signing secret',
  description: `Makes a new whsec_ secret, in this response only. Deliveries are signed with it at once, and with the previous secret too (two v1 signatures in webhook-signature) until previousSecretExpiresAt: overlapSeconds, default and most ${MAX_OVERLAP_SECONDS} (24 h); 0 stops the old secret at once (a leaked one). Switch your receiver to the new secret within the overlap. Rotating again during an overlap drops the oldest secret. A retry of this request answers secret null.`,
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'write',
  idempotent: false,
  destructive: true,
  mcp: WEBHOOKS_REST_ONLY,
  input: { params: EndpointParams, body: z.strictObject({ overlapSeconds: z.number().int().min(0).max(MAX_OVERLAP_SECONDS).optional() }).optional() },
  output: z.object({
    endpoint: WebhookEndpointSchema,
    secret: z.string().nullable().describe('the new whsec_ secret: shown once; null when a retry rebuilds the answer'),
    previousSecretExpiresAt: IsoTimestamp.nullable(),
  }),
  outputName: 'RotatedWebhookSecret',
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_NOT_FOUND'],
  redactForReplay: (body) => ({ ...body, secret: null }),
  handler: async (ctx, { params, body }) => ctx.services.webhooks.rotateSecret(ctx.principal.agentId, params.id, body?.overlapSeconds, ctx.recordEffect ?? undefined),
  replayEffect: async (ctx, id) => ctx.services.webhooks.recordedRotation(ctx.principal.agentId, id),
});

// An endpoint's delivery log and the replay action (docs/events.md "Webhooks"): what was sent, how it was answered,
// when the next attempt is due; a replay sends a delivery again with a fresh retry schedule.
import { z } from 'zod';
import { defineCapability } from '../types.ts';
import { DeliveryParams, EndpointParams, WEBHOOK_ERRORS, WEBHOOK_SCOPES, WEBHOOKS_REST_ONLY, WebhookDeliverySchema } from './shared.ts';

export const listWebhookDeliveries = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/webhooks/:id/deliveries',
  category: 'webhooks',
  summary: "A webhook endpoint's delivery log",
  description:
    'Deliveries of the endpoint, newest event first, in pages of limit (1..100, default 20) with nextCursor; status narrows to pending, delivered, failed (every attempt failed, or 410) or abandoned (the endpoint was disabled while it waited). Each has its attempts, the last status code or error, and the next attempt.',
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'read',
  idempotent: true,
  mcp: WEBHOOKS_REST_ONLY,
  input: {
    params: EndpointParams,
    query: z.strictObject({
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(100).default(20),
      cursor: z.string().regex(/^[0-9]{1,20}$/, 'must be the nextCursor of the previous page').optional(),
      status: z.enum(['pending', 'delivered', 'failed', 'abandoned']).optional(),
    }),
  },
  output: z.object({ deliveries: z.array(WebhookDeliverySchema), nextCursor: z.string().nullable() }),
  outputName: 'WebhookDeliveryPage',
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_NOT_FOUND'],
  handler: async (ctx, { params, query }) => ctx.services.webhooks.deliveries(ctx.principal.agentId, params.id, query),
});

export const replayWebhookDelivery = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/webhooks/:id/deliveries/:deliveryId/replay',
  category: 'webhooks',
  summary: 'Send a webhook delivery again',
  description:
    'Makes the delivery pending and due now, whatever its status, with a fresh retry schedule; it is sent with the same webhook-id (dedupe by it) and the current secrets. The endpoint must be active (PATCH status active first).',
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'write',
  idempotent: false,
  mcp: WEBHOOKS_REST_ONLY,
  input: { params: DeliveryParams, body: z.strictObject({}).optional() },
  output: WebhookDeliverySchema,
  outputName: 'WebhookDelivery',
  successStatus: 202,
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND', 'WEBHOOK_DISABLED'],
  handler: async (ctx, { params }) => ctx.services.webhooks.replay(ctx.principal.agentId, params.id, params.deliveryId, ctx.recordEffect ?? undefined),
  replayEffect: async (ctx, deliveryId, { params }) => ctx.services.webhooks.delivery(ctx.principal.agentId, params.id, deliveryId),
});

// Webhook endpoints (docs/events.md "Webhooks"): register (the signing secret shown once), list, read, change, delete.
// REST-only by the spec; scope webhooks:manage; an agent sees and changes only its own endpoints.
import { z } from 'zod';
import { defineCapability } from '../types.ts';
import { EndpointParams, filterOf, WEBHOOK_ERRORS, WEBHOOK_SCOPES, WEBHOOKS_REST_ONLY, WebhookEndpointSchema, WebhookFilterInput, WebhookUrl } from './shared.ts';

const Description = z.string().max(500).describe('your note, up to 500 characters');

export const registerWebhook = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/webhooks',
  category: 'webhooks',
  summary: 'Register a webhook endpoint',
  description:
    'Registers a URL to receive events as Standard Webhooks: every event written from now on that matches filter (kinds, markets; your own private events unless includePrivate is false, never anyone else\'s) is POSTed as the event envelope, signed with the endpoint\'s secret (webhook-id, webhook-timestamp, webhook-signature). The secret (whsec_…) is in this response only: keep it; a retry of this request answers secret null (rotate to get a new one). The URL must be http(s) and resolve to public addresses only. At most 10 endpoints per agent. GET /webhooks/discovery tells how to verify.',
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'write',
  idempotent: false,
  mcp: WEBHOOKS_REST_ONLY,
  input: { body: z.strictObject({ url: WebhookUrl, description: Description.optional(), filter: WebhookFilterInput.optional() }) },
  output: z.object({ endpoint: WebhookEndpointSchema, secret: z.string().nullable().describe('whsec_ + base64: shown once; null when a retry rebuilds the answer') }),
  outputName: 'RegisteredWebhook',
  successStatus: 201,
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_TARGET_REFUSED', 'WEBHOOK_ENDPOINT_LIMIT'],
  redactForReplay: (body) => ({ ...body, secret: null }),
  handler: async (ctx, { body }) =>
    ctx.services.webhooks.register(ctx.principal.agentId, { url: body.url, description: body.description, filter: body.filter && filterOf(body.filter) }, ctx.recordEffect ?? undefined),
  replayEffect: async (ctx, id) => ({ endpoint: await ctx.services.webhooks.get(ctx.principal.agentId, id), secret: null }),
});

export const listWebhooks = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/webhooks',
  category: 'webhooks',
  summary: 'Your webhook endpoints',
  description: "The calling agent's endpoints, oldest first, with status (and why disabled), filter, cursor and rotation overlap; never their secrets.",
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'read',
  idempotent: true,
  mcp: WEBHOOKS_REST_ONLY,
  output: z.object({ endpoints: z.array(WebhookEndpointSchema) }),
  outputName: 'WebhookEndpointList',
  errors: WEBHOOK_ERRORS,
  handler: async (ctx) => ({ endpoints: await ctx.services.webhooks.list(ctx.principal.agentId) }),
});

export const getWebhook = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/webhooks/:id',
  category: 'webhooks',
  summary: 'One webhook endpoint',
  description: 'One of your endpoints; never its secret. Another agent\'s endpoint answers 404 like a missing one.',
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'read',
  idempotent: true,
  mcp: WEBHOOKS_REST_ONLY,
  input: { params: EndpointParams },
  output: WebhookEndpointSchema,
  outputName: 'WebhookEndpoint',
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_NOT_FOUND'],
  handler: async (ctx, { params }) => ctx.services.webhooks.get(ctx.principal.agentId, params.id),
});

export const updateWebhook = defineCapability({
  surface: 'agent',
  method: 'PATCH',
  path: '/webhooks/:id',
  category: 'webhooks',
  summary: 'Change a webhook endpoint',
  description:
    'Changes any of url (checked as at registration), description, filter (it applies to events from now on) and status. status disabled stops deliveries (reason MANUAL; pending deliveries become abandoned, replayable later); status active re-enables an endpoint disabled for any reason and resumes where it stopped, so the events written while it was disabled are delivered too.',
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'write',
  idempotent: true,
  mcp: WEBHOOKS_REST_ONLY,
  input: {
    params: EndpointParams,
    body: z
      .strictObject({ url: WebhookUrl.optional(), description: Description.nullable().optional(), filter: WebhookFilterInput.optional(), status: z.enum(['active', 'disabled']).optional() })
      .refine((b) => Object.keys(b).length > 0, 'name at least one of url, description, filter, status'),
  },
  output: WebhookEndpointSchema,
  outputName: 'WebhookEndpoint',
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_NOT_FOUND', 'WEBHOOK_TARGET_REFUSED'],
  handler: async (ctx, { params, body }) =>
    ctx.services.webhooks.update(ctx.principal.agentId, params.id, { ...body, filter: body.filter && filterOf(body.filter) }, ctx.recordEffect ?? undefined),
  replayEffect: async (ctx, id) => ctx.services.webhooks.get(ctx.principal.agentId, id),
});

export const deleteWebhook = defineCapability({
  surface: 'agent',
  method: 'DELETE',
  path: '/webhooks/:id',
  category: 'webhooks',
  summary: 'Delete a webhook endpoint',
  description: 'Deletes the endpoint and its delivery log; nothing more is sent to it. Deleting it again answers 404.',
  tier: 'read-only',
  scopes: WEBHOOK_SCOPES,
  rateClass: 'write',
  idempotent: true,
  destructive: true,
  mcp: WEBHOOKS_REST_ONLY,
  input: { params: EndpointParams },
  output: z.object({ id: z.uuid(), deleted: z.literal(true) }),
  outputName: 'DeletedWebhook',
  errors: [...WEBHOOK_ERRORS, 'WEBHOOK_NOT_FOUND'],
  handler: async (ctx, { params }) => ctx.services.webhooks.remove(ctx.principal.agentId, params.id, ctx.recordEffect ?? undefined),
  replayEffect: async (_ctx, id) => ({ id, deleted: true as const }),
});

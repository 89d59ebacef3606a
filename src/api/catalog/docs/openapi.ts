import { z } from 'zod';
import { defineCapability } from '../types.ts';

const OpenApiDocument = z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({}), paths: z.looseObject({}) });

export const agentOpenApi = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/openapi.json',
  category: 'discovery',
  summary: 'Agent OpenAPI document',
  description: 'OpenAPI 3.1 description of the agent interface, generated from the capability catalog.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_openapi' },
  output: OpenApiDocument,
  errors: [],
  handler: async (ctx) => ctx.documents.openApi('agent') as z.output<typeof OpenApiDocument>,
});

export const consumerOpenApi = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/openapi.json',
  category: 'discovery',
  summary: 'Consumer OpenAPI document',
  description: 'OpenAPI 3.1 description of the consumer interface, generated from the capability catalog.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  output: OpenApiDocument,
  errors: [],
  handler: async (ctx) => ctx.documents.openApi('consumer') as z.output<typeof OpenApiDocument>,
});

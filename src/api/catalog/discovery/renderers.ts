// GET /discover/renderers: the native renderer catalog, a UI hint naming the discovery read behind each view.
import { z } from 'zod';
import { PRICING_MODELS, RENDERER_KINDS, RENDERERS } from '../../../core/markets/renderers.ts';
import { defineCapability } from '../types.ts';

const RendererSchema = z.object({
  id: z.string(),
  kind: z.enum(RENDERER_KINDS),
  description: z.string(),
  appliesTo: z.object({
    pricingModel: z.array(z.enum(PRICING_MODELS)),
    outcomeCount: z.array(z.number().int().min(2)),
  }),
  dataSource: z.string().describe('agent API path relative to /api/agent/v1; {address} is the market address'),
  version: z.number().int().positive(),
});

export const discoverRenderers = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/renderers',
  category: 'discovery',
  summary: 'Renderer catalog',
  description:
    'The native renderer catalog (a UI hint): market card, price chart, depth ladders (LMSR buy ladder or order book), trade tape and holder distribution, each with the markets it applies to (pricingModel, outcomeCount) and the discovery path that feeds it. Skip a kind or version you do not know.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_renderers' },
  output: z.object({ renderers: z.array(RendererSchema) }),
  outputName: 'RendererCatalog',
  errors: [],
  handler: async () => ({
    renderers: RENDERERS.map((r) => ({ ...r, appliesTo: { pricingModel: [...r.appliesTo.pricingModel], outcomeCount: [...r.appliesTo.outcomeCount] } })),
  }),
});

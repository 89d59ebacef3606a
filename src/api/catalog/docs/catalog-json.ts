// GET /catalog.json: the agent capability catalog, its MCP tools and the REST-only list as one document.
import { CatalogDocumentSchema } from '../../docs/catalog-document-schema.ts';
import { defineCapability } from '../types.ts';

export const catalogJson = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/catalog.json',
  category: 'discovery',
  summary: 'Capability catalog',
  description:
    'Every agent capability (method, path, tier, scopes, rate class, idempotency, error codes, MCP tool or REST-only reason, wallet-proof elevation, input and output JSON Schemas), the MCP tool definitions exactly as tools/list serves them, and the REST-only capabilities. Generated from the capability catalog.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_catalog' },
  output: CatalogDocumentSchema,
  outputName: 'CatalogDocument',
  errors: [],
  handler: async (ctx) => ctx.documents.catalogDocument(),
});

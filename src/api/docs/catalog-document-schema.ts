// The shape of GET /catalog.json; built from the catalog in catalog-document.ts.
import { z } from 'zod';
import { AgentTierSchema } from '../../wire/schemas.ts';

const Json = z.record(z.string(), z.unknown());

export const CatalogEntrySchema = z.object({
  name: z.string(),
  method: z.string(),
  /** Absolute URL path (Fastify syntax: `:param`). */
  path: z.string(),
  category: z.string(),
  summary: z.string(),
  description: z.string(),
  /** null: public, no API key. */
  requiredTier: AgentTierSchema.nullable(),
  scopes: z.array(z.string()),
  rateClass: z.enum(['read', 'write', 'data', 'uncharged']),
  idempotent: z.boolean(),
  /** read: changes nothing (the tool's readOnlyHint), whatever the method; write: changes something. */
  effect: z.enum(['read', 'write']),
  requiresIdempotencyKey: z.boolean(),
  /** Every problem code the REST route can answer: the capability's own and the pipeline's. */
  errors: z.array(z.string()),
  mcp: z.object({ tool: z.string().nullable(), restOnly: z.string().nullable(), elevation: z.object({ scope: z.string() }).nullable() }),
  /** JSON Schema (2020-12) of each input part; null when the capability takes none. */
  inputSchema: z.object({ params: Json.nullable(), query: Json.nullable(), body: Json.nullable() }),
  outputSchema: Json,
});

export const CatalogDocumentSchema = z.object({
  version: z.string(),
  generatedFrom: z.literal('capability catalog'),
  capabilities: z.array(CatalogEntrySchema),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string(),
      description: z.string(),
      inputSchema: Json,
      outputSchema: Json,
      annotations: z.object({ title: z.string(), readOnlyHint: z.boolean(), idempotentHint: z.boolean(), destructiveHint: z.boolean(), openWorldHint: z.boolean() }),
    }),
  ),
  restOnly: z.array(z.object({ capability: z.string(), reason: z.string(), paths: z.array(z.string()) })),
});

export type CatalogDocument = z.output<typeof CatalogDocumentSchema>;

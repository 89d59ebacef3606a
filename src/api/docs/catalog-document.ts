/**
 * GET /catalog.json: the agent capability catalog as one document — every agent capability with
 * its tier, scopes, rate class, idempotency, errors, MCP mapping and JSON Schemas, plus the MCP
 * tool definitions exactly as tools/list serves them and the REST-only list. Generated, never
 * hand-written.
 */
import { z } from 'zod';
import type { Capability } from '../catalog/types.ts';
import { CURRENT_VERSION } from '../http/versions.ts';
import { buildTools } from '../mcp/tools.ts';
import { jsonSchema, pipelineErrors } from './openapi.ts';
import type { CatalogDocument } from './catalog-document-schema.ts';


const schemaOrNull = (schema: z.ZodType | undefined) => (schema ? jsonSchema(schema, 'input') : null);

export function buildCatalogDocument(catalog: readonly Capability[]): CatalogDocument {
  const capabilities = catalog.filter((c) => c.surface === 'agent').map(entryOf);
  return {
    version: CURRENT_VERSION,
    generatedFrom: 'capability catalog',
    capabilities,
    tools: buildTools(catalog).map(({ definition: d }) => ({
      name: d.name,
      title: d.title,
      description: d.description,
      inputSchema: d.inputSchema,
      outputSchema: d.outputSchema,
      annotations: d.annotations,
    })),
    // The same list as GET /mcp-discovery surfacePolicy.intentionalRestOnly.
    restOnly: capabilities.flatMap((e) => (e.mcp.restOnly === null ? [] : [{ capability: e.name, reason: e.mcp.restOnly, paths: [e.path] }])),
  };
}

function entryOf(cap: Capability): CatalogDocument['capabilities'][number] {
  return {
    name: cap.name,
    method: cap.method,
    path: cap.fullPath,
    category: cap.category,
    summary: cap.summary,
    description: cap.description,
    requiredTier: cap.tier,
    scopes: [...cap.scopes],
    rateClass: cap.rateClass,
    idempotent: cap.idempotent,
    effect: cap.effect,
    requiresIdempotencyKey: cap.requiresIdempotencyKey,
    errors: [...new Set([...cap.errors, ...pipelineErrors(cap)])],
    mcp: {
      tool: cap.mcp && 'tool' in cap.mcp ? cap.mcp.tool : null,
      restOnly: cap.mcp && 'restOnly' in cap.mcp ? cap.mcp.restOnly : null,
      elevation: cap.mcpElevation ? { scope: cap.mcpElevation.scope } : null,
    },
    inputSchema: { params: schemaOrNull(cap.input?.params), query: schemaOrNull(cap.input?.query), body: schemaOrNull(cap.input?.body) },
    outputSchema: jsonSchema(cap.output, 'output'),
  };
}

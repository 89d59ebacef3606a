/**
 * OpenAPI 3.1 documents generated from the capability catalog, one per surface. Schemas come from
 * the same zod definitions that validate requests (JSON Schema 2020-12, OpenAPI 3.1's dialect).
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../core/error-codes.ts';
import { WALLET_SESSION_COOKIE, WALLET_SESSION_HEADER } from '../../core/wallet-session.ts';
import { ProblemDetailsSchema } from '../../wire/schemas.ts';
import { SURFACE_PREFIX, type Capability, type Surface } from '../catalog/types.ts';

type JsonSchema = Record<string, unknown>;

/** Each schema's JSON Schema, made once per process: a runtime's documents and MCP tools ask for hundreds of them. */
const converted = new WeakMap<z.ZodType, Partial<Record<'input' | 'output', JsonSchema>>>();

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  let bySchema = converted.get(schema);
  if (!bySchema) converted.set(schema, (bySchema = {}));
  const made = (bySchema[io] ??= (() => {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    return rest;
  })());
  // A copy: callers build their documents from it, and may change what they were given.
  return structuredClone(made);
}

const toOpenApiPath = (p: string): string => p.replace(/:(\w+)/g, '{$1}');

const INFO: Record<Surface, { title: string; version: string; description: string }> = {
  agent: {
    title: 'svc agent API',
    version: '2026-11-01',
    description: 'Agent interface of svc, an agent-native prediction-market protocol server. Generated from the capability catalog.',
  },
  consumer: {
    title: 'svc consumer API',
    version: '1.0.0',
    description: 'Consumer interface of svc: market discovery, PM purchase, reputation reads and transaction status. Generated from the capability catalog.',
  },
};

export function buildOpenApi(catalog: readonly Capability[], surface: Surface, publicBaseUrl: string): JsonSchema {
  const schemas: Record<string, JsonSchema> = { ProblemDetails: jsonSchema(ProblemDetailsSchema, 'output') };
  const paths: Record<string, Record<string, unknown>> = {};

  for (const cap of catalog.filter((c) => c.surface === surface)) {
    const parameters: JsonSchema[] = [];
    for (const [location, schema] of [
      ['path', cap.input?.params],
      ['query', cap.input?.query],
    ] as const) {
      if (!schema) continue;
      const js = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, prop] of Object.entries(js.properties ?? {})) {
        const { description, ...propSchema } = prop as JsonSchema & { description?: string };
        parameters.push({
          name,
          in: location,
          required: location === 'path' || (js.required ?? []).includes(name),
          schema: propSchema,
          ...(description ? { description } : {}),
        });
      }
    }
    if (cap.requiresIdempotencyKey) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description: 'Retry key: the same key with the same request replays the stored response; with a different request it is refused (422 IDEMPOTENCY_KEY_REUSED).',
        schema: { type: 'string', minLength: 1, maxLength: 256 },
      });
    }
    if (surface === 'agent') {
      parameters.push({
        name: 'Svc-Version',
        in: 'header',
        required: false,
        description: 'Pins the agent API date-version; absent means the current version.',
        schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
      });
    }

    const outputSchema = jsonSchema(cap.output, 'output');
    let okSchema: JsonSchema = outputSchema;
    if (cap.outputName) {
      schemas[cap.outputName] = outputSchema;
      okSchema = { $ref: `#/components/schemas/${cap.outputName}` };
    }
    const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } };
    const responses: Record<string, unknown> = {
      [String(cap.successStatus ?? 200)]: {
        description: cap.summary,
        content: { 'application/json': { schema: okSchema } },
        ...(cap.responseHeaders
          ? {
              headers: Object.fromEntries(
                Object.entries(cap.responseHeaders).map(([h, d]) => [h, { description: d.description, required: d.required ?? false, schema: { type: 'string' } }]),
              ),
            }
          : {}),
      },
    };
    for (const status of cap.alsoOutputStatuses ?? []) {
      responses[String(status)] = { description: `${cap.summary} (status ${status})`, content: { 'application/json': { schema: okSchema } } };
    }
    const byStatus = new Map<number, string[]>();
    for (const code of new Set([...cap.errors, ...pipelineErrors(cap)])) {
      const status = ERROR_CODES[code].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(status)] = { description: codes.join(', '), content: problemContent };
    }
    responses.default = { description: 'Problem details (RFC 9457)', content: problemContent };

    const operation: Record<string, unknown> = {
      operationId: operationIdOf(cap),
      summary: cap.summary,
      description: cap.description,
      tags: [cap.category],
      security: securityOf(cap),
      parameters,
      responses,
      'x-svc-capability': {
        name: cap.name,
        requiredTier: cap.tier,
        permission: cap.permission,
        scopes: cap.scopes,
        rateClass: cap.rateClass,
        idempotent: cap.idempotent,
        mcpTool: cap.mcp && 'tool' in cap.mcp ? cap.mcp.tool : null,
      },
    };
    if (cap.input?.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(cap.input.body, 'input') } } };
    }
    const p = toOpenApiPath(cap.fullPath);
    paths[p] = { ...(paths[p] ?? {}), [cap.method.toLowerCase()]: operation };
  }

  return {
    openapi: '3.1.0',
    info: INFO[surface],
    servers: [{ url: publicBaseUrl, description: `${surface} interface; paths below start with ${SURFACE_PREFIX[surface]}` }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: Authorization: Bearer <key>' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Accepted alias of the bearer header' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: WALLET_SESSION_COOKIE, description: 'Consumer wallet session cookie, set by POST /api/auth/verify (Sign-In with Ethereum)' },
        developerAuthHeader: { type: 'apiKey', in: 'header', name: WALLET_SESSION_HEADER, description: 'The same wallet session for non-browser clients: the token POST /api/auth/verify returns' },
      },
    },
  };
}

/** API key (either header) when the capability has a tier, AND a wallet session (either scheme) when it has walletAuth. */
function securityOf(cap: Capability): Record<string, string[]>[] {
  const keys = cap.tier === null ? [{}] : [{ bearerAuth: [] }, { apiKeyHeader: [] }];
  const wallets = cap.walletAuth ? [{ cookieAuth: [] }, { developerAuthHeader: [] }] : [{}];
  const alternatives = keys.flatMap((k) => wallets.map((w) => ({ ...k, ...w })));
  // walletSession: 'principal': a wallet session alone, in place of the key (docs/web.md "Trading with a wallet session").
  if (cap.walletSession) alternatives.push({ cookieAuth: [] }, { developerAuthHeader: [] });
  return alternatives.filter((a) => Object.keys(a).length > 0);
}

/** Codes the pipeline itself can answer for this capability, so definitions list only their own. */
export function pipelineErrors(cap: Capability): ErrorCode[] {
  const codes: ErrorCode[] = ['INVALID_API_KEY', 'API_KEY_REVOKED', 'API_KEY_EXPIRED', 'API_KEY_DORMANT'];
  if (cap.tier !== null) codes.push('API_KEY_REQUIRED', 'INSUFFICIENT_TIER', 'INSUFFICIENT_SCOPE');
  if (cap.walletAuth) codes.push('WALLET_AUTH_REQUIRED');
  // A session in place of the key: unusable (401), a cookie write without the CSRF guard (403), or a wallet with no
  // agent while the wallet registration path is closed (403 FEATURE_DISABLED).
  if (cap.walletSession) codes.push('WALLET_AUTH_REQUIRED', 'FORBIDDEN', 'FEATURE_DISABLED');
  if (cap.rateClass !== 'uncharged') codes.push('RATE_LIMITED');
  // Every capability refuses unknown query parameters and text the database cannot store (src/api/pipeline/execute.ts).
  codes.push(cap.invalidInputCode);
  for (const part of ['params', 'query', 'body'] as const) if (cap.input?.[part]) codes.push(cap.inputCodes[part]);
  if (cap.input?.body) codes.push('MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE');
  if (cap.requiresIdempotencyKey) codes.push('IDEMPOTENCY_KEY_REQUIRED', 'INVALID_IDEMPOTENCY_KEY', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS');
  if (cap.needsChain) codes.push('SERVICE_UNAVAILABLE');
  return codes;
}

function operationIdOf(cap: Capability): string {
  const slug = `${cap.method.toLowerCase()}_${cap.fullPath.replace(/^\/api\/(agent\/v1|v1)/, '').replace(/[:{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_')}`;
  return `${cap.surface}_${slug.replace(/_+$/, '')}`;
}

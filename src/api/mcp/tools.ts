/**
 * MCP tools, generated from the capability catalog: every agent capability that the spec does not
 * keep REST-only is one tool, with one flat argument object (path parameters, query fields and body
 * fields side by side, plus idempotencyKey wherever the REST twin takes the Idempotency-Key header and
 * the wallet-proof fields for an elevated one), JSON Schema 2020-12 input and output schemas, and
 * annotations derived from the capability's declared effect. Nothing here is written per tool.
 */
import type { z } from 'zod';
import { problem } from '../../core/error-codes.ts';
import { WALLET_PROOF_INPUT_FIELDS } from '../../core/wallet-proof.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../services/idempotency/idempotency.ts';
import { jsonSchema } from '../docs/openapi.ts';
import type { Capability } from '../catalog/types.ts';
import type { WalletProofArguments } from '../../services/identity/elevation.ts';

type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
export const IDEMPOTENCY_ARGUMENT = 'idempotencyKey';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; idempotentHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
}

export interface McpTool {
  capability: Capability;
  definition: ToolDefinition;
  /** Which flat argument goes where: path parameters and query fields by name, the rest to the body. */
  paramKeys: ReadonlySet<string>;
  queryKeys: ReadonlySet<string>;
  /**
   * Proof fields the body names too (a ballot's walletAddress): one argument, which is both the wallet that proves
   * itself and the body's field, so the proof and the act cannot name two wallets.
   */
  sharedProofKeys: ReadonlySet<string>;
}

/** Arguments of one call, split back into the REST shape the pipeline validates. */
export interface SplitArguments {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  idempotencyKey: string | undefined;
  walletProof: WalletProofArguments | undefined;
  /** The tool-intent payload a wallet proof signs: every argument except the proof fields and idempotencyKey. */
  intent: Record<string, unknown>;
}

/**
 * The idempotencyKey argument of a tool whose REST twin takes the Idempotency-Key header (every method but GET), with
 * the header's rules: required, and honoured in the same replay store, exactly where REST requires the header; accepted
 * and unused where REST exempts the call, as the header is (docs/mcp.md "Idempotency").
 */
function idempotencySchema(cap: Capability): JsonSchema {
  const base = { type: 'string', minLength: 1, maxLength: 256, pattern: IDEMPOTENCY_KEY_PATTERN.source };
  if (cap.requiresIdempotencyKey) {
    return {
      ...base,
      description:
        'Required stable retry key (the REST Idempotency-Key, same store): a retry with the same key and the same arguments returns the stored result and changes nothing more; other arguments with a used key are refused (IDEMPOTENCY_KEY_REUSED).',
    };
  }
  const why = cap.effect === 'read' ? 'this tool changes nothing' : `this tool is exempt: ${cap.idempotencyExempt ?? ''}`;
  return { ...base, description: `Optional and unused, like the Idempotency-Key header on its REST twin: ${why}, so repeating the call is already safe.` };
}

/** Tools whose REST twin takes an Idempotency-Key header (required or not) take the idempotencyKey argument. */
const takesIdempotencyKey = (cap: Capability): boolean => cap.method !== 'GET';

const PROOF_SCHEMAS: Record<string, JsonSchema> = {
  walletAddress: { type: 'string', pattern: '^0x[a-fA-F0-9]{40}$', description: 'The wallet that signs the proof; may be omitted when the agent has a bound wallet (that wallet is used).' },
  walletSignature: { type: 'string', minLength: 1, description: 'EIP-191 signature of the svc-mcp-auth message (GET /mcp-discovery toolElevation.walletProof).' },
  signatureTimestamp: { type: 'integer', exclusiveMinimum: 0, description: 'Unix seconds when the message was signed; within 300 s of server time.' },
  proofNonce: { type: 'string', minLength: 1, maxLength: 256, description: 'A single-use nonce from POST /api/auth/nonce.' },
};

export function isTool(cap: Capability): boolean {
  return cap.surface === 'agent' && cap.mcp !== undefined && 'tool' in cap.mcp;
}

export const toolNameOfCapability = (cap: Capability): string => (cap.mcp && 'tool' in cap.mcp ? cap.mcp.tool : '');

export function buildTools(catalog: readonly Capability[]): McpTool[] {
  return catalog.filter(isTool).map(buildTool);
}

function buildTool(cap: Capability): McpTool {
  const name = toolNameOfCapability(cap);
  const params = objectParts(cap.input?.params, name, 'params');
  const query = objectParts(cap.input?.query, name, 'query');
  const extra: JsonSchema = {};
  const extraRequired: string[] = [];
  if (takesIdempotencyKey(cap)) extra[IDEMPOTENCY_ARGUMENT] = idempotencySchema(cap);
  if (cap.requiresIdempotencyKey) extraRequired.push(IDEMPOTENCY_ARGUMENT);
  const bodyKeys = new Set(Object.keys(((cap.input?.body ? jsonSchema(cap.input.body, 'input') : {}) as { properties?: JsonSchema }).properties ?? {}));
  const sharedProofKeys = new Set(cap.mcpElevation ? WALLET_PROOF_INPUT_FIELDS.filter((k) => k === 'walletAddress' && bodyKeys.has(k)) : []);
  if (cap.mcpElevation) {
    Object.assign(extra, Object.fromEntries(Object.entries(PROOF_SCHEMAS).filter(([k]) => !sharedProofKeys.has(k))));
    extraRequired.push('walletSignature', 'signatureTimestamp', 'proofNonce', ...(cap.mcpElevation.walletRequired && !sharedProofKeys.has('walletAddress') ? ['walletAddress'] : []));
  }
  const shared = { ...params.properties, ...query.properties, ...extra };
  const sharedRequired = [...params.required, ...query.required, ...extraRequired];

  let inputSchema: JsonSchema & { type: 'object' };
  if (cap.input?.body) {
    const body = jsonSchema(cap.input.body, 'input');
    inputSchema = { $schema: JSON_SCHEMA_2020_12, ...withShared(body, shared, sharedRequired, name), type: 'object' };
  } else {
    inputSchema = { $schema: JSON_SCHEMA_2020_12, type: 'object', properties: shared, required: sharedRequired, additionalProperties: false };
  }
  if ((inputSchema.required as string[] | undefined)?.length === 0) delete inputSchema.required;

  const output = jsonSchema(cap.output, 'output');
  if (!isObjectSchema(output)) throw new Error(`tool ${name}: the output of ${cap.name} must be a JSON object to be structuredContent`);

  const readOnly = cap.effect === 'read';
  return {
    capability: cap,
    paramKeys: new Set(Object.keys(params.properties)),
    queryKeys: new Set(Object.keys(query.properties)),
    sharedProofKeys,
    definition: {
      name,
      title: cap.summary,
      description: `${cap.description}\n\nREST twin: ${cap.method} ${cap.fullPath}. ${tierNote(cap)}`,
      inputSchema,
      outputSchema: { $schema: JSON_SCHEMA_2020_12, ...output, type: 'object' },
      annotations: {
        title: cap.summary,
        readOnlyHint: readOnly,
        idempotentHint: cap.idempotent,
        destructiveHint: !readOnly && cap.destructive === true,
        openWorldHint: false,
      },
    },
  };
}

const tierNote = (cap: Capability): string =>
  cap.tier === null ? 'Public: no API key needed.' : `Needs an API key of tier ${cap.tier}${cap.scopes.length ? ` with scopes ${cap.scopes.join(', ')}` : ''}.`;

function objectParts(schema: z.ZodType | undefined, tool: string, where: string) {
  if (!schema) return { properties: {} as JsonSchema, required: [] as string[] };
  const js = jsonSchema(schema, 'input') as { properties?: JsonSchema; required?: string[] };
  if (!js.properties) throw new Error(`tool ${tool}: ${where} must be an object schema`);
  return { properties: js.properties, required: js.required ?? [] };
}

/** Adds the shared properties to an object body schema, or to every branch of a union body. */
function withShared(body: JsonSchema, shared: JsonSchema, required: string[], tool: string): JsonSchema {
  for (const union of ['oneOf', 'anyOf'] as const) {
    const branches = body[union] as JsonSchema[] | undefined;
    if (branches) return { ...body, [union]: branches.map((b) => withShared(b, shared, required, tool)) };
  }
  const properties = (body.properties ?? {}) as JsonSchema;
  const clash = Object.keys(shared).find((k) => k in properties);
  if (clash) throw new Error(`tool ${tool}: argument ${clash} is both a body field and a path, query or tool field`);
  return { ...body, type: 'object', properties: { ...properties, ...shared }, required: [...((body.required as string[]) ?? []), ...required] };
}

/** An object, or a union whose every branch is one (MCP outputSchema and structuredContent are objects). */
function isObjectSchema(schema: JsonSchema): boolean {
  if (schema.type === 'object') return true;
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  return Array.isArray(branches) && branches.length > 0 && branches.every(isObjectSchema);
}

/** Splits flat tool arguments into params, query, body, the idempotency key and the wallet proof. */
export function splitArguments(tool: McpTool, args: Record<string, unknown>): SplitArguments {
  const cap = tool.capability;
  const out: SplitArguments = { params: {}, query: {}, body: undefined, idempotencyKey: undefined, walletProof: undefined, intent: {} };
  const body: Record<string, unknown> = {};
  const proof: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (key === IDEMPOTENCY_ARGUMENT && takesIdempotencyKey(cap)) {
      if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
        throw problem('INVALID_IDEMPOTENCY_KEY', 'idempotencyKey must be a string of 1..256 visible ASCII characters');
      }
      out.idempotencyKey = value;
      continue;
    }
    if (cap.mcpElevation && WALLET_PROOF_INPUT_FIELDS.includes(key)) {
      proof[key] = value;
      if (tool.sharedProofKeys.has(key)) body[key] = value; // outside the signed intent, like every proof field
      continue;
    }
    out.intent[key] = value;
    if (tool.paramKeys.has(key)) out.params[key] = typeof value === 'string' ? value : String(value);
    else if (tool.queryKeys.has(key)) out.query[key] = value;
    else body[key] = value;
  }
  if (cap.input?.body) out.body = body;
  else if (Object.keys(body).length > 0) {
    const unknown = Object.keys(body);
    throw problem(cap.invalidInputCode, `unknown argument ${unknown.join(', ')} (no other arguments are allowed)`, {
      errors: unknown.map((path) => ({ path, message: 'unknown field (no other fields are allowed)' })),
    });
  }
  if (cap.mcpElevation) out.walletProof = proof as unknown as WalletProofArguments;
  return out;
}

/**
 * The capability catalog: every operation is defined once, as data plus a handler. REST routes,
 * MCP tools, both OpenAPI documents, GET /discover/capabilities and GET /me capabilities are all
 * generated from these definitions (DESIGN.md §3).
 */
import type { z } from 'zod';
import type { Clock } from '../../core/clock.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import type { Logger } from '../../core/logger.ts';
import type { Principal } from '../../core/principal.ts';
import type { RenderedJson } from '../../core/rendered-json.ts';
import type { Scope } from '../../core/scopes.ts';
import type { AgentTier } from '../../core/tiers.ts';
import type { Services } from '../../services/services.ts';
import type { AgentCapabilitySchema } from '../../wire/schemas.ts';
import type { CatalogDocument } from '../docs/catalog-document-schema.ts';
import type { Site } from '../docs/links.ts';
import type { Skill } from '../docs/skill-schema.ts';
import type { EffectRecorder } from '../../services/idempotency/idempotency.ts';
import type { WalletSession } from '../../services/identity/sessions.ts';
import { toolNameOf } from '../mcp/tool-names.ts';

export type Surface = 'agent' | 'consumer';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * read for GETs, write for POSTs; uncharged for catalog and liveness reads (spec Limits); data for market-surface
 * publishing, whose per-market and aggregate budgets the service charges once it knows the market (docs/market-data.md).
 */
export type RateClass = 'read' | 'write' | 'data' | 'uncharged';
/**
 * What a call does to the service's state: 'read' changes nothing, 'write' changes something. It decides the MCP
 * annotations (readOnlyHint, destructiveHint) and whether an Idempotency-Key is required, not the HTTP method: a
 * quote, a preflight or a listing whose input is a body is a POST that reads.
 */
export type Effect = 'read' | 'write';
/** Consumer permission classes, derived from the minimum tier. */
export type PermissionClass = 'none' | 'api-key-read' | 'api-key-execute';

/** The documents generated from the catalog (built once, at the edge: src/api/docs/documents-bag.ts). */
export interface Documents {
  /** What this deployment publishes about itself: base URL, MCP URL, chain, environment. */
  site: Site;
  /** AgentCapability of every agent capability (GET /discover/capabilities, GET /me). */
  agentCapabilities(): z.output<typeof AgentCapabilitySchema>[];
  /** Agent capabilities the spec keeps REST-only, with why (GET /mcp-discovery surfacePolicy). */
  restOnlyCapabilities(): { capability: string; reason: string; paths: string[] }[];
  openApi(surface: Surface): Record<string, unknown>;
  /** GET /catalog.json (src/api/docs/catalog-document.ts). */
  catalogDocument(): CatalogDocument;
  /** The skill every agent-facing document renders (src/api/docs/skill.ts). */
  skill(): Skill;
}

export interface HandlerContext {
  services: Services;
  documents: Documents;
  principal: Principal | null;
  requestId: string;
  clock: Clock;
  log: Logger;
  /** The agent API date-version in force for this request (Svc-Version or the default). */
  apiVersion: string;
  via: 'rest' | 'mcp';
  /** The consumer wallet session (cookieAuth or developerAuthHeader); set only for capabilities with walletAuth. */
  walletSession: WalletSession | null;
  /** The caller's address (per-path registration budgets, human checks). */
  clientIp: string;
  /** The wallet an MCP call of an elevated tool proved control of (mcpElevation); null otherwise. */
  provenWallet: string | null;
  /**
   * Set when the call runs under an Idempotency-Key: a write passes it to its service, which calls it inside the
   * transaction that makes the effect, with a reference to what it made (the capability's replayEffect rebuilds the
   * answer from it after a crash).
   */
  recordEffect: EffectRecorder | null;
}

/** The context of a capability of tier T: the pipeline has authenticated a key of at least T, so principal is set. */
export type ContextFor<T extends AgentTier | null> = [T] extends [AgentTier] ? HandlerContext & { principal: Principal } : HandlerContext;

/** A handler may return a plain body (status 200), a body already serialised (RenderedJson), or a Reply with status and headers. */
export class Reply<O> {
  constructor(
    readonly body: O,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface CapabilityInputSchemas<P, Q, B> {
  params?: P;
  query?: Q;
  body?: B;
}

export interface HandlerInput<P, Q, B> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
}

/** The raw parts of a request, before validation. */
export interface RawRequest {
  params: unknown;
  query: unknown;
  body: unknown;
}
export type CallRoute = 'leader' | { market: (raw: RawRequest) => unknown } | { order: (raw: RawRequest) => unknown };

export interface CapabilityDef<P, Q, B, O extends z.ZodType, T extends AgentTier | null = AgentTier | null> {
  surface: Surface;
  method: HttpMethod;
  /** Relative to the surface prefix (/api/agent/v1 or /api/v1) unless it starts with /api or /.well-known. `:name` marks a path parameter. */
  path: string;
  category: string;
  summary: string;
  description: string;
  /** Minimum tier; null = public (no credential). A handler of a tiered capability gets a non-null principal. */
  tier: T;
  scopes?: readonly Scope[];
  rateClass: RateClass;
  /** AgentCapability.idempotent: repeating the call has no further effect. */
  idempotent: boolean;
  /**
   * Default: read for GET, write otherwise. A POST that changes nothing declares 'read': it needs no Idempotency-Key,
   * is charged to the read budget (rateClass 'read') and its tool says readOnlyHint.
   */
  effect?: Effect;
  /** Writes require Idempotency-Key unless exempt (a documented reason). A read needs no exemption. */
  idempotencyExempt?: string;
  /**
   * The write accepts something only the chain can settle (a fill committed in a later ledger batch, a payment read
   * from the node): while the node is down or being reconciled it is refused with 503 SERVICE_UNAVAILABLE and
   * Retry-After before anything runs (docs/chain.md "Liveness"). The text says what it waits on.
   */
  needsChain?: string;
  /** 'required': the caller must hold a wallet session (cookieAuth or developerAuthHeader), else 401 WALLET_AUTH_REQUIRED. */
  walletAuth?: 'required';
  /**
   * 'principal': a call that sends no API key may send a wallet session instead (cookieAuth or developerAuthHeader), and
   * acts as the agent bound to the session's wallet (docs/web.md "Trading with a wallet session"). A key, when sent,
   * wins; MCP carries no session. For the trading loop the web app runs without a key.
   */
  walletSession?: 'principal';
  /** Agent capabilities are MCP tools unless REST-only by the spec; consumer capabilities are never tools. */
  mcp?: { tool: string } | { restOnly: string };
  /**
   * Wallet-proof elevation of the MCP tool (spec "Wallet-proof elevation"): its input adds
   * walletAddress (optional when the agent has a bound wallet), walletSignature,
   * signatureTimestamp and proofNonce; the proof is bound to this scope and resource, and the
   * proven wallet reaches the handler as ctx.provenWallet. REST calls act for the key's own agent.
   */
  mcpElevation?: {
    scope: string;
    resourceId?: (input: HandlerInput<P, Q, B>) => string | null;
    /** Where the signer finds the resourceId (published with the tool's elevation); required with resourceId. */
    resourceIdSource?: string;
    /** walletAddress is required, not taken from the bound wallet (spec: collect). */
    walletRequired?: boolean;
  };
  /** The call removes or replaces something (MCP destructiveHint), e.g. rotating a key revokes the old one. */
  destructive?: boolean;
  /**
   * Several processes (docs/operations.md "Routing"): where the call runs. 'leader': in the elected leader (a ledger
   * proof, from its tree); `market` / `order`: in the process that owns that market's order book, the key read from
   * the raw request (the owner validates it). Another process forwards the call there as it came.
   */
  route?: CallRoute;
  input?: CapabilityInputSchemas<P, Q, B>;
  /**
   * One problem code for every input part that fails validation (a code the spec pins for the operation). Default: by
   * part — a path parameter INVALID_ID, a query parameter INVALID_QUERY, the body INVALID_PAYLOAD (docs/http.md).
   */
  invalidInputCode?: ErrorCode;
  output: O;
  /** Named response schema in the OpenAPI components (e.g. 'MarketListingsResponse'). */
  outputName?: string;
  responseHeaders?: Record<string, { description: string; required?: boolean }>;
  /** Removes secrets (e.g. a newly issued API key) from the body kept for Idempotency-Key replays: secrets are shown once. */
  redactForReplay?: (body: z.output<O>) => z.output<O>;
  /** Status of a success (default 200; 201 for creations; 202 for a relayed transaction the chain has yet to settle). */
  successStatus?: 200 | 201 | 202;
  /** Statuses besides 200 whose body is the normal output (e.g. 503 from /health), not a problem. */
  alsoOutputStatuses?: readonly number[];
  errors: readonly ErrorCode[];
  handler: (ctx: ContextFor<T>, input: HandlerInput<P, Q, B>) => Promise<z.output<O> | Reply<z.output<O> | RenderedJson<z.output<O>>> | RenderedJson<z.output<O>>>;
  /**
   * The service passes the handler's output to recordEffect, and the key's record, answer included, is written once in
   * the effect's transaction: no claim is written before the request runs (src/services/idempotency; place-order, the
   * hot write). Only with replayEffect, which answers a record written without an answer.
   */
  answerWithEffect?: boolean;
  /** The answer to a retry of a call whose effect committed (recordEffect) but whose response was never stored. */
  replayEffect?: (ctx: ContextFor<T>, ref: string, input: HandlerInput<P, Q, B>) => Promise<z.output<O> | Reply<z.output<O>>>;
}

export interface Capability extends CapabilityDef<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType> {
  /** 'METHOD /path' as in AgentCapability. */
  name: string;
  /** Absolute URL path, Fastify syntax. */
  fullPath: string;
  permission: PermissionClass;
  scopes: readonly Scope[];
  effect: Effect;
  /** The code of input errors not tied to one part (an unknown MCP argument): INVALID_QUERY for a GET, else INVALID_PAYLOAD, unless pinned. */
  invalidInputCode: ErrorCode;
  /** The code of a validation error in each part. */
  inputCodes: Record<InputPart, ErrorCode>;
  requiresIdempotencyKey: boolean;
}

export type InputPart = 'params' | 'query' | 'body';

export const SURFACE_PREFIX: Record<Surface, string> = { agent: '/api/agent/v1', consumer: '/api/v1' };

export function permissionOf(tier: AgentTier | null): PermissionClass {
  if (tier === null) return 'none';
  return tier === 'execute' ? 'api-key-execute' : 'api-key-read';
}

export function defineCapability<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  O extends z.ZodType = z.ZodType,
  T extends AgentTier | null = AgentTier | null,
>(def: CapabilityDef<P, Q, B, O, T>): Capability {
  if (def.surface === 'agent' && !def.mcp) throw new Error(`capability ${def.method} ${def.path}: agent capabilities declare mcp`);
  if (def.surface === 'consumer' && def.mcp) throw new Error(`capability ${def.method} ${def.path}: consumer capabilities are not MCP tools`);
  if (def.mcp && 'tool' in def.mcp && def.mcp.tool !== toolNameOf(def.method, def.path)) {
    throw new Error(`capability ${def.method} ${def.path}: its tool is named ${toolNameOf(def.method, def.path)} (docs/mcp.md "Tool names"), not ${def.mcp.tool}`);
  }
  const absolute = def.path.startsWith('/api/') || def.path.startsWith('/.well-known/');
  const effect = def.effect ?? (def.method === 'GET' ? 'read' : 'write');
  checkEffect(def, effect);
  if (def.mcpElevation && (def.mcpElevation.resourceId === undefined) !== (def.mcpElevation.resourceIdSource === undefined)) {
    throw new Error(`capability ${def.method} ${def.path}: mcpElevation declares resourceId and resourceIdSource together`);
  }
  return {
    ...(def as unknown as CapabilityDef<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType>),
    name: `${def.method} ${def.path}`,
    fullPath: absolute ? def.path : `${SURFACE_PREFIX[def.surface]}${def.path}`,
    permission: permissionOf(def.tier),
    scopes: def.scopes ?? [],
    effect,
    invalidInputCode: def.invalidInputCode ?? (def.method === 'GET' ? 'INVALID_QUERY' : 'INVALID_PAYLOAD'),
    inputCodes: def.invalidInputCode
      ? { params: def.invalidInputCode, query: def.invalidInputCode, body: def.invalidInputCode }
      : { params: 'INVALID_ID', query: 'INVALID_QUERY', body: 'INVALID_PAYLOAD' },
    requiresIdempotencyKey: effect === 'write' && def.idempotencyExempt === undefined,
  };
}

/** The declared effect agrees with the rest of the definition: a read is charged as a read and has nothing to replay. */
function checkEffect(def: { method: HttpMethod; path: string; rateClass: RateClass; idempotencyExempt?: string; destructive?: boolean; replayEffect?: unknown; answerWithEffect?: boolean }, effect: Effect): void {
  const where = `capability ${def.method} ${def.path}`;
  if (def.answerWithEffect && !def.replayEffect) throw new Error(`${where}: an answer stored with the effect needs replayEffect (a record written without one)`);
  if (effect === 'write') {
    if (def.method === 'GET') throw new Error(`${where}: a GET changes nothing (effect 'read')`);
    if (def.rateClass === 'read') throw new Error(`${where}: charged as a read, so it declares effect 'read' (or is charged as a write)`);
    return;
  }
  if (def.rateClass !== 'read' && def.rateClass !== 'uncharged') throw new Error(`${where}: a read is charged as a read, not ${def.rateClass}`);
  if (def.idempotencyExempt !== undefined) throw new Error(`${where}: a read needs no Idempotency-Key, so no exemption`);
  if (def.destructive || def.replayEffect) throw new Error(`${where}: a read neither destroys nor has an effect to replay`);
}

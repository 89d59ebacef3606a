/**
 * One call of one capability, the same for REST and MCP: authenticate, authorize (tier, scopes),
 * resolve the wallet session (walletAuth capabilities), charge the rate limit, validate input,
 * refuse a chain-dependent write while the node is down, honour idempotency, run the handler. The adapters only translate their transport into a
 * CallRequest and the result (or ProblemError) back.
 */
import { canonicalHash } from '../../core/canonical-json.ts';
import { plainBody } from '../../core/rendered-json.ts';
import { problem } from '../../core/error-codes.ts';
import { isProblemError, type ProblemError } from '../../core/errors.ts';
import { ClaimTakenOver, IDEMPOTENCY_KEY_PATTERN, isStorable, type EffectRecorder, type IdempotencyService, type KeyedRequest, type StoredResponse } from '../../services/idempotency/idempotency.ts';
import { chargeBudget } from '../../services/rate-limit/charge.ts';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../services/rate-limit/limits.ts';
import { WalletProofArgumentsSchema, type ElevationRequest, type WalletProofArguments } from '../../services/identity/elevation.ts';
import { Reply, type Capability, type HandlerContext, type InputPart } from '../catalog/types.ts';
import { tierRank } from '../../core/tiers.ts';
import type { Principal } from '../../core/principal.ts';
import { forwardCall, routeOf } from './forward.ts';
import { unstorableText } from './storable-text.ts';
import { parseInput } from './validate.ts';
import { sessionPrincipal } from './session-principal.ts';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem.ts';

export interface CallRequest {
  capability: Capability;
  /** Raw API key from the transport, if any. */
  credential: string | undefined;
  /** The principal of `credential` when the transport already authenticated it (MCP does, per HTTP request). */
  authenticated?: Principal | null;
  /** Caller address, for keyless rate limits. */
  ip: string;
  idempotencyKey: string | undefined;
  /** Raw wallet-session token (session cookie or developer header), if any; MCP sends none. */
  walletCredential?: string;
  params: unknown;
  query: unknown;
  body: unknown;
  /** MCP calls of an elevated tool: the wallet-proof arguments and the tool-intent payload they sign. */
  elevation?: { proof: unknown; intent: Record<string, unknown> };
  /** The web app's visitor session cookie (REST only): a read-only caller of the public market reads, when no key is sent. */
  visitor?: string;
  /** Another process of the deployment sent it here (forward.ts): it runs here, whoever owns what it names. */
  forwarded?: boolean;
}

export interface CallResult {
  status: number;
  body: unknown;
  /** Response headers; also filled (rate-limit headers) when the call throws. */
  headers: Record<string, string>;
}

type RawInput = { params: unknown; query: unknown; body: unknown };

export type BaseContext = Omit<HandlerContext, 'principal' | 'clientIp' | 'walletSession' | 'provenWallet' | 'recordEffect'> & { problemTypeBase: string };

export async function executeCall(base: BaseContext, req: CallRequest, headers: Record<string, string>): Promise<CallResult> {
  const { capability: cap } = req;
  // Several processes: a call on a book another process owns (or a leader-only one) runs there (forward.ts).
  if (cap.route && !req.forwarded) {
    const target = await routeOf(base.services.cluster, cap.route, req);
    if (target !== null) return forwardCall(req, target, base.apiVersion);
  }
  // A web app visitor's session stands in for a key on the public market reads only (docs/web.md).
  const visitor = req.authenticated === undefined && req.credential === undefined && visitorReadable(cap) ? base.services.visitors.principalOf(req.visitor) : null;
  // A signed-in wallet stands in for a key on the trading loop (walletSession: 'principal'; docs/web.md).
  const keyless = req.authenticated === undefined && req.credential === undefined;
  const sessionActor = keyless && cap.walletSession === 'principal' && req.walletCredential !== undefined ? await sessionPrincipal(base.services, req.walletCredential, req.ip) : null;
  const principal =
    req.authenticated !== undefined ? req.authenticated : req.credential !== undefined ? await base.services.keys.authenticate(req.credential) : (sessionActor ?? visitor);
  authorize(cap, principal);
  const walletSession = cap.walletAuth ? await base.services.sessions.resolve(req.walletCredential) : null;
  await chargeRateLimit(base, cap, principal, visitor !== null, req.ip, headers);

  refuseUnreadableInput(cap, req);
  const input = {
    params: parseInput(cap.input?.params, req.params ?? {}, 'params', cap.inputCodes.params),
    query: parseInput(cap.input?.query, req.query ?? {}, 'query', cap.inputCodes.query),
    body: parseInput(cap.input?.body, req.body ?? {}, 'body', cap.inputCodes.body),
  };
  // Before any claim: a refused write leaves its key free for the retry Retry-After asks for.
  if (cap.needsChain) base.services.chain.requireLive();
  const ctx: HandlerContext = { ...base, principal, clientIp: req.ip, walletSession, provenWallet: null, recordEffect: null };
  // A missing or malformed proof is refused before any claim, like invalid input; the proof itself is verified after
  // an idempotent replay is answered (a replay repeats the same proof), and a refused one is not kept as the key's
  // answer: the retry with a fresh proof runs.
  const pending = pendingProof(ctx, cap, req, input);
  let proofRefused = false;
  const call = async (recordEffect: EffectRecorder | null = null) => {
    let provenWallet: string | null = null;
    if (pending) {
      try {
        provenWallet = await base.services.elevation.prove(pending.request, pending.proof);
      } catch (err) {
        proofRefused = true;
        throw err;
      }
    }
    return run({ ...ctx, recordEffect, provenWallet }, cap, input);
  };

  if (!cap.requiresIdempotencyKey) return withRequestHeaders(await call(), headers);

  const key = req.idempotencyKey;
  const keyName = base.via === 'mcp' ? 'the idempotencyKey argument' : 'an Idempotency-Key header';
  if (key === undefined) {
    throw problem('IDEMPOTENCY_KEY_REQUIRED', `${cap.name} changes state: send ${keyName} (1..256 visible ASCII characters), the same one on every retry`);
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw problem('INVALID_IDEMPOTENCY_KEY', `${keyName} must be 1..256 visible ASCII characters`);
  }
  // Replays belong to the caller: the key, narrowed to the signed-in wallet when there is one (one
  // server key may act for many wallets), or the wallet alone, or else the client address.
  const wallet = walletSession ? `wallet:${walletSession.walletAddress}` : null;
  const owner = [principal ? `key:${principal.keyId}` : null, wallet].filter(Boolean).join(':') || `ip:${req.ip}`;
  const fingerprint = canonicalHash({ capability: cap.name, params: req.params ?? {}, query: queryAsSent(req.query), body: req.body ?? null });
  const idem = base.services.idempotency;
  // A refusal the key keeps as its answer: a storable problem, unless the wallet proof was refused (the retry brings a
  // fresh one and runs).
  const refusal = (err: unknown): StoredResponse | null => (isProblemError(err) && isStorable(err.status) && !proofRefused ? storedProblem(err, base.problemTypeBase) : null);
  const replay = (response: StoredResponse): CallResult => ({ ...response, headers: { ...headers, ...response.headers, 'Idempotent-Replayed': 'true' } });
  // The effect committed and its answer was never stored (the process died, or the handler failed after it): the
  // answer is rebuilt from the effect, and the request never runs again.
  const replayCommitted = async (ref: string, replayed = true): Promise<CallResult> => {
    if (!cap.replayEffect) throw new Error(`${cap.name}: an effect was recorded under key ${key} but the capability cannot replay it`);
    // A replay never shows a secret again: it answers what the key keeps.
    const stored = storedFor(cap, resultOf(cap, await cap.replayEffect(ctx, ref, input as never)));
    await idem.complete(owner, key, stored);
    return { ...stored, headers: { ...headers, ...stored.headers, ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) } };
  };
  const keyed: KeyedRequest = { principal: owner, key, requestHash: fingerprint, route: { method: cap.method, path: cap.fullPath } };
  if (cap.answerWithEffect) {
    const release = idem.hold(owner, key);
    try {
      return await answeredWithEffect(idem, cap, keyed, headers, { call, replay, replayCommitted, refusal });
    } finally {
      release();
    }
  }
  const claim = await idem.claim(owner, key, fingerprint, keyed.route);
  if (claim.kind === 'replay') return replay(claim.response);
  if (claim.kind === 'committed') return replayCommitted(claim.ref);
  const recordEffect: EffectRecorder = (trx, ref) => idem.commitEffect(trx, owner, key, ref);
  let result: CallResult;
  try {
    result = await call(cap.replayEffect ? recordEffect : null);
  } catch (err) {
    // The claim is a retry's now: this request changed nothing (its effect rolled back) and stores nothing.
    if (err instanceof ClaimTakenOver) throw err;
    // A failure after the effect committed must not become the key's answer: the effect happened, so it is the answer.
    const committed = cap.replayEffect ? await idem.committedEffect(owner, key) : null;
    if (committed !== null) return replayCommitted(committed, false);
    const refused = refusal(err);
    if (refused) {
      await idem.complete(owner, key, refused);
    } else {
      await idem.release(owner, key);
    }
    throw err;
  }
  // Outside the try: a failure to store the answer is not the request's failure (the effect stays committed and a
  // retry replays it).
  if (isStorable(result.status)) await idem.complete(owner, key, storedFor(cap, result));
  else await idem.release(owner, key);
  return withRequestHeaders(result, headers);
}

/**
 * A request answered with its effect (capability answerWithEffect; src/services/idempotency): what the key's record
 * says answers it; with none, the request runs and its service writes the record, answer included, in the effect's
 * transaction. A record another request wrote first (ClaimTakenOver) is what answers; a refusal is stored as the
 * key's answer unless a record came first.
 */
async function answeredWithEffect(
  idem: IdempotencyService,
  cap: Capability,
  keyed: KeyedRequest,
  headers: Record<string, string>,
  how: {
    call: (recordEffect: EffectRecorder) => Promise<CallResult>;
    replay: (response: StoredResponse) => CallResult;
    replayCommitted: (ref: string, replayed?: boolean) => Promise<CallResult>;
    refusal: (err: unknown) => StoredResponse | null;
  },
): Promise<CallResult> {
  // Nothing is read before the request runs: a record of its key is found with the effect's first statements
  // (recordEffect.alreadyRecorded), or after a refusal, and then it is what answers.
  let answered: 'answer' | 'effect' | null = null;
  const recordEffect: EffectRecorder = Object.assign(
    async (trx: Parameters<EffectRecorder>[0], ref: string, output?: unknown) => {
      await idem.recordAnswer(trx, keyed, ref, output === undefined ? null : storedFor(cap, resultOf(cap, output)));
      answered = output === undefined ? 'effect' : 'answer';
    },
    { alreadyRecorded: (trx: Parameters<EffectRecorder>[0]) => idem.recorded(trx, keyed) },
  );
  let result: CallResult | undefined;
  // Twice at most: once more after a dead process's claim was taken over.
  for (let attempt = 0; result === undefined; attempt++) {
    try {
      result = await how.call(recordEffect);
    } catch (err) {
      // Another request's record holds the key: it answers (IDEMPOTENCY_IN_PROGRESS while its effect is still running).
      // A failure after this request's effect committed must not become the key's answer either: the effect happened.
      const existing = await idem.find(keyed);
      if (existing?.kind === 'replay') return answered === null ? how.replay(existing.response) : withRequestHeaders(existing.response, headers);
      if (existing?.kind === 'committed') return how.replayCommitted(existing.ref, answered === null);
      if (existing?.kind === 'new' && attempt === 0) continue; // a dead process's claim, now this request's
      const refused = err instanceof ClaimTakenOver ? null : how.refusal(err);
      if (refused) await idem.storeAnswer(keyed, refused);
      throw err;
    }
  }
  // A test's simulated crash after the commit (the retry replays what the record keeps).
  idem.beforeAnswer(keyed.principal, keyed.key);
  // The answer went with the effect; else it is stored now (an effect recorded without it, or none recorded).
  if (answered === 'effect') await idem.complete(keyed.principal, keyed.key, storedFor(cap, result));
  else if (answered === null && isStorable(result.status)) await idem.storeAnswer(keyed, storedFor(cap, result));
  return withRequestHeaders(result, headers);
}

/**
 * The query as a REST client sends it: an MCP argument bound for the query may be a JSON number or boolean where the
 * URL carries text, and one Idempotency-Key must fingerprint the same request alike on both transports.
 */
function queryAsSent(query: unknown): unknown {
  if (query === null || typeof query !== 'object') return query ?? {};
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v]));
}

/** The proof arguments every wallet proof needs; walletAddress may be left to the bound wallet. */
const SIGNED_PROOF_FIELDS = ['walletSignature', 'signatureTimestamp', 'proofNonce'] as const;

/** What an elevated MCP call must prove: the request the proof is checked against, and the proof. */
interface PendingProof {
  request: ElevationRequest;
  proof: WalletProofArguments;
}

/**
 * Elevated MCP tools: the wallet-proof arguments, parsed. None of them at all is 401 WALLET_AUTH_REQUIRED (reason
 * PROOF_MISSING: the call needs a proof it did not bring); some of them, or malformed ones, the invalid-input code.
 */
function pendingProof(ctx: HandlerContext, cap: Capability, req: CallRequest, input: RawInput): PendingProof | null {
  const elevation = cap.mcpElevation;
  if (!elevation || ctx.via !== 'mcp' || !req.elevation || !ctx.principal) return null;
  const tool = cap.mcp && 'tool' in cap.mcp ? cap.mcp.tool : cap.name;
  const given = (req.elevation.proof ?? {}) as Record<string, unknown>;
  if (SIGNED_PROOF_FIELDS.every((field) => given[field] === undefined)) {
    throw problem(
      'WALLET_AUTH_REQUIRED',
      `${tool} needs a wallet proof: sign the svc-mcp-auth message (GET /mcp-discovery toolElevation.walletProof says where each field comes from) and send walletSignature, signatureTimestamp and proofNonce with the call`,
      { extensions: { reason: 'PROOF_MISSING' } },
    );
  }
  return {
    proof: parseInput(WalletProofArgumentsSchema, given, 'arguments', cap.invalidInputCode) as WalletProofArguments,
    request: {
      principal: ctx.principal,
      tool,
      scope: elevation.scope,
      chainId: ctx.documents.site.chainId,
      resourceId: elevation.resourceId?.(input as never) ?? null,
      payload: req.elevation.intent,
    },
  };
}

/**
 * Before the schemas: text the database cannot store (NUL, unpaired surrogates) in any part, and query parameters
 * sent to a capability that takes none (its schema would otherwise never see them). docs/http.md.
 */
function refuseUnreadableInput(cap: Capability, req: CallRequest): void {
  const errors = [...unstorableText(req.params, 'params'), ...unstorableText(req.query, 'query'), ...unstorableText(req.body, 'body')];
  if (!cap.input?.query && req.query !== null && typeof req.query === 'object') {
    for (const name of Object.keys(req.query)) errors.push({ path: `query.${name}`, message: `unknown parameter: ${cap.name} takes no query parameters` });
  }
  if (errors.length > 0) throw problem(cap.inputCodes[errors[0]!.path.split('.')[0] as InputPart] ?? cap.invalidInputCode, `${errors[0]!.path}: ${errors[0]!.message}`, { errors });
}

/** Runs the handler; `headers` of the result are only the ones the handler set itself. */
async function run(ctx: HandlerContext, cap: Capability, input: RawInput): Promise<CallResult> {
  return resultOf(cap, await cap.handler(ctx, input as never));
}

/** A handler's plain body (the capability's success status) or Reply, as a result. */
function resultOf(cap: Capability, out: unknown): CallResult {
  if (out instanceof Reply) return { status: out.status, body: out.body, headers: out.headers };
  return { status: cap.successStatus ?? 200, body: out, headers: {} };
}

/** A problem as the key keeps it: its body, its status, its own headers. */
const storedProblem = (err: ProblemError, problemTypeBase: string): StoredResponse => ({
  status: err.status,
  body: problemBody(err, problemTypeBase),
  headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...(err.headers ?? {}) },
});

/** What an Idempotency-Key keeps of a result: secrets redacted, only the handler's own headers (rate-limit and version headers belong to each request). */
function storedFor(cap: Capability, result: CallResult): CallResult {
  const plain = plainBody(result.body);
  const body = cap.redactForReplay && result.status < 300 ? cap.redactForReplay(plain as never) : plain;
  return { status: result.status, body, headers: result.headers };
}

const withRequestHeaders = (result: CallResult, headers: Record<string, string>): CallResult => ({ ...result, headers: { ...headers, ...result.headers } });

export function authorize(cap: Capability, principal: Principal | null): void {
  if (cap.tier === null) return;
  if (!principal) {
    throw problem('API_KEY_REQUIRED', `${cap.name} needs an API key (Authorization: Bearer <key> or X-API-Key)`, {
      headers: { 'WWW-Authenticate': 'Bearer realm="svc"' },
    });
  }
  if (tierRank(principal.tier) < tierRank(cap.tier)) {
    throw problem('INSUFFICIENT_TIER', `${cap.name} needs tier ${cap.tier}; this key is ${principal.tier}`, {
      extensions: { requiredTier: cap.tier, keyTier: principal.tier },
    });
  }
  const missing = cap.scopes.filter((s) => !principal.scopes.includes(s));
  if (missing.length > 0) {
    throw problem('INSUFFICIENT_SCOPE', `${cap.name} needs scope ${missing.join(', ')}`, { extensions: { missingScopes: missing } });
  }
}

/**
 * The reads a web app visitor makes without a key (docs/web.md "Reading without a key"): the public market reads of
 * tier read-only, on the consumer surface and the agent surface's /discover, and any wallet's public profile (its
 * track record, tier and P&L curve, which the leaderboard already ranks); never a write, never a caller's own data.
 */
function visitorReadable(cap: Capability): boolean {
  if (cap.tier !== 'read-only' || cap.effect !== 'read' || cap.walletAuth) return false;
  // Profiles by exact template path: a later /profile/… read of the caller's own data stays closed until named here.
  const profileRead = cap.fullPath === '/api/agent/v1/profile/:address' || cap.fullPath === '/api/agent/v1/profile/:address/pnl-history';
  return cap.surface === 'consumer' || cap.fullPath.startsWith('/api/agent/v1/discover/') || profileRead;
}

/** `byAddress`: the principal is a visitor session, whose budget is its address's (anyone may open a new session). */
async function chargeRateLimit(base: BaseContext, cap: Capability, principal: Principal | null, byAddress: boolean, ip: string, headers: Record<string, string>): Promise<void> {
  // The data plane's budgets are per market: its service charges them once the market is known.
  if (cap.rateClass === 'uncharged' || cap.rateClass === 'data') return;
  const rateClass = cap.rateClass;
  const limit = RATE_LIMITS[principal?.tier ?? 'anonymous'][rateClass];
  const charged = await chargeBudget(
    { rateLimits: base.services.rateLimits, clock: base.clock },
    {
      bucket: `${principal === null ? `ip:${ip}` : byAddress ? `visitor-ip:${ip}` : `key:${principal.keyId}`}:${rateClass}`,
      limit,
      windowMs: RATE_WINDOW_MS,
      spent: (retryAfter) => `${rateClass} budget of ${limit} requests per 60 s is spent; retry after ${retryAfter} s`,
    },
  );
  Object.assign(headers, charged);
}

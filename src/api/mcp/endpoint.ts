/**
 * The MCP endpoint: Streamable HTTP (protocol revision 2025-11-25) at the configured MCP URL, built
 * on the official SDK. Each session is one SDK Server + transport; tool calls run the catalog's
 * pipeline (executeCall) exactly as REST does. This file owns only what HTTP decides before a
 * JSON-RPC message reaches the SDK: Origin/Host checks, the API key, 401/403 with RFC 9728
 * metadata, session lookup and its binding to the credential that opened it.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ErrorCode as RpcError, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { problem } from '../../core/error-codes.ts';
import { isProblemError, type ProblemError } from '../../core/errors.ts';
import { plainBody, RenderedJson } from '../../core/rendered-json.ts';
import { authorize, executeCall } from '../pipeline/execute.ts';
import { internalErrorBody, PROBLEM_CONTENT_TYPE, problemBody } from '../pipeline/problem.ts';
import type { Principal } from '../../core/principal.ts';
import { resolveVersion } from '../http/versions.ts';
import { credentialOf, header } from '../http/request.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Services } from '../../services/services.ts';
import type { Capability, Documents } from '../catalog/types.ts';
import { createSessionEventStore } from './event-store.ts';
import { buildTools, splitArguments, type McpTool } from './tools.ts';
import { isLoopbackHost, originAllowed, protectedResourceMetadata, type OriginPolicy } from './policy.ts';

/** A session unused this long is closed; a client that returns gets 404 and re-initializes. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions per process; the least recently used one is closed to make room. */
export const MCP_MAX_SESSIONS = 1000;
/** Messages kept per session for Last-Event-ID resumption. */
const EVENTS_PER_SESSION = 500;
/** SSE retry hint (ms) sent in the priming event. */
const SSE_RETRY_MS = 1000;
/** The SDK's stream id for the standalone GET stream (its messages are stored under it). */
const STANDALONE_STREAM_ID = '_GET_stream';
/** JSON-RPC methods a client may send without an API key (plus notifications). */
const KEYLESS_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);

export interface McpEndpointDeps {
  catalog: readonly Capability[];
  services: Services;
  documents: Documents;
  clock: Clock;
  log: Logger;
  publicBaseUrl: string;
  mcpUrl: string;
  origins: OriginPolicy;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  events: EventStore;
  server: Server;
  /** SHA-256 of the credential that initialized the session ('' for none). */
  credentialHash: Buffer;
  lastUsed: number;
}

/** What the HTTP layer hands each JSON-RPC request of one POST. */
interface CallerInfo {
  credential: string | undefined;
  principal: Principal | null;
  ip: string;
  requestId: string;
  apiVersion: string;
}

export function registerMcpEndpoint(app: FastifyInstance, deps: McpEndpointDeps): { close(): Promise<void> } {
  const tools = buildTools(deps.catalog);
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  const sessions = new Map<string, Session>();
  const endpoint = new URL(deps.mcpUrl);
  const path = endpoint.pathname.replace(/\/+$/, '') || '/';
  const metadataUrl = `${deps.mcpUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource`;
  const metadata = protectedResourceMetadata(deps);

  // RFC 9728: at the spec's {mcp_url}/.well-known/… and at the RFC's path-inserted location.
  for (const url of new Set([`${path === '/' ? '' : path}/.well-known/oauth-protected-resource`, `/.well-known/oauth-protected-resource${path === '/' ? '' : path}`])) {
    app.get(url, async (_req, reply) => reply.header('Cache-Control', 'public, max-age=300').send(metadata));
  }

  const hashOf = (credential: string | undefined): Buffer => createHash('sha256').update(credential ?? '').digest();

  const sendProblem = (req: FastifyRequest, reply: FastifyReply, err: ProblemError): FastifyReply => {
    const headers: Record<string, string> = { ...(err.headers ?? {}) };
    if (err.status === 401) headers['WWW-Authenticate'] = `Bearer resource_metadata="${metadataUrl}"${err.code === 'API_KEY_REQUIRED' ? '' : ', error="invalid_token"'}`;
    if (err.code === 'INSUFFICIENT_TIER' || err.code === 'INSUFFICIENT_SCOPE') {
      const scopes = (err.extensions?.missingScopes as string[] | undefined) ?? [];
      headers['WWW-Authenticate'] = `Bearer error="insufficient_scope"${scopes.length ? `, scope="${scopes.join(' ')}"` : ''}, resource_metadata="${metadataUrl}"`;
    }
    return reply.code(err.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(problemBody(err, deps.publicBaseUrl, req.id));
  };

  const jsonRpcError = (reply: FastifyReply, status: number, code: number, message: string): FastifyReply =>
    reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });

  const newServer = (): Server => {
    const server = new Server(
      { name: 'svc', title: 'svc prediction markets', version: '0.1.0', websiteUrl: deps.publicBaseUrl },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: `Agent-native prediction markets on chain ${deps.documents.site.chainId}. Read ${deps.publicBaseUrl}/api/agent/v1/skill.md for the loops (discover, create, trade), auth and limits. Public tools work without a key; others need Authorization: Bearer <API key>.`,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.definition) }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(RpcError.InvalidParams, `Unknown tool: ${request.params.name}`);
      return callTool(tool, request.params.arguments ?? {}, extra.authInfo?.extra?.caller as CallerInfo);
    });
    return server;
  };

  const callTool = async (tool: McpTool, args: Record<string, unknown>, caller: CallerInfo): Promise<CallToolResult> => {
    const log = deps.log.child({ reqId: caller.requestId, tool: tool.definition.name });
    try {
      const split = splitArguments(tool, args);
      const result = await executeCall(
        {
          services: deps.services,
          documents: deps.documents,
          requestId: caller.requestId,
          clock: deps.clock,
          log,
          apiVersion: caller.apiVersion,
          via: 'mcp',
          problemTypeBase: deps.publicBaseUrl,
        },
        {
          capability: tool.capability,
          credential: caller.credential,
          authenticated: caller.principal,
          ip: caller.ip,
          idempotencyKey: split.idempotencyKey,
          params: split.params,
          query: split.query,
          body: split.body,
          elevation: split.walletProof ? { proof: split.walletProof, intent: split.intent } : undefined,
        },
        {},
      );
      if (result.status >= 400) return errorResult(result.body);
      const replayed = result.headers['Idempotent-Replayed'] === 'true';
      const body = plainBody(result.body);
      return {
        content: [{ type: 'text', text: result.body instanceof RenderedJson ? result.body.text : JSON.stringify(body) }],
        structuredContent: body as Record<string, unknown>,
        ...(replayed ? { _meta: { 'svc/idempotentReplayed': true } } : {}),
      };
    } catch (err) {
      if (isProblemError(err)) return errorResult(problemBody(err, deps.publicBaseUrl, caller.requestId));
      log.error({ err, reqId: caller.requestId }, 'internal error in MCP tool call');
      return errorResult(internalErrorBody(deps.publicBaseUrl, caller.requestId));
    }
  };

  const closeSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  };

  const openSession = async (credentialHash: Buffer): Promise<Session> => {
    if (sessions.size >= MCP_MAX_SESSIONS) {
      const oldest = [...sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) await closeSession(oldest[0]);
    }
    const server = newServer();
    const events = createSessionEventStore(EVENTS_PER_SESSION);
    const session: Session = { server, events, credentialHash, lastUsed: Date.now(), transport: undefined as unknown as StreamableHTTPServerTransport };
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, session),
      onsessionclosed: (id) => void sessions.delete(id),
      eventStore: events,
      retryInterval: SSE_RETRY_MS,
    });
    await server.connect(session.transport);
    return session;
  };

  const sweep = setInterval(() => {
    const cutoff = Date.now() - MCP_SESSION_IDLE_MS;
    for (const [id, s] of sessions) if (s.lastUsed < cutoff) void closeSession(id);
  }, 60_000);
  sweep.unref();

  app.register(async (scope) => {
    // The SDK answers JSON-RPC parse errors itself; hand it the raw text.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: path,
      handler: async (req, reply) => {
        // DNS-rebinding protection: a browser page on another origin must not drive this endpoint.
        const origin = header(req, 'origin');
        if (origin !== undefined && !originAllowed(deps.origins, origin)) {
          return sendProblem(req, reply, problem('ORIGIN_NOT_ALLOWED', `Origin ${origin} may not use this MCP endpoint`));
        }
        if (deps.origins.loopbackOnly && !isLoopbackHost(header(req, 'host') ?? '')) {
          return sendProblem(req, reply, problem('ORIGIN_NOT_ALLOWED', 'this MCP endpoint answers only on a loopback Host'));
        }

        let credential: string | undefined;
        let principal: Principal | null = null;
        try {
          credential = credentialOf(req);
          if (credential !== undefined) principal = await deps.services.keys.authenticate(credential);
        } catch (err) {
          if (isProblemError(err)) return sendProblem(req, reply, err);
          throw err;
        }

        let parsed: unknown;
        if (req.method === 'POST') {
          try {
            parsed = JSON.parse(typeof req.body === 'string' ? req.body : '');
          } catch {
            return jsonRpcError(reply, 400, RpcError.ParseError, 'Parse error: the body is not JSON');
          }
          const refusal = gate(parsed, principal);
          if (refusal) return sendProblem(req, reply, refusal);
        }

        const sessionId = header(req, 'mcp-session-id');
        let session: Session | undefined;
        if (sessionId !== undefined) {
          session = sessions.get(sessionId);
          if (!session) return jsonRpcError(reply, 404, -32001, 'Session not found: initialize a new session');
          if (!timingSafeEqual(session.credentialHash, hashOf(credential))) {
            return sendProblem(req, reply, problem('MCP_SESSION_FORBIDDEN', 'this MCP session was opened with another credential; send the same API key or open a new session'));
          }
        } else if (req.method === 'POST' && isInitialize(parsed)) {
          session = await openSession(hashOf(credential));
        } else {
          return jsonRpcError(reply, 400, RpcError.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
        }
        session.lastUsed = Date.now();

        const caller: CallerInfo = { credential, principal, ip: req.ip, requestId: req.id, apiVersion: resolveVersion(header(req, 'svc-version')) };
        const auth: AuthInfo = { token: credential ?? '', clientId: principal?.keyId ?? 'anonymous', scopes: [...(principal?.scopes ?? [])], extra: { caller } };
        reply.hijack();
        reply.raw.setHeader('X-Request-Id', req.id);
        if (req.method === 'GET' && header(req, 'last-event-id') === undefined) await primeStandaloneStream(session, reply.raw);
        await session.transport.handleRequest(Object.assign(req.raw, { auth }), reply.raw, parsed);
      },
    });
  });

  /** 401 for a keyless call that needs a key; 403 insufficient_scope for a key below the tool's tier. */
  function gate(body: unknown, principal: Principal | null): ProblemError | null {
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!isRecord(message) || typeof message.method !== 'string' || message.id === undefined) continue;
      if (!principal && !KEYLESS_METHODS.has(message.method)) {
        return problem('API_KEY_REQUIRED', `${message.method} needs an API key (Authorization: Bearer <key>)`);
      }
      if (message.method !== 'tools/call') continue;
      const name = isRecord(message.params) ? message.params.name : undefined;
      const tool = typeof name === 'string' ? byName.get(name) : undefined;
      if (!tool) continue;
      try {
        authorize(tool.capability, principal);
      } catch (err) {
        if (isProblemError(err)) return err;
        throw err;
      }
    }
    return null;
  }

  return {
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(closeSession));
    },
  };
}

/**
 * The SDK primes POST streams but not the standalone GET stream: prime it the same way (an event id
 * in the session's store, a retry hint, empty data) as soon as its 200 head goes out, so a client
 * that loses it resumes with Last-Event-ID from the very start.
 */
async function primeStandaloneStream(session: Session, res: ServerResponse): Promise<void> {
  const id = await session.events.storeEvent(STANDALONE_STREAM_ID, {} as JSONRPCMessage);
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const out = writeHead(...args);
    if (res.statusCode === 200) res.write(`id: ${id}\nretry: ${SSE_RETRY_MS}\ndata: \n\n`);
    return out;
  }) as ServerResponse['writeHead'];
}

const errorResult = (body: unknown): CallToolResult => ({ isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isInitialize = (body: unknown): boolean => (Array.isArray(body) ? body : [body]).some((m) => isRecord(m) && m.method === 'initialize');

/**
 * The REST adapter: one Fastify route per capability of the catalog, nothing hand-routed.
 * Every failure — unknown route, wrong method, bad JSON, wrong content type, oversized body,
 * validation, auth, rate limit, internal error — leaves as application/problem+json.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { problem, type ErrorCode } from '../../core/error-codes.ts';
import { isProblemError, type ProblemError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { RenderedJson } from '../../core/rendered-json.ts';
import { CONFIRM_PAGE_HEADERS, CONFIRM_PAGE_HTML, CONFIRM_PAGE_PATH } from './confirm-page.ts';
import { discoveryDocuments } from '../docs/documents.ts';
import type { Capability } from '../catalog/types.ts';
import { executeCall, type BaseContext } from '../pipeline/execute.ts';
import { FORWARDED_HEADER } from '../pipeline/forward.ts';
import { internalErrorBody, PROBLEM_CONTENT_TYPE, problemBody } from '../pipeline/problem.ts';
import { resolveVersion } from './versions.ts';
import { actingSessionOf, credentialOf, header, visitorOf, walletCredentialOf } from './request.ts';
import { registerMcpEndpoint, type McpEndpointDeps } from '../mcp/endpoint.ts';
import { originPolicy } from '../mcp/policy.ts';
import { registerEventTransports } from '../events/transports.ts';
import { PROVIDER_WEBHOOK_PATH, registerProviderWebhook } from './provider-webhook.ts';
import { trackUnusedConnections } from './unused-connections.ts';
import { registerWebApp } from './web-app.ts';

/** What the MCP endpoint needs (it shares the catalog and the pipeline), plus the HTTP server's own settings. */
export interface HttpDeps extends Omit<McpEndpointDeps, 'origins'> {
  mcpAllowedOrigins: readonly string[];
  bodyLimitBytes: number;
  trustProxy: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Fastify's own error codes for body parsing, mapped to ours.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_PAYLOAD',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
};

/**
 * One access-log line per request, at its end (Fastify's own writes another as the request arrives): the request
 * (method, URL, host, client address), its status and its time in ms, under its request id; `request errored` at
 * error level when the response failed. At info level this halves what every request writes to the log.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

export async function buildHttpServer(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as unknown as FastifyBaseLogger,
    logController: new OneLinePerRequest(),
    bodyLimit: deps.bodyLimitBytes,
    trustProxy: deps.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // Errors Fastify answers before any route runs: a URL it cannot decode, a path parameter over its length limit.
    frameworkErrors: (err, req, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const refusal = tooLong
        ? problem('URI_TOO_LONG', `a path segment is longer than ${MAX_PARAM_LENGTH} characters`)
        : problem('MALFORMED_REQUEST', 'the URL is not valid (it does not decode as UTF-8 percent-encoding)');
      return sendProblem(reply, req, refusal);
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors Node's HTTP parser raises before Fastify sees a request: header overflow (a 20 kB query string), bad syntax.
    clientErrorHandler: (err, socket) => clientError(err as NodeJS.ErrnoException, socket, deps.publicBaseUrl),
  });
  // JSON only: any other body media type is refused with 415.
  app.removeContentTypeParser('text/plain');

  const sendProblem = (reply: FastifyReply, req: FastifyRequest, err: ProblemError, extraHeaders: Record<string, string> = {}): FastifyReply =>
    reply
      .code(err.status)
      .headers({ ...extraHeaders, ...(err.headers ?? {}) })
      .type(PROBLEM_CONTENT_TYPE)
      .send(problemBody(err, deps.publicBaseUrl, req.id));

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });

  const baseFor = (req: FastifyRequest, cap: Capability): BaseContext => ({
    services: deps.services,
    documents: deps.documents,
    requestId: req.id,
    clock: deps.clock,
    log: req.log as unknown as Logger,
    apiVersion: cap.surface === 'agent' ? resolveVersion(header(req, 'svc-version')) : '1.0.0',
    via: 'rest',
    problemTypeBase: deps.publicBaseUrl,
  });

  for (const cap of deps.catalog) {
    app.route({
      method: cap.method,
      url: cap.fullPath.replace(/\{(\w+)\}/g, ':$1'),
      handler: async (req, reply) => {
        const headers: Record<string, string> = {};
        try {
          const base = baseFor(req, cap);
          if (cap.surface === 'agent') headers['Svc-Version'] = base.apiVersion;
          const credential = credentialOf(req);
          const result = await executeCall(
            base,
            {
              capability: cap,
              credential,
              // A key, when sent, wins: the session of a walletSession capability is read (and its CSRF guard asked) only without one.
              // Without a key the session is the caller, and a cookie write must carry the CSRF guard (economy, docs/web.md).
              walletCredential: cap.walletSession && credential === undefined ? actingSessionOf(req) : cap.walletAuth ? walletCredentialOf(req) : undefined,
              visitor: visitorOf(req),
              ip: req.ip,
              idempotencyKey: header(req, 'idempotency-key'),
              params: req.params,
              query: req.query,
              body: req.body,
              forwarded: cap.route !== undefined && header(req, FORWARDED_HEADER) !== undefined,
            },
            headers,
          );
          reply.code(result.status).headers(result.headers);
          // A pre-rendered body goes out as its bytes, with the content type Fastify gives a serialised object.
          if (result.body instanceof RenderedJson) return reply.type('application/json; charset=utf-8').send(result.body.text);
          return reply.send(result.body);
        } catch (err) {
          if (isProblemError(err)) return sendProblem(reply, req, err, headers);
          throw err;
        }
      },
    });
  }

  const mcp = registerMcpEndpoint(app, {
    catalog: deps.catalog,
    services: deps.services,
    documents: deps.documents,
    clock: deps.clock,
    log: deps.log,
    publicBaseUrl: deps.publicBaseUrl,
    mcpUrl: deps.mcpUrl,
    origins: originPolicy(deps.mcpUrl, deps.publicBaseUrl, deps.mcpAllowedOrigins),
  });
  // Before the listener stops: open SSE streams would otherwise hold close() forever.
  app.addHook('preClose', () => mcp.close());
  const events = registerEventTransports(app, { services: deps.services, log: deps.log, publicBaseUrl: deps.publicBaseUrl, trustProxy: deps.trustProxy, clock: deps.clock });
  app.addHook('preClose', () => events.close());
  // Last before the listener stops: a connection that never sent a request would hold close() until its client drops it.
  const endUnused = trackUnusedConnections(app.server);
  app.addHook('preClose', async () => endUnused());

  // The human-facing page mailed links open (not a capability: HTML, no input, no state).
  app.get(CONFIRM_PAGE_PATH, async (_req, reply) => reply.headers(CONFIRM_PAGE_HEADERS).send(CONFIRM_PAGE_HTML));
  // The card payment provider's webhook (raw body, verified by its signature).
  registerProviderWebhook(app, { services: deps.services, sendProblem });
  // The discovery documents that are not capabilities (landing and contract pages, skill.md, agent card).
  const documents = discoveryDocuments(deps.documents.skill(), deps.documents.site);
  for (const doc of documents) app.get(doc.path, async (_req, reply) => reply.headers(doc.headers).send(doc.body));
  // The consumer web app at / (docs/web.md): its client routes and built assets.
  registerWebApp(app, { sendProblem, visitors: deps.services.visitors, secureCookies: deps.publicBaseUrl.startsWith('https:') });

  // Known path, other method → 405 with Allow; otherwise 404.
  const routes = [...deps.catalog, ...documents.map((d) => ({ method: 'GET', fullPath: d.path })), { method: 'POST', fullPath: PROVIDER_WEBHOOK_PATH }].map((c) => ({ method: c.method, re: pathRegex(c.fullPath) }));
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      return sendProblem(reply, req, problem('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use ${allowed.join(', ')}`), {
        Allow: allowed.join(', '),
      });
    }
    return sendProblem(reply, req, problem('NOT_FOUND', `no route ${req.method} ${path}; see ${deps.publicBaseUrl}/api/agent/v1/openapi.json`));
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (isProblemError(err)) return sendProblem(reply, req, err);
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (mapped) return sendProblem(reply, req, problem(mapped, err.message));
    if (err instanceof SyntaxError || (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP'))) {
      return sendProblem(reply, req, problem('MALFORMED_JSON', 'the request body is not valid JSON'));
    }
    req.log.error({ err, reqId: req.id }, 'internal error');
    return reply.code(500).type(PROBLEM_CONTENT_TYPE).send(internalErrorBody(deps.publicBaseUrl, req.id));
  });

  return app;
}

/**
 * Longer than any path parameter the specs allow (a reputation subjectId is 1..256 characters, an agentId 1..128), so a
 * parameter over its own limit is that capability's 400 INVALID_ID and only an absurd one is refused before routing.
 */
const MAX_PARAM_LENGTH = 512;

/** Answers a request Node's parser refused with problem+json on the raw socket, then closes it. */
function clientError(err: NodeJS.ErrnoException, socket: Duplex, problemTypeBase: string): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const refusal =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? problem('HEADERS_TOO_LARGE', 'the request line and headers exceed 16 KiB; send long input in a POST body')
      : problem('MALFORMED_REQUEST', 'the request is not valid HTTP');
  const body = JSON.stringify(problemBody(refusal, problemTypeBase, randomUUID()));
  const status = `${refusal.status} ${http.STATUS_CODES[refusal.status] ?? 'Bad Request'}`;
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function pathRegex(fullPath: string): RegExp {
  const pattern = fullPath
    .split('/')
    .map((seg) => (seg.startsWith(':') || /^\{\w+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}/?$`);
}

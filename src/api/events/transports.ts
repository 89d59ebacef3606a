/**
 * The event transports (docs/events.md): Server-Sent Events at GET {prefix}/events/stream and WebSocket at
 * {prefix}/events/ws, both over the outbox through openEventStream (gap-free, resumable by sequence, private events to
 * their agent only). Not capabilities: streams, REST-only by the spec (GET /events/discovery describes them). An API
 * key is optional: without one a subscriber receives public events; with one, also its agent's private events. A
 * keyless subscriber (the web app's pages, docs/web.md "Live updates") is charged the read-only tier's read budget of
 * its client address per connection, and one address holds at most EVENTS_MAX_KEYLESS_PER_ADDRESS at once. A
 * subscriber that cannot keep up (its socket's buffer passes EVENTS_MAX_BUFFERED_BYTES) is closed with the sequence to
 * resume from, and never slows anyone else.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { problem } from '../../core/error-codes.ts';
import { isProblemError, type ProblemError } from '../../core/errors.ts';
import type { EventEnvelope, EventFilter } from '../../core/events/envelope.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Principal } from '../../core/principal.ts';
import type { EventStream } from '../../services/events/stream.ts';
import type { Services } from '../../services/services.ts';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../pipeline/problem.ts';
import { credentialOf } from '../http/request.ts';
import { chargeBudget } from '../../services/rate-limit/charge.ts';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../services/rate-limit/limits.ts';

export const EVENTS_PREFIX = '/api/agent/v1/events';
export const SSE_PATH = `${EVENTS_PREFIX}/stream`;
export const WS_PATH = `${EVENTS_PREFIX}/ws`;

/** The transports are streams, not capabilities, and REST-only by the spec: mcp-discovery's surfacePolicy lists them. */
export const EVENT_TRANSPORTS = [
  { capability: 'GET /events/ws', reason: 'the events transport is REST-only by the spec: a WebSocket stream (GET /events/discovery describes it)', paths: [WS_PATH] },
  { capability: 'GET /events/stream', reason: 'the events transport is REST-only by the spec: a Server-Sent Events stream (GET /events/discovery describes it)', paths: [SSE_PATH] },
];


const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an EVM address');
const Sequence = z.string().regex(/^[0-9]{1,20}$/, 'must be an outbox sequence (a decimal integer)');
const Kinds = z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9_.:*-]{0,63}$/, 'must be an event kind, or a prefix ending in .*')).max(50);

/** The filter and resume point a subscriber sends (WebSocket subscribe message; SSE query, lists comma-separated). */
export const SubscribeSchema = z.strictObject({
  kinds: Kinds.optional(),
  markets: z.array(Address).max(100).optional(),
  creator: Address.optional(),
  includePrivate: z.boolean().optional(),
  /** Resume after this sequence (the last one received); absent: new events from now. */
  fromSequence: Sequence.optional(),
});
type Subscribe = z.output<typeof SubscribeSchema>;

const filterOf = (s: Subscribe): EventFilter => ({
  kinds: s.kinds,
  markets: s.markets?.map((m) => m.toLowerCase()),
  creator: s.creator?.toLowerCase(),
  includePrivate: s.includePrivate,
});

// Each event serialized once for every subscriber: its WebSocket message and its SSE frame, as bytes.
const frames = new WeakMap<EventEnvelope, { ws: Buffer; sse: Buffer }>();
function framesOf(e: EventEnvelope): { ws: Buffer; sse: Buffer } {
  let f = frames.get(e);
  if (!f) {
    const json = JSON.stringify(e);
    f = { ws: Buffer.from(`{"op":"event","event":${json}}`), sse: Buffer.from(`id: ${e.sequence}\nevent: ${e.type}\ndata: ${json}\n\n`) };
    frames.set(e, f);
  }
  return f;
}

function invalid(err: z.ZodError, where: string): ProblemError {
  return problem('INVALID_QUERY', `invalid ${where}: ${err.issues.map((i) => `${i.path.join('.') || where}: ${i.message}`).join('; ')}`, {
    errors: err.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  });
}

async function principalOf(services: Services, credential: string | undefined): Promise<Principal | null> {
  return credential === undefined ? null : services.keys.authenticate(credential);
}

/**
 * Keyless subscribers by client address: a new one is charged the read-only tier's read budget of its address (the
 * budget a visitor's reads spend: anyone may open a connection without a key) and refused past `maxPerAddress` open
 * at once, both with 429 RATE_LIMITED. Answers the release to call when the connection ends.
 */
function keylessGate(services: Services, clock: Clock, maxPerAddress: number) {
  const open = new Map<string, number>();
  const limit = RATE_LIMITS['read-only'].read;
  return async (ip: string): Promise<() => void> => {
    await chargeBudget(
      { rateLimits: services.rateLimits, clock },
      { bucket: `visitor-ip:${ip}:read`, limit, windowMs: RATE_WINDOW_MS, spent: (retryAfter) => `read budget of ${limit} requests per 60 s is spent; retry after ${retryAfter} s` },
    );
    const held = open.get(ip) ?? 0;
    if (held >= maxPerAddress) {
      throw problem('RATE_LIMITED', `an address holds at most ${maxPerAddress} event streams without an API key; close one, or send a key`, {
        headers: { 'Retry-After': '5' },
        extensions: { reason: 'KEYLESS_STREAMS_PER_ADDRESS', limit: maxPerAddress },
      });
    }
    open.set(ip, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (open.get(ip) ?? 1) - 1;
      if (n <= 0) open.delete(ip);
      else open.set(ip, n);
    };
  };
}

/** The client address of an upgrade request, as Fastify's req.ip gives it for the other routes. */
function upgradeIp(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? req.headers['x-forwarded-for'] : undefined;
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return first || req.socket.remoteAddress || 'unknown';
}

export function registerEventTransports(app: FastifyInstance, deps: { services: Services; clock: Clock; log: Logger; publicBaseUrl: string; trustProxy: boolean }): { close(): Promise<void> } {
  const settings = deps.services.eventStreams.settings;
  const open = new Set<{ close(reason: string): void }>();
  const admitKeyless = keylessGate(deps.services, deps.clock, settings.maxKeylessPerAddress);

  // ---- Server-Sent Events -------------------------------------------------------------------------------------
  app.get(SSE_PATH, async (req: FastifyRequest, reply: FastifyReply) => {
    let principal: Principal | null;
    let sub: Subscribe;
    let release = () => {};
    try {
      principal = await principalOf(deps.services, credentialOf(req));
      const q = req.query as Record<string, unknown>;
      const list = (v: unknown) => (typeof v === 'string' && v !== '' ? v.split(',') : undefined);
      const lastEventId = req.headers['last-event-id'];
      const parsed = SubscribeSchema.safeParse({
        kinds: list(q.kinds),
        markets: list(q.markets),
        creator: q.creator,
        includePrivate: q.includePrivate === undefined ? undefined : q.includePrivate === 'true' ? true : q.includePrivate === 'false' ? false : q.includePrivate,
        // Last-Event-ID (the browser's reconnect) wins over fromSequence.
        fromSequence: typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : q.fromSequence,
      });
      const unknown = Object.keys(q).filter((k) => !['kinds', 'markets', 'creator', 'includePrivate', 'fromSequence'].includes(k));
      if (unknown.length > 0) throw problem('INVALID_QUERY', `unknown query parameter ${unknown.join(', ')}`, { errors: unknown.map((k) => ({ path: k, message: 'unknown field' })) });
      if (!parsed.success) throw invalid(parsed.error, 'query');
      sub = parsed.data;
      if (principal === null) release = await admitKeyless(req.ip);
    } catch (err) {
      if (!isProblemError(err)) throw err;
      return reply.code(err.status).headers(err.headers ?? {}).type(PROBLEM_CONTENT_TYPE).send(problemBody(err, deps.publicBaseUrl, req.id));
    }

    const raw = reply.raw;
    reply.hijack();
    raw.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    raw.write(`retry: 2000\n\n`);
    let stream: EventStream | null = null;
    let ended = false;
    const end = (closing?: Record<string, unknown>) => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      stream?.close();
      open.delete(handle);
      release();
      if (closing) raw.write(`event: closing\ndata: ${JSON.stringify(closing)}\n\n`);
      raw.end();
    };
    const handle = { close: (reason: string) => end({ reason, resumeFrom: stream?.position().toString() ?? sub.fromSequence ?? null }) };
    open.add(handle);
    const heartbeat = setInterval(() => raw.write(`: heartbeat ${stream?.position() ?? ''}\n\n`), settings.heartbeatMs);
    heartbeat.unref();
    raw.on('close', () => end());
    const send = (e: EventEnvelope) => {
      if (ended) return;
      if (raw.writableLength > settings.maxBufferedBytes) return handle.close('slow_consumer');
      raw.write(framesOf(e).sse);
    };
    try {
      stream = await deps.services.eventStreams.open({ agentId: principal?.agentId ?? null, filter: filterOf(sub), afterSeq: sub.fromSequence === undefined ? undefined : BigInt(sub.fromSequence) }, send);
    } catch (err) {
      deps.log.error({ err }, 'events: opening an SSE stream failed');
      return end({ reason: 'internal_error', resumeFrom: sub.fromSequence ?? null });
    }
    if (ended) stream.close();
  });

  // ---- WebSocket ------------------------------------------------------------------------------------------------
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const refuse = (socket: Duplex, status: number, body: Record<string, unknown>) => {
    const json = JSON.stringify(body);
    socket.end(`HTTP/1.1 ${status} ${({ 401: 'Unauthorized', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' } as Record<number, string>)[status] ?? 'Bad Request'}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    // Nothing else here speaks WebSocket: any other upgrade is answered 404 rather than left hanging.
    if (path !== WS_PATH) return refuse(socket, 404, { code: 'NOT_FOUND', status: 404, detail: `WebSocket is served at ${WS_PATH} only` });
    void (async () => {
      let principal: Principal | null;
      let release = () => {};
      try {
        principal = await principalOf(deps.services, credentialOf({ headers: req.headers } as FastifyRequest));
        if (principal === null) release = await admitKeyless(upgradeIp(req, deps.trustProxy));
      } catch (err) {
        if (!isProblemError(err)) {
          deps.log.error({ err }, 'events: websocket authentication failed');
          return refuse(socket, 500, { code: 'INTERNAL_ERROR', status: 500 });
        }
        return refuse(socket, err.status, problemBody(err, deps.publicBaseUrl, 'ws') as Record<string, unknown>);
      }
      socket.once('close', release);
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.once('close', release);
        connection(ws, principal);
      });
    })();
  };
  app.server.on('upgrade', onUpgrade);

  const connection = (ws: WebSocket, principal: Principal | null) => {
    let stream: EventStream | null = null;
    let subscribing: Promise<void> = Promise.resolve();
    const send = (msg: Record<string, unknown>) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(msg));
    const handle = {
      close: (reason: string) => {
        send({ op: 'closing', reason, resumeFrom: stream?.position().toString() ?? null });
        stream?.close();
        ws.close(reason === 'slow_consumer' ? 4008 : 1001, reason);
      },
    };
    open.add(handle);
    const heartbeat = setInterval(() => send({ op: 'heartbeat', sequence: stream?.position().toString() ?? null, time: new Date().toISOString() }), settings.heartbeatMs);
    heartbeat.unref();
    ws.on('close', () => {
      clearInterval(heartbeat);
      stream?.close();
      open.delete(handle);
    });
    send({ op: 'welcome', authenticated: principal !== null, agentId: principal?.agentId ?? null, heartbeatMs: settings.heartbeatMs });
    ws.on('message', (data) => {
      subscribing = subscribing.then(async () => {
        let msg: unknown;
        try {
          msg = JSON.parse(String(data));
        } catch {
          return void send({ op: 'error', code: 'MALFORMED_JSON', detail: 'every message is one JSON object' });
        }
        const op = (msg as { op?: unknown } | null)?.op;
        if (op === 'ping') return void send({ op: 'pong', sequence: stream?.position().toString() ?? null });
        if (op === 'unsubscribe') {
          const at = stream?.position().toString() ?? null;
          stream?.close();
          stream = null;
          return void send({ op: 'unsubscribed', resumeFrom: at });
        }
        if (op !== 'subscribe') return void send({ op: 'error', code: 'INVALID_PAYLOAD', detail: 'op must be subscribe, unsubscribe or ping' });
        const { op: _op, ...rest } = msg as Record<string, unknown>;
        const parsed = SubscribeSchema.safeParse(rest);
        if (!parsed.success) return void send({ op: 'error', code: 'INVALID_PAYLOAD', detail: invalid(parsed.error, 'subscribe').detail });
        // One subscription per connection: a new subscribe replaces the last.
        stream?.close();
        const s = parsed.data;
        stream = await deps.services.eventStreams.open(
          { agentId: principal?.agentId ?? null, filter: filterOf(s), afterSeq: s.fromSequence === undefined ? undefined : BigInt(s.fromSequence) },
          (e) => {
            if (ws.bufferedAmount > settings.maxBufferedBytes) return handle.close('slow_consumer');
            if (ws.readyState === ws.OPEN) ws.send(framesOf(e).ws, { binary: false });
          },
        );
        send({ op: 'subscribed', fromSequence: stream.position().toString(), filter: { kinds: s.kinds ?? null, markets: s.markets ?? null, creator: s.creator ?? null, includePrivate: s.includePrivate ?? principal !== null } });
      }).catch((err: unknown) => {
        deps.log.error({ err }, 'events: websocket message failed');
        send({ op: 'error', code: 'INTERNAL_ERROR', detail: 'the message could not be handled; subscribe again' });
      });
    });
  };

  return {
    async close() {
      app.server.off('upgrade', onUpgrade);
      for (const h of [...open]) h.close('server_closing');
      wss.close();
    },
  };
}

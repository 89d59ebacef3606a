// The HTTP edge: every failure path answers problem+json with the documented code; request ids,
// versions, keys, tiers, scopes, rate limits and idempotency behave as the spec and docs/http.md say.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import type { DB } from '../../src/db/schema.ts';
import { fixtureCatalog } from '../support/fixture-capabilities.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { capturedLog } from '../support/log-lines.ts';

let server: TestServer;
const clock = new ManualClock(new Date('2026-11-21T12:00:00.000Z'));
const dbRef: { db?: Kysely<DB> } = {};
/** The server's log lines at info level, as written. */
const { log: serverLog, lines: logLines } = capturedLog();

beforeAll(async () => {
  server = await startTestServer({
    clock,
    catalog: fixtureCatalog(dbRef),
    env: { BODY_LIMIT_BYTES: '2048', TRUST_PROXY: 'true' },
    log: serverLog,
  });
  dbRef.db = server.runtime.database.db;
});
afterAll(async () => server?.close());

const expectProblem = (res: { status: number; headers: Record<string, unknown>; body: Record<string, unknown> }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  expect(String(res.body.type)).toMatch(new RegExp(`/errors/${code}$`));
};

describe('problem+json for every failure path', () => {
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const res = await server.call('GET', '/api/agent/v1/no/such/route');
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.headers['x-request-id']).toBe(res.body.requestId);
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await server.call('DELETE', '/api/agent/v1/time', { unchecked: true });
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET');
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const key = await server.key('propose');
    const res = await server.call('POST', '/api/agent/v1/test/notes', {
      key,
      idempotencyKey: 'k-malformed',
      payload: '{"text": "x", ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'MALFORMED_JSON');
  });

  it('answers a non-JSON content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const key = await server.key('propose');
    const res = await server.call('POST', '/api/agent/v1/test/notes', {
      key,
      idempotencyKey: 'k-plain',
      payload: 'text=hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const key = await server.key('propose');
    const res = await server.call('POST', '/api/agent/v1/test/notes', {
      key,
      idempotencyKey: 'k-big',
      body: { text: 'x'.repeat(5000), n: 1 },
    });
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses unknown body fields with 400 INVALID_PAYLOAD naming the field', async () => {
    const key = await server.key('propose');
    const res = await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'k-extra', body: { text: 'a', n: 1, extra: true } });
    expectProblem(res, 400, 'INVALID_PAYLOAD');
    expect(res.body.errors).toEqual([{ path: 'body.extra', message: expect.stringContaining('unknown field') }]);
  });

  it('lists every invalid field in errors[]', async () => {
    const key = await server.key('propose');
    const res = await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'k-bad', body: { text: '', n: 11 } });
    expectProblem(res, 400, 'INVALID_PAYLOAD');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.n', 'body.text']);
  });

  it('answers a bad query parameter with 400 INVALID_QUERY, at the boundary', async () => {
    expect((await server.call('GET', '/api/agent/v1/test/ping?limit=100')).status).toBe(200);
    const res = await server.call('GET', '/api/agent/v1/test/ping?limit=101');
    expectProblem(res, 400, 'INVALID_QUERY');
    expect(res.body.errors[0].path).toBe('query.limit');
    expectProblem(await server.call('GET', '/api/agent/v1/test/ping?unknown=1'), 400, 'INVALID_QUERY');
  });

  it('answers an internal error with 500 INTERNAL_ERROR and no internals', async () => {
    const res = await server.call('GET', '/api/agent/v1/test/boom');
    expectProblem(res, 500, 'INTERNAL_ERROR');
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('/srv/db');
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
  });
});

describe('request ids and versions', () => {
  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const given = await server.call('GET', '/api/agent/v1/time', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers['x-request-id']).toBe('trace-123');
    const bad = await server.call('GET', '/api/agent/v1/time', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one access line per request, at its end, under its request id, without the key', async () => {
    const key = await server.key('read-only');
    const res = await server.call('GET', '/api/agent/v1/time', { headers: { 'x-request-id': 'access-log-1', authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const refused = await server.call('GET', '/api/agent/v1/no/such/route', { headers: { 'x-request-id': 'access-log-2' } });
    expect(refused.status).toBe(404);
    const linesOf = (reqId: string) => logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === reqId);
    const [ok, ...moreOk] = linesOf('access-log-1');
    expect(moreOk).toEqual([]);
    expect(ok).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/api/agent/v1/time' }, res: { statusCode: 200 }, responseTime: expect.any(Number) });
    expect(linesOf('access-log-2').filter((line) => line.msg === 'request completed')).toEqual([expect.objectContaining({ res: { statusCode: 404 } })]);
    expect(logLines.filter((line) => line.includes(key))).toEqual([]);
  });

  it('uses the current Svc-Version when absent, honours a supported one, refuses others', async () => {
    const none = await server.call('GET', '/api/agent/v1/time');
    expect(none.headers['svc-version']).toBe('2026-11-01');
    const pinned = await server.call('GET', '/api/agent/v1/time', { headers: { 'svc-version': '2026-11-01' } });
    expect(pinned.status).toBe(200);
    const bad = await server.call('GET', '/api/agent/v1/time', { headers: { 'svc-version': '2019-01-01' } });
    expectProblem(bad, 400, 'INVALID_VERSION');
    expect(bad.body.supportedVersions).toEqual(['2026-11-01']);
  });

  it('serves the server time from the injected clock', async () => {
    const res = await server.call('GET', '/api/agent/v1/time');
    expect(res.body).toEqual({ serverTime: clock.now().getTime(), unixSeconds: Math.floor(clock.now().getTime() / 1000) });
  });
});

describe('API keys, tiers and scopes', () => {
  it('needs a key for a keyed capability: 401 API_KEY_REQUIRED with WWW-Authenticate', async () => {
    const res = await server.call('GET', '/api/agent/v1/discover/chains');
    expectProblem(res, 401, 'API_KEY_REQUIRED');
    expect(res.headers['www-authenticate']).toContain('Bearer');
  });

  it('accepts the key as Bearer and as X-API-Key', async () => {
    const key = await server.key('read-only');
    expect((await server.call('GET', '/api/agent/v1/discover/collateral', { key })).status).toBe(200);
    expect((await server.call('GET', '/api/agent/v1/discover/collateral', { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('refuses an unknown key, a malformed Authorization header, a revoked and an expired key', async () => {
    expectProblem(await server.call('GET', '/api/agent/v1/discover/collateral', { key: 'svc_test_nope' }), 401, 'INVALID_API_KEY');
    expectProblem(await server.call('GET', '/api/agent/v1/discover/collateral', { headers: { authorization: 'Basic abc' } }), 401, 'INVALID_API_KEY');

    const keys = server.runtime.services.keys;
    const revoked = await keys.create({ tier: 'execute', scopes: ['markets:read'] });
    await keys.revoke(revoked.record.id);
    expectProblem(await server.call('GET', '/api/agent/v1/discover/collateral', { key: revoked.key }), 401, 'API_KEY_REVOKED');

    const expiring = await keys.create({ tier: 'read-only', scopes: ['markets:read'], expiresAt: new Date(clock.now().getTime() + 1000) });
    expect((await server.call('GET', '/api/agent/v1/discover/collateral', { key: expiring.key })).status).toBe(200);
    clock.advance(1000);
    expectProblem(await server.call('GET', '/api/agent/v1/discover/collateral', { key: expiring.key }), 401, 'API_KEY_EXPIRED');
  });

  it('refuses a dormant key with 403 API_KEY_DORMANT', async () => {
    const dormant = await server.runtime.services.keys.create({ tier: 'propose', scopes: ['markets:read'], status: 'dormant' });
    expectProblem(await server.call('GET', '/api/agent/v1/discover/collateral', { key: dormant.key }), 403, 'API_KEY_DORMANT');
  });

  it('enforces the tier order read-only < propose < execute', async () => {
    const readOnly = await server.key('read-only');
    const propose = await server.key('propose');
    const execute = await server.key('execute');
    const tier = await server.call('POST', '/api/agent/v1/test/notes', { key: readOnly, idempotencyKey: 't1', body: { text: 'a', n: 1 } });
    expectProblem(tier, 403, 'INSUFFICIENT_TIER');
    expect(tier.body).toMatchObject({ requiredTier: 'propose', keyTier: 'read-only' });
    expectProblem(await server.call('POST', '/api/agent/v1/test/exec', { key: propose }), 403, 'INSUFFICIENT_TIER');
    expect((await server.call('POST', '/api/agent/v1/test/exec', { key: execute })).status).toBe(200);
    expect((await server.call('POST', '/api/agent/v1/test/notes', { key: execute, idempotencyKey: 't2', body: { text: 'a', n: 1 } })).status).toBe(200);
  });

  it('enforces scopes from the catalog with 403 INSUFFICIENT_SCOPE', async () => {
    const noScope = await server.key('execute', ['markets:read']);
    const res = await server.call('POST', '/api/agent/v1/test/exec', { key: noScope });
    expectProblem(res, 403, 'INSUFFICIENT_SCOPE');
    expect(res.body.missingScopes).toEqual(['trade:execute']);
    expectProblem(await server.call('GET', '/api/agent/v1/discover/chains', { key: await server.key('read-only', ['keys:read']) }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('stores only a hash of the key', async () => {
    const issued = await server.runtime.services.keys.create({ tier: 'read-only', scopes: ['markets:read'] });
    const row = await server.runtime.database.db.selectFrom('api_keys').selectAll().where('id', '=', issued.record.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(issued.key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.key.startsWith(row.prefix)).toBe(true);
  });
});

describe('rate limits (60-second sliding window)', () => {
  it('charges reads, sends the headers, answers 429 with Retry-After, and frees the window after 60 s', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.9' };
    const start = clock.now().getTime();
    const first = await server.call('GET', '/api/agent/v1/test/ping', { headers: ip });
    expect(first.headers['ratelimit-limit']).toBe('60');
    expect(first.headers['ratelimit-remaining']).toBe('59');
    expect(first.headers['ratelimit-reset']).toBe(String(Math.ceil((start + 60_000) / 1000)));
    clock.advance(10_000);
    for (let i = 2; i <= 60; i++) await server.call('GET', '/api/agent/v1/test/ping', { headers: ip });
    const limited = await server.call('GET', '/api/agent/v1/test/ping', { headers: ip });
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(limited.headers['retry-after']).toBe('50');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    clock.advance(50_000); // the first request ages out; the other 59 are still in the window
    const again = await server.call('GET', '/api/agent/v1/test/ping', { headers: ip });
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('0');
  });

  it('keeps separate budgets per key and per rate class, and does not charge liveness or catalog reads', async () => {
    const key = await server.key('read-only');
    const res = await server.call('GET', '/api/agent/v1/discover/collateral', { key });
    expect(res.headers['ratelimit-limit']).toBe('120');
    expect(res.headers['ratelimit-remaining']).toBe('119');
    const write = await server.call('POST', '/api/agent/v1/test/notes', { key: await server.key('propose'), idempotencyKey: 'rl-w', body: { text: 'a', n: 0 } });
    expect(write.headers['ratelimit-limit']).toBe('60');
    for (const path of ['/api/agent/v1/health', '/api/agent/v1/discover/capabilities', '/api/agent/v1/openapi.json', '/api/v1/openapi.json']) {
      const r = await server.call('GET', path);
      expect(r.headers['ratelimit-limit'], path).toBeUndefined();
    }
  });
});

describe('idempotency', () => {
  const countNotes = async () => Number((await dbRef.db!.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('type', '=', 'test.note').executeTakeFirstOrThrow()).n);

  it('requires an Idempotency-Key on mutating writes and validates it', async () => {
    const key = await server.key('propose');
    expectProblem(await server.call('POST', '/api/agent/v1/test/notes', { key, body: { text: 'a', n: 1 } }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectProblem(await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'x'.repeat(257), body: { text: 'a', n: 1 } }), 400, 'INVALID_IDEMPOTENCY_KEY');
    expect((await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'x'.repeat(256), body: { text: 'a', n: 1 } })).status).toBe(200);
  });

  it('replays the stored response without re-executing, and refuses the key with another payload', async () => {
    const key = await server.key('propose');
    const before = await countNotes();
    const first = await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'same', body: { text: 'hello', n: 2 } });
    expect(first.status).toBe(200);
    const replay = await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'same', body: { n: 2, text: 'hello' } });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['svc-version']).toBe('2026-11-01');
    const stored = await dbRef.db!.selectFrom('idempotency_records').select('response_headers').where('idem_key', '=', 'same').execute();
    for (const row of stored) expect(Object.keys(row.response_headers ?? {}).filter((h) => /^(RateLimit|Svc-Version)/i.test(h))).toEqual([]);
    expect(await countNotes()).toBe(before + 1);

    const conflict = await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'same', body: { text: 'other', n: 2 } });
    expectProblem(conflict, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await countNotes()).toBe(before + 1);
  });

  it('a failure after the effect committed answers the effect, not the failure, and a retry replays it', async () => {
    const key = await server.key('propose');
    const before = await countNotes();
    const call = () => server.call('POST', '/api/agent/v1/test/notes-once', { key, idempotencyKey: 'fails-after', body: { text: 'written', failAfter: true } });
    const first = await call();
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.body.text).toBe('written');
    const retry = await call();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await countNotes()).toBe(before + 1);
    // Without an effect, the failure is the answer, stored and replayed.
    const refused = await server.call('POST', '/api/agent/v1/test/notes', { key, idempotencyKey: 'no-effect', body: { text: 'x', n: 11 } });
    expect(refused.status).toBe(400);
  });

  it('scopes keys per principal', async () => {
    const a = await server.key('propose');
    const b = await server.key('propose');
    const ra = await server.call('POST', '/api/agent/v1/test/notes', { key: a, idempotencyKey: 'shared', body: { text: 'x', n: 1 } });
    const rb = await server.call('POST', '/api/agent/v1/test/notes', { key: b, idempotencyKey: 'shared', body: { text: 'x', n: 1 } });
    expect(ra.body.seq).not.toBe(rb.body.seq);
  });

  it('does not require a key on an exempt capability', async () => {
    expect((await server.call('POST', '/api/agent/v1/test/exec', { key: await server.key('execute') })).status).toBe(200);
  });
});

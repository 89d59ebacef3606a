// Input no request can turn into a 500 (found by a fuzz probe of main): text PostgreSQL cannot store, query
// parameters a capability does not take, and requests Fastify or Node's parser refuse before any route runs. Each
// answers problem+json with a documented code (docs/http.md "Text input", "Unknown query parameters").
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { terms } from '../support/markets.ts';

let server: TestServer;
let key: string;
let origin: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet' } });
  key = (await registerWallet(server)).key;
  const address = await server.runtime.listen();
  origin = address.replace('0.0.0.0', '127.0.0.1');
});
afterAll(async () => server?.close());

const expectProblem = (res: CallResult, status: number, code: string, path?: string) => {
  expect(res.status, res.text).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status, code });
  if (path) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
};

/** One raw request over a real socket (inject has no HTTP parser); the status, content type and parsed body. */
function raw(path: string): Promise<{ status: number; contentType: string; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type']), body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('text the database cannot store', () => {
  it.each([
    ['/api/v1/markets?category=a%00b', 'query.category'],
    ['/api/v1/markets?search=ab%00cd', 'query.search'],
    ['/api/v1/markets?geoPlace=%00', 'query.geoPlace'],
    ['/api/v1/markets/counts?category=a%00b', 'query.category'],
    ['/api/agent/v1/discover/markets?category=a%00b', 'query.category'],
    ['/api/agent/v1/discover/markets?search=ab%00cd', 'query.search'],
  ])('GET %s answers 400 INVALID_QUERY naming %s', async (url, field) => {
    expectProblem(await server.call('GET', url, { key, unchecked: true }), 400, 'INVALID_QUERY', field);
  });

  it.each([
    ['description', { description: 'nul \u0000 here' }, 'body.description'],
    ['an outcome', { outcomes: ['Yes', 'N\u0000o'] }, 'body.outcomes.1'],
    ['resolutionSource (lone high surrogate)', { resolutionSource: 'https://example.org/\ud800' }, 'body.resolutionSource'],
    ['externalId (lone low surrogate)', { externalId: 'ext-\udc00' }, 'body.externalId'],
  ])('negotiate/propose refuses %s with 400 INVALID_PAYLOAD naming the field', async (_label, override, field) => {
    const res = await server.call('POST', '/api/agent/v1/negotiate/propose', { key, body: terms(override), idempotencyKey: `nul-${field}`, unchecked: true });
    expectProblem(res, 400, 'INVALID_PAYLOAD', field);
  });

  it('negotiate/preflight refuses an externalId with NUL', async () => {
    const res = await server.call('POST', '/api/agent/v1/negotiate/preflight', { key, body: terms({ externalId: 'a\u0000b' }), idempotencyKey: 'nul-preflight', unchecked: true });
    expectProblem(res, 400, 'INVALID_PAYLOAD', 'body.externalId');
  });

  it('keeps accepting paired surrogates (emoji) and ordinary Unicode', async () => {
    const res = await server.call('GET', `/api/v1/markets?search=${encodeURIComponent('ü🙂')}`, { key });
    expect(res.status, res.text).toBe(200);
  });
});

describe('query parameters a capability does not take', () => {
  it.each([
    ['/api/agent/v1/me?agentId=someone-else', 'query.agentId'],
    ['/api/agent/v1/agents/me/identity?walletAddress=0x0000000000000000000000000000000000000001', 'query.walletAddress'],
    ['/api/agent/v1/time?x=1', 'query.x'],
  ])('GET %s answers 400 INVALID_QUERY', async (url, field) => {
    expectProblem(await server.call('GET', url, { key, unchecked: true }), 400, 'INVALID_QUERY', field);
  });
});

describe('the invalid-input code follows the part that failed', () => {
  it('a malformed path id is INVALID_ID, a bad query value INVALID_QUERY, a bad body INVALID_PAYLOAD — on GET and POST alike', async () => {
    expectProblem(await server.call('GET', '/api/agent/v1/webhooks/not-a-uuid', { key, unchecked: true }), 400, 'INVALID_ID', 'params.id');
    expectProblem(await server.call('POST', '/api/agent/v1/negotiate/not-a-uuid/accept', { key, idempotencyKey: 'part-1', unchecked: true }), 400, 'INVALID_ID', 'params.id');
    expectProblem(await server.call('GET', '/api/agent/v1/discover/markets?pageSize=0', { key, unchecked: true }), 400, 'INVALID_QUERY', 'query.pageSize');
    expectProblem(await server.call('POST', '/api/agent/v1/negotiate/preflight', { key, body: { question: 7 }, unchecked: true }), 400, 'INVALID_PAYLOAD');
    // A code the spec pins for an operation covers every part: the consumer transaction status answers INVALID_PAYLOAD.
    expectProblem(await server.call('GET', '/api/v1/transactions/0x12', { unchecked: true }), 400, 'INVALID_PAYLOAD', 'params.hash');
  });
});

describe('requests refused before any route runs', () => {
  it('a path parameter over 512 characters: 414 URI_TOO_LONG as problem+json', async () => {
    const res = await server.call('GET', `/api/agent/v1/discover/markets/0x${'a'.repeat(511)}`, { key, unchecked: true });
    expectProblem(res, 414, 'URI_TOO_LONG');
  });

  it('a URL that does not decode: 400 MALFORMED_REQUEST as problem+json', async () => {
    const res = await server.call('GET', '/api/agent/v1/discover/markets/%E0%A4%A', { key, unchecked: true });
    expectProblem(res, 400, 'MALFORMED_REQUEST');
  });

  it('a 20,000-character query string: 431 HEADERS_TOO_LARGE as problem+json', async () => {
    const res = await raw(`/api/v1/markets?search=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.contentType).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
  });
});

// Last: it closes the server (afterAll's close then does nothing more).
describe('shutdown', () => {
  it('ends a connection that never sent a request instead of waiting for its client to drop it', async () => {
    const { hostname, port } = new URL(origin);
    const unused = connect(Number(port), hostname);
    await once(unused, 'connect');
    const ended = once(unused, 'close');
    const closing = server.close();
    // Node counts such a connection as busy: without svc ending it, close() would wait for this client, which waits.
    await ended;
    await closing;
    expect(unused.destroyed).toBe(true);
  });
});

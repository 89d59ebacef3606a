// How the server hands out the web app (src/api/http/web-app.ts): index.html on the app's routes, never cached; hashed
// assets cached for a year, compressed when asked; a strict CSP on both; a clear 503 while unbuilt; and the API's own
// answers (JSON 404, 405 with Allow) exactly as before.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_CACHE_CONTROL, registerWebApp, UNHASHED_CACHE_CONTROL, WEB_DIST_DIR } from '../../src/api/http/web-app.ts';
import { createVisitorService } from '../../src/services/visitors/visitors.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

const INDEX = '<!doctype html><html lang="en-US"><head><script type="module" src="/assets/index-AbCd_123.js"></script></head><body><div id="app"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

function bareApp(dir: string): FastifyInstance {
  const app = Fastify();
  registerWebApp(app, {
    dir,
    visitors: createVisitorService({ secret: randomBytes(32) }),
    secureCookies: false,
    sendProblem: (reply, _req, err) => reply.code(err.status).type('application/problem+json').send({ code: err.code, detail: err.detail }),
  });
  return app;
}

describe('web app files', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-web-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets', 'index-AbCd_123.js'), SCRIPT);
    writeFileSync(path.join(dir, 'assets', 'pm.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = bareApp(dir);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers index.html, never cached, with a CSP that allows no inline script, on every app route', async () => {
    for (const url of ['/', '/markets', '/markets/0x1234567890abcdef1234567890abcdef12345678', '/leaderboard', '/?category=SPORTS', '/discover', '/profiles/0x1234567890abcdef1234567890abcdef12345678']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toBe(INDEX);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('gives a browser without one a visitor session: an HttpOnly, SameSite=Strict cookie, once', async () => {
    const first = await app.inject({ method: 'GET', url: '/' });
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(/^svc_visitor=[\w-]{22}\.[\w-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict$/);
    const again = await app.inject({ method: 'GET', url: '/markets', headers: { cookie: cookie.split(';')[0]! } });
    expect(again.headers['set-cookie']).toBeUndefined();
    // A session this server did not sign is replaced.
    const forged = await app.inject({ method: 'GET', url: '/', headers: { cookie: `svc_visitor=${'a'.repeat(22)}.${'b'.repeat(43)}` } });
    expect(String(forged.headers['set-cookie'])).toMatch(/^svc_visitor=/);
  });

  it('caches a hashed asset for a year and sends it compressed when the browser accepts it', async () => {
    const plain = await app.inject({ url: '/assets/index-AbCd_123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);

    const gzip = await app.inject({ url: '/assets/index-AbCd_123.js', headers: { 'accept-encoding': 'gzip' } });
    expect([gzip.headers['content-encoding'], gzip.headers.vary]).toEqual(['gzip', 'Accept-Encoding']);
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);
    expect(gzip.rawPayload.length).toBeLessThan(SCRIPT.length / 10);

    const br = await app.inject({ url: '/assets/index-AbCd_123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);

    const refused = await app.inject({ url: '/assets/index-AbCd_123.js', headers: { 'accept-encoding': 'br;q=0, gzip' } });
    expect(refused.headers['content-encoding']).toBe('gzip');
  });

  it('caches a file whose name carries no hash for an hour only', async () => {
    const res = await app.inject({ url: '/assets/pm.svg' });
    expect([res.statusCode, res.headers['content-type'], res.headers['cache-control']]).toEqual([200, 'image/svg+xml', UNHASHED_CACHE_CONTROL]);
  });

  it('serves nothing outside the build: an unknown asset, a path out of the folder, a path that is not an app route', async () => {
    for (const url of ['/assets/missing-12345678.js', '/assets/..%2Findex.html', '/assets/%2E%2E%2F%2E%2E%2Fpackage.json', '/portfolio-nope', '/markets/a/b', '/profiles/a/b', '/discover/x']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });

  it('answers 503 saying how to build while the app is not built', async () => {
    const empty = bareApp(path.join(tmpdir(), 'svc-web-missing-build'));
    for (const url of ['/', '/leaderboard', '/assets/index-AbCd_123.js']) {
      const res = await empty.inject({ url });
      expect(res.statusCode, url).toBe(503);
      expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: expect.stringContaining('npm run build:web') });
    }
    await empty.close();
  });
});

describe('the web app on the real server', () => {
  let server: TestServer;
  const built = () => existsSync(path.join(WEB_DIST_DIR, 'index.html'));
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers / with the app when built, else with a 503 problem saying how to build it', async () => {
    const res = await server.call('GET', '/', { unchecked: true });
    if (built()) {
      expect([res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([200, 'text/html; charset=utf-8', 'no-cache']);
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(res.text).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]{8}\.js"><\/script>/);
    } else {
      expect([res.status, res.headers['content-type'], res.body.code]).toEqual([503, 'application/problem+json; charset=utf-8', 'SERVICE_UNAVAILABLE']);
      expect(res.body.detail).toContain('npm run build:web');
    }
  });

  it('lets a visitor session read the public market reads without a key, and nothing else', async () => {
    const cookie = `svc_visitor=${server.runtime.services.visitors.issue()}`;
    expect((await server.call('GET', '/api/v1/markets', { unchecked: true })).body.code).toBe('API_KEY_REQUIRED');
    for (const path of ['/api/v1/markets', '/api/v1/markets/counts', '/api/v1/leaderboard', '/api/agent/v1/discover/markets']) {
      const res = await server.call('GET', path, { headers: { cookie } });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    // A session this server did not sign, or one altered, is nobody.
    const altered = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await server.call('GET', '/api/v1/markets', { unchecked: true, headers: { cookie: altered } })).status).toBe(401);
    // Not a key: the caller's own reads and every write still need one.
    expect((await server.call('GET', '/api/agent/v1/me', { unchecked: true, headers: { cookie } })).status).toBe(401);
    const write = await server.call('POST', '/api/agent/v1/negotiate/propose', { unchecked: true, headers: { cookie }, idempotencyKey: 'visitor-write', body: {} });
    expect(write.status).toBe(401);
  });

  it('leaves the API edge as it was: JSON 404 for unknown paths, 405 with Allow, the agents landing page', async () => {
    const unknownApi = await server.call('GET', '/api/v1/no-such-thing', { unchecked: true, headers: { accept: 'text/html' } });
    expect([unknownApi.status, unknownApi.headers['content-type'], unknownApi.body.code]).toEqual([404, 'application/problem+json; charset=utf-8', 'NOT_FOUND']);
    const unknownPage = await server.call('GET', '/no-such-page', { unchecked: true, headers: { accept: 'text/html' } });
    expect([unknownPage.status, unknownPage.headers['content-type'], unknownPage.body.code]).toEqual([404, 'application/problem+json; charset=utf-8', 'NOT_FOUND']);
    const unknownAsset = await server.call('GET', '/assets/nothing-12345678.js', { unchecked: true });
    expect([unknownAsset.status, unknownAsset.headers['content-type']]).toEqual([built() ? 404 : 503, 'application/problem+json; charset=utf-8']);
    const wrongMethod = await server.call('DELETE', '/api/v1/markets', { unchecked: true });
    expect([wrongMethod.status, wrongMethod.body.code, wrongMethod.headers.allow]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET']);
    const landing = await server.call('GET', '/agents', { unchecked: true });
    expect(landing.status).toBe(200);
    expect(landing.text).not.toContain('<div id="app">');
  });
});

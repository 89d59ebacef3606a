// Consumer wallet sessions over HTTP with real EIP-4361 messages and real EIP-191 signatures:
// sign-in, the cookie and header schemes, every refusal reason, the TTL boundary on a manual clock,
// logout, and the owner gate. Nothing is mocked.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ManualClock } from '../../src/core/clock.ts';
import { SIWE_MESSAGE_TEMPLATE, SIWE_PREFERRED_FOR, siweExample, siweMessage, siweTemplate, type SiweFields } from '../../src/core/siwe.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { fixtureCatalog } from '../support/fixture-capabilities.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';

const HOUR = 3_600_000;
const SETTINGS = { publicBaseUrl: 'http://svc.test', chainId: 8453 };

const clock = new ManualClock();
let server: TestServer;
let secure: TestServer;
beforeAll(async () => {
  const dbRef: { db?: Kysely<DB> } = {};
  [server, secure] = await Promise.all([
    startTestServer({ clock, catalog: fixtureCatalog(dbRef), env: { TRUST_PROXY: 'true' } }),
    startTestServer({ env: { TRUST_PROXY: 'true', PUBLIC_BASE_URL: 'https://svc.example' } }),
  ]);
  dbRef.db = server.runtime.database.db;
});
afterAll(async () => {
  await server?.close();
  await secure?.close();
});

// Keyless writes are limited per client address (20 / 60 s, and the manual clock stands still):
// every request comes from its own address.
let clients = 0;
const client = () => {
  clients++;
  return { 'x-forwarded-for': `10.0.${Math.floor(clients / 250)}.${(clients % 250) + 1}` };
};

const newAccount = () => privateKeyToAccount(generatePrivateKey());

async function issueNonce(s: TestServer = server): Promise<string> {
  const res = await s.call('POST', '/api/auth/nonce', { headers: client() });
  expect(res.status).toBe(200);
  return res.body.nonce;
}

/** A message for `account` as a client fills the template, issued now on the server's clock. */
async function signedMessage(account: PrivateKeyAccount, o: { fields?: Partial<SiweFields>; edit?: (m: string) => string; s?: TestServer; settings?: typeof SETTINGS } = {}) {
  const s = o.s ?? server;
  const fields = { address: account.address, nonce: o.fields?.nonce ?? (await issueNonce(s)), issuedAt: s.runtime.clock.now(), ...o.fields };
  const message = (o.edit ?? ((m: string) => m))(siweMessage(o.settings ?? SETTINGS, fields));
  return { message, signature: await account.signMessage({ message }) };
}

const verify = (body: unknown, s: TestServer = server) => s.call('POST', '/api/auth/verify', { body, headers: client() });

const cookieOf = (res: CallResult): string => {
  const raw = res.headers['set-cookie'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  expect(value, 'Set-Cookie').toBeTypeOf('string');
  return value!;
};
/** The Cookie request header a browser would send back. */
const cookieHeader = (res: CallResult) => ({ cookie: cookieOf(res).split(';')[0]! });

async function signIn(account: PrivateKeyAccount = newAccount(), returnToken = false) {
  const res = await verify({ ...(await signedMessage(account)), returnToken });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

const session = (headers: Record<string, string>) => server.call('GET', '/api/auth/session', { headers });

describe('the published SIWE template', () => {
  it('is EIP-4361 with this deployment\'s domain, URI and chain, leaving address, nonce and issuedAt to the signer', () => {
    const template = siweTemplate(SETTINGS);
    expect(template.split('\n')[0]).toBe('svc.test wants you to sign in with your Ethereum account:');
    expect(template).toContain('\nURI: http://svc.test\nVersion: 1\nChain ID: 8453\nNonce: {nonce}\nIssued At: {issuedAt}');
    expect(template.match(/\{\w+\}/g)).toEqual(['{address}', '{nonce}', '{issuedAt}']);
    expect(SIWE_MESSAGE_TEMPLATE.match(/\{\w+\}/g)).toEqual(['{domain}', '{address}', '{uri}', '{chainId}', '{nonce}', '{issuedAt}']);
    expect(siweExample(SETTINGS)).not.toMatch(/\{\w+\}/);
    expect(SIWE_PREFERRED_FOR).toEqual(expect.arrayContaining(['consumer session', 'economy', 'owner-gated reputation']));
  });
});

describe('POST /api/auth/verify', () => {
  it('signs in a client that fills the template by hand: HttpOnly, SameSite=Lax cookie, no Secure on http, no token in the body', async () => {
    const account = newAccount();
    const nonce = await issueNonce();
    const message = siweTemplate(SETTINGS)
      .replace('{address}', account.address)
      .replace('{nonce}', nonce)
      .replace('{issuedAt}', clock.now().toISOString());
    const res = await verify({ message, signature: await account.signMessage({ message }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ walletAddress: account.address.toLowerCase(), expiresAt: new Date(clock.now().getTime() + 24 * HOUR).toISOString() });
    const cookie = cookieOf(res);
    expect(cookie).toMatch(/^svc_session=svc_ws_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=86400; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain('Secure');
    expect(res.headers['idempotent-replayed']).toBeUndefined();

    const me = await session(cookieHeader(res));
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body);
  });

  it('stores the session token only as its SHA-256', async () => {
    const res = await signIn(newAccount(), true);
    const token = res.body.token as string;
    const rows = await server.runtime.database.db.selectFrom('wallet_sessions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
  });

  it('marks the cookie Secure when the service is on https', async () => {
    const account = newAccount();
    const https = { publicBaseUrl: 'https://svc.example', chainId: 8453 };
    const res = await verify(await signedMessage(account, { s: secure, settings: https }), secure);
    expect(res.status).toBe(200);
    expect(cookieOf(res)).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    // The http deployment's message is for another domain there.
    const wrong = await verify(await signedMessage(account, { s: secure }), secure);
    expect(wrong.body).toMatchObject({ code: 'SIWE_INVALID', reason: 'DOMAIN_MISMATCH' });
  });

  it('returns the token on request, and the Svc-Wallet-Session header works like the cookie', async () => {
    const account = newAccount();
    const res = await signIn(account, true);
    expect(res.body.token).toMatch(/^svc_ws_[A-Za-z0-9_-]{43}$/);
    expect(cookieOf(res).split(';')[0]).toBe(`svc_session=${res.body.token}`);
    const me = await session({ 'svc-wallet-session': res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.walletAddress).toBe(account.address.toLowerCase());
  });

  const refusals: [string, (a: PrivateKeyAccount) => Promise<{ message: string; signature: string }>, string][] = [
    ['a message for another domain', (a) => signedMessage(a, { edit: (m) => m.replace('svc.test wants', 'evil.test wants') }), 'DOMAIN_MISMATCH'],
    ['a message with a scheme other than ours', (a) => signedMessage(a, { edit: (m) => `https://${m}` }), 'DOMAIN_MISMATCH'],
    ['a message for another URI', (a) => signedMessage(a, { edit: (m) => m.replace('URI: http://svc.test', 'URI: http://evil.test') }), 'URI_MISMATCH'],
    ['a message for another chain', (a) => signedMessage(a, { settings: { ...SETTINGS, chainId: 1 } }), 'CHAIN_MISMATCH'],
    ['an expired message', (a) => signedMessage(a, { fields: { issuedAt: new Date(clock.now().getTime() - 60_000), expirationTime: new Date(clock.now().getTime() - 1000) } }), 'MESSAGE_EXPIRED'],
    ['a message at its Expiration Time', (a) => signedMessage(a, { fields: { expirationTime: clock.now() } }), 'MESSAGE_EXPIRED'],
    ['a message not valid yet', (a) => signedMessage(a, { fields: { notBefore: new Date(clock.now().getTime() + 60_000) } }), 'MESSAGE_NOT_YET_VALID'],
    ['a message issued more than 300 s ago', (a) => signedMessage(a, { fields: { issuedAt: new Date(clock.now().getTime() - 301_000) } }), 'ISSUED_AT_OUT_OF_WINDOW'],
    ['a message issued in the future', (a) => signedMessage(a, { fields: { issuedAt: new Date(clock.now().getTime() + 120_000) } }), 'ISSUED_AT_OUT_OF_WINDOW'],
    ['a nonce this service never issued', (a) => signedMessage(a, { fields: { nonce: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' } }), 'NONCE_UNKNOWN'],
    ['a signature by another wallet', async (a) => {
      const m = await signedMessage(a);
      return { message: m.message, signature: await newAccount().signMessage({ message: m.message }) };
    }, 'SIGNATURE_MISMATCH'],
    ['a signature over another message', async (a) => {
      const m = await signedMessage(a);
      return { message: m.message.replace('Sign in to svc', 'Sign in to SVC'), signature: m.signature };
    }, 'SIGNATURE_MISMATCH'],
    ['a signature that is not one', async (a) => ({ message: (await signedMessage(a)).message, signature: '0x1234' }), 'SIGNATURE_MALFORMED'],
    ['a 65-byte signature that recovers nothing', async (a) => ({ message: (await signedMessage(a)).message, signature: `0x${'00'.repeat(65)}` }), 'SIGNATURE_MALFORMED'],
    ['text that is not an EIP-4361 message', async (a) => ({ message: 'hello', signature: await a.signMessage({ message: 'hello' }) }), 'MESSAGE_MALFORMED'],
    ['a message without Issued At', (a) => signedMessage(a, { edit: (m) => m.replace(/\nIssued At: .*/, '') }), 'MESSAGE_MALFORMED'],
    ['a message of another version', (a) => signedMessage(a, { edit: (m) => m.replace('Version: 1', 'Version: 2') }), 'MESSAGE_MALFORMED'],
  ];
  it.each(refusals)('refuses %s with 401 SIWE_INVALID', async (_name, make, reason) => {
    const res = await verify(await make(newAccount()));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'SIWE_INVALID', reason });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a replayed nonce, and a refused attempt does not burn the nonce', async () => {
    const account = newAccount();
    const nonce = await issueNonce();
    const forged = await signedMessage(account, { fields: { nonce } });
    const bad = await verify({ message: forged.message, signature: await newAccount().signMessage({ message: forged.message }) });
    expect(bad.body.reason).toBe('SIGNATURE_MISMATCH');

    const good = await verify(forged);
    expect(good.status).toBe(200);
    const replay = await verify(forged);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ code: 'SIWE_INVALID', reason: 'NONCE_USED' });
    const otherWallet = newAccount();
    const reused = await verify(await signedMessage(otherWallet, { fields: { nonce } }));
    expect(reused.body.reason).toBe('NONCE_USED');
  });

  it('refuses an expired nonce', async () => {
    const account = newAccount();
    const nonce = await issueNonce();
    clock.advance(301_000);
    const res = await verify(await signedMessage(account, { fields: { nonce } }));
    expect(res.body).toMatchObject({ code: 'SIWE_INVALID', reason: 'NONCE_EXPIRED' });
  });

  it('validates the body: strict fields, bounded lengths, no Idempotency-Key needed', async () => {
    const ok = await signedMessage(newAccount());
    const extra = await verify({ ...ok, admin: true });
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0].path).toBe('body.admin');
    expect((await verify({ message: ok.message })).body.code).toBe('INVALID_PAYLOAD');
    expect((await verify({ ...ok, message: 'x'.repeat(4097) })).body.code).toBe('INVALID_PAYLOAD');
    expect((await verify({ ...ok, returnToken: 'yes' })).body.code).toBe('INVALID_PAYLOAD');
  });

  it('ends the session at the message\'s Expiration Time when that comes before the TTL', async () => {
    const account = newAccount();
    const expirationTime = new Date(clock.now().getTime() + 600_000);
    const res = await verify(await signedMessage(account, { fields: { expirationTime } }));
    expect(res.status).toBe(200);
    expect(res.body.expiresAt).toBe(expirationTime.toISOString());
    expect(cookieOf(res)).toContain('; Max-Age=600;');
  });
});

describe('wallet sessions', () => {
  it('answer 401 WALLET_AUTH_REQUIRED without a credential, or with a garbage or unknown token', async () => {
    const none = await session({});
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ code: 'WALLET_AUTH_REQUIRED', reason: 'SESSION_MISSING' });
    const unusable: Record<string, string>[] = [
      { 'svc-wallet-session': 'garbage' },
      { cookie: 'svc_session=garbage' },
      { cookie: 'other=1; svc_session=' },
      { 'svc-wallet-session': `svc_ws_${'A'.repeat(43)}` },
    ];
    for (const headers of unusable) {
      const res = await session(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.code).toBe('WALLET_AUTH_REQUIRED');
    }
    expect((await session({ 'svc-wallet-session': 'garbage' })).body.reason).toBe('SESSION_UNKNOWN');
  });

  it('live until the TTL: at TTL - 1 s the session works, at the TTL it is refused', async () => {
    const res = await signIn();
    const cookie = cookieHeader(res);
    const start = clock.now().getTime();
    expect(res.body.expiresAt).toBe(new Date(start + 24 * HOUR).toISOString());
    clock.set(new Date(start + 24 * HOUR - 1000));
    expect((await session(cookie)).status).toBe(200);
    clock.set(new Date(start + 24 * HOUR));
    const expired = await session(cookie);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ code: 'WALLET_AUTH_REQUIRED', reason: 'SESSION_EXPIRED' });
  });

  it('logout revokes the session and clears the cookie; the token is refused afterwards', async () => {
    const res = await signIn(newAccount(), true);
    const other = await signIn();
    const out = await server.call('POST', '/api/auth/logout', { headers: { ...cookieHeader(res), ...client() } });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ walletAddress: res.body.walletAddress, revokedAt: clock.now().toISOString() });
    expect(cookieOf(out)).toBe('svc_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');

    for (const headers of [cookieHeader(res), { 'svc-wallet-session': res.body.token }]) {
      const after = await session(headers);
      expect(after.status).toBe(401);
      expect(after.body).toMatchObject({ code: 'WALLET_AUTH_REQUIRED', reason: 'SESSION_REVOKED' });
    }
    const again = await server.call('POST', '/api/auth/logout', { headers: { 'svc-wallet-session': res.body.token, ...client() } });
    expect(again.body.code).toBe('WALLET_AUTH_REQUIRED');
    // Another session of another sign-in is untouched.
    expect((await session(cookieHeader(other))).status).toBe(200);
  });

  it('the developer header wins over the cookie when both are sent', async () => {
    const a = await signIn(newAccount(), true);
    const b = await signIn(newAccount(), true);
    const me = await session({ cookie: `svc_session=${a.body.token}`, 'svc-wallet-session': b.body.token });
    expect(me.body.walletAddress).toBe(b.body.walletAddress);
  });

  it('owner-gated reads: the owner passes, another wallet gets 403 FORBIDDEN, no session 401', async () => {
    const owner = newAccount();
    const ownerSession = await signIn(owner);
    const intruder = await signIn();
    const url = `/api/v1/test/owner/${owner.address}`;
    const ok = await server.call('GET', url, { headers: cookieHeader(ownerSession) });
    expect(ok.status).toBe(200);
    expect(ok.body.owner).toBe(owner.address.toLowerCase());
    const forbidden = await server.call('GET', url, { headers: cookieHeader(intruder) });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    expect((await server.call('GET', url)).body.code).toBe('WALLET_AUTH_REQUIRED');
  });
});

describe('OpenAPI', () => {
  it('declares the two wallet schemes and puts them, with 401 WALLET_AUTH_REQUIRED, on wallet-auth operations', async () => {
    const doc = (await server.call('GET', '/api/v1/openapi.json')).body;
    expect(doc.components.securitySchemes.cookieAuth).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'svc_session' });
    expect(doc.components.securitySchemes.developerAuthHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'Svc-Wallet-Session' });
    const get = doc.paths['/api/auth/session'].get;
    expect(get.security).toEqual([{ cookieAuth: [] }, { developerAuthHeader: [] }]);
    expect(get.responses['401'].description).toContain('WALLET_AUTH_REQUIRED');
    const verifyOp = doc.paths['/api/auth/verify'].post;
    expect(verifyOp.security).toEqual([]);
    expect(verifyOp.responses['401'].description).toContain('SIWE_INVALID');
    expect(verifyOp.parameters.map((p: { name: string }) => p.name)).not.toContain('Idempotency-Key');
    expect(doc.paths['/api/auth/logout'].post.security).toEqual([{ cookieAuth: [] }, { developerAuthHeader: [] }]);
  });
});

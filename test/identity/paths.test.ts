// The four registration paths end to end over HTTP: real EIP-191 signatures (viem), real mail
// through a real SMTP server (smtp-server), a real proof-of-work challenge, and a Turnstile-style
// siteverify server on 127.0.0.1. Time-bound rules run on a ManualClock at their boundaries.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { ALL_SCOPES } from '../../src/core/scopes.ts';
import { CLAIM_PENDING_SCOPES, EMAIL_SCOPES } from '../../src/core/entitlement.ts';
import { powToken } from '../../src/core/pow.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { capturedLog } from '../support/log-lines.ts';
import { startMailServer, tokenIn, type MailServer } from '../support/mail-server.ts';
import { confirmLink, humanCheckToken, keyless, newAccount, newClient, walletProof } from '../support/agents.ts';

const HOUR = 3_600_000;
const REGISTER = '/api/agent/v1/register';
const ALL_PATHS = 'anonymous,email,wallet,claim';

let mail: MailServer;
let clock: ManualClock;
let server: TestServer;
beforeAll(async () => {
  mail = await startMailServer();
  clock = new ManualClock();
  server = await startTestServer({
    clock,
    env: { REGISTRATION_PATHS: ALL_PATHS, TRUST_PROXY: 'true', SMTP_URL: mail.url, HUMAN_CHECK_POW_BITS: '6' },
  });
});
afterAll(async () => {
  await server?.close();
  await mail?.close();
});

const me = (key: string) => server.call('GET', '/api/agent/v1/me', { key });
const sorted = (xs: readonly string[]) => [...xs].sort();

describe('anonymous path (embedded proof-of-work human check)', () => {
  it('gives an active read-only key with markets:read that works until 24 h after issue, not after', async () => {
    const headers = newClient();
    const res = await keyless(server, REGISTER, { kind: 'anonymous', name: 'anon', humanCheckToken: await humanCheckToken(server, headers) }, { headers });
    expect(res.status).toBe(201);
    expect(res.body.apiKey).toMatchObject({ status: 'active', tier: 'read-only', scopes: ['markets:read'] });
    expect(res.body.agent).toMatchObject({ registrationPath: 'anonymous', walletAddress: null, email: null });
    const issuedAt = clock.now().getTime();
    expect(Date.parse(res.body.apiKey.expiresAt)).toBe(issuedAt + 24 * HOUR);

    const key = res.body.apiKey.key;
    clock.advance(24 * HOUR - 1000);
    expect((await me(key)).status).toBe(200);
    clock.advance(1000);
    const expired = await me(key);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('API_KEY_EXPIRED');
  });

  it('refuses a token without enough work, a malformed token and a reused challenge', async () => {
    const challenge = (await server.call('GET', '/api/agent/v1/human-check/challenge', { headers: newClient() })).body;
    expect(challenge).toMatchObject({ kind: 'pow', algorithm: 'SHA-256', bits: 6, tokenFormat: 'pow1:{salt}:{solution}' });
    // Find a solution that does NOT satisfy the work (most do not).
    const { powSatisfied, solvePow } = await import('../../src/core/pow.ts');
    let bad = 0;
    while (powSatisfied(challenge.salt, String(bad), 6)) bad++;
    const weak = await keyless(server, REGISTER, { kind: 'anonymous', name: 'a', humanCheckToken: powToken(challenge.salt, String(bad)) });
    expect(weak.status).toBe(403);
    expect(weak.body).toMatchObject({ code: 'HUMAN_CHECK_FAILED', reason: 'WORK_INSUFFICIENT' });

    const malformed = await keyless(server, REGISTER, { kind: 'anonymous', name: 'a', humanCheckToken: 'let-me-in' });
    expect(malformed.body).toMatchObject({ code: 'HUMAN_CHECK_FAILED', reason: 'TOKEN_MALFORMED' });

    const token = powToken(challenge.salt, solvePow(challenge.salt, 6));
    expect((await keyless(server, REGISTER, { kind: 'anonymous', name: 'a', humanCheckToken: token })).status).toBe(201);
    const reused = await keyless(server, REGISTER, { kind: 'anonymous', name: 'b', humanCheckToken: token });
    expect(reused.body).toMatchObject({ code: 'HUMAN_CHECK_FAILED', reason: 'NONCE_USED' });
  });

  it('enforces the hourly anonymous budget per client address: 10 accepted, the 11th answers 429 with Retry-After', async () => {
    const headers = newClient();
    for (let i = 0; i < 10; i++) {
      const res = await keyless(server, REGISTER, { kind: 'anonymous', name: `a${i}`, humanCheckToken: await humanCheckToken(server, headers) }, { headers });
      expect(res.status, `registration ${i + 1}`).toBe(201);
    }
    clock.advance(61_000); // past the per-minute keyless write budget: only the hourly one remains
    const eleventh = await keyless(server, REGISTER, { kind: 'anonymous', name: 'a10', humanCheckToken: await humanCheckToken(server, headers) }, { headers });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toMatchObject({ code: 'RATE_LIMITED', budget: 'anonymous' });
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(3000);
    expect(Number(eleventh.headers['retry-after'])).toBeLessThanOrEqual(3600);
  });
});

describe('email path (magic link over real SMTP)', () => {
  it('mails a link; the key is dormant until the link is opened, then active with the email scopes', async () => {
    const since = mail.mails.length;
    const res = await keyless(server, REGISTER, { kind: 'email', name: 'mailer', email: 'Agent.One@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.apiKey).toMatchObject({ status: 'dormant', tier: 'propose', expiresAt: null });
    expect(sorted(res.body.apiKey.scopes)).toEqual(sorted(EMAIL_SCOPES));
    expect(res.body.emailLink).toMatchObject({ purpose: 'verify-email', sentTo: 'Agent.One@example.com' });
    const key = res.body.apiKey.key;

    const dormant = await me(key);
    expect(dormant.status).toBe(403);
    expect(dormant.body.code).toBe('API_KEY_DORMANT');

    const received = await mail.waitFor('agent.one@example.com', since);
    expect(received.raw).toMatch(/Subject: Activate your agent API key/);
    const opened = await confirmLink(server, tokenIn(received));
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ outcome: 'email-verified', agentId: res.body.agent.id, firstUse: true, label: null });

    const active = await me(key);
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ emailVerified: true, email: 'Agent.One@example.com', tier: 'propose', walletAddress: null, fills: null });

    const again = await confirmLink(server, tokenIn(received));
    expect(again.body).toMatchObject({ outcome: 'email-verified', firstUse: false });
  });

  it('refuses a link opened 24 h after it was sent (410) and an unknown one (404)', async () => {
    const since = mail.mails.length;
    const res = await keyless(server, REGISTER, { kind: 'email', name: 'late', email: 'late@example.com' });
    const link = tokenIn(await mail.waitFor('late@example.com', since));
    clock.advance(24 * HOUR);
    const late = await confirmLink(server, link);
    expect(late.status).toBe(410);
    expect(late.body.code).toBe('EMAIL_LINK_EXPIRED');
    expect((await me(res.body.apiKey.key)).body.code).toBe('API_KEY_DORMANT');
    const unknown = await confirmLink(server, 'A'.repeat(43));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('EMAIL_LINK_INVALID');
    const malformed = await confirmLink(server, 'short');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('INVALID_PAYLOAD');
  });

  it('bounds the links sent to one address: 3 per hour, the 4th answers 429', async () => {
    for (let i = 0; i < 3; i++) expect((await keyless(server, REGISTER, { kind: 'email', name: `x${i}`, email: 'flood@example.com' })).status).toBe(201);
    const fourth = await keyless(server, REGISTER, { kind: 'email', name: 'x3', email: 'FLOOD@example.com' });
    expect(fourth.status).toBe(429);
    expect(fourth.body.budget).toBe('email-address');
  });
});

describe('resending links', () => {
  it('mails a fresh magic link once the first expired, without telling who is known', async () => {
    let since = mail.mails.length;
    const res = await keyless(server, REGISTER, { kind: 'email', name: 'resend', email: 'resend@example.com' });
    await mail.waitFor('resend@example.com', since);
    clock.advance(24 * HOUR);
    since = mail.mails.length;
    const resent = await keyless(server, '/api/agent/v1/email-links/resend', { email: 'resend@example.com' });
    expect(resent.status).toBe(200);
    const unknown = await keyless(server, '/api/agent/v1/email-links/resend', { email: 'nobody@example.com' });
    expect(unknown.body).toEqual(resent.body);
    const fresh = tokenIn(await mail.waitFor('resend@example.com', since));
    expect((await confirmLink(server, fresh)).body.outcome).toBe('email-verified');
    expect((await me(res.body.apiKey.key)).status).toBe(200);
  });
});

describe('agent names', () => {
  it('refuses control characters, line breaks and URL punctuation in a name', async () => {
    for (const name of ['line\nbreak', 'see https://evil.example', 'tab\there', '']) {
      const res = await keyless(server, REGISTER, { kind: 'email', name, email: 'names@example.com' });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.errors[0].path).toBe('body.name');
    }
    expect((await keyless(server, REGISTER, { kind: 'email', name: "Zoë's bot-2.0", email: 'names@example.com' })).status).toBe(201);
  });
});

describe('claimed-agent path', () => {
  it('reads and quotes at once; the owner claim link gives the trading scopes and the AI label', async () => {
    const account = newAccount();
    const since = mail.mails.length;
    const res = await keyless(server, REGISTER, { kind: 'claim', name: 'claimed-bot', ownerEmail: 'owner.a@example.com', ...(await walletProof(server, 'agent-register', account, { agentName: 'claimed-bot' })) });
    expect(res.status).toBe(201);
    expect(res.body.agent).toMatchObject({ registrationPath: 'claim', walletAddress: account.address.toLowerCase(), email: null });
    expect(res.body.apiKey).toMatchObject({ status: 'active', expiresAt: null });
    expect(sorted(res.body.apiKey.scopes)).toEqual(sorted(CLAIM_PENDING_SCOPES));
    expect(res.body.apiKey.scopes).not.toContain('trade:execute');
    expect(res.body.emailLink).toMatchObject({ purpose: 'claim', sentTo: 'owner.a@example.com' });
    const key = res.body.apiKey.key;
    expect((await me(key)).status).toBe(200);

    const received = await mail.waitFor('owner.a@example.com', since);
    expect(received.text).toContain('claimed-bot');
    const claimed = await confirmLink(server, tokenIn(received));
    expect(claimed.body).toMatchObject({ outcome: 'claimed', label: 'AI', agentId: res.body.agent.id });

    const after = await me(key);
    expect(after.body.tier).toBe('execute');
    expect(sorted(after.body.scopes)).toEqual(sorted(ALL_SCOPES));
  });

  it('lets one owner email account for 3 agents; the 4th is refused with 409 OWNER_AGENT_LIMIT', async () => {
    const owner = 'busy.owner@example.com';
    const links: string[] = [];
    for (let i = 0; i < 3; i++) {
      const since = mail.mails.length;
      const res = await keyless(server, REGISTER, { kind: 'claim', name: `c${i}`, ownerEmail: owner, ...(await walletProof(server, 'agent-register', newAccount(), { agentName: `c${i}` })) });
      expect(res.status, `agent ${i + 1}`).toBe(201);
      links.push(tokenIn(await mail.waitFor(owner, since)));
    }
    clock.advance(HOUR); // a fresh hour for the per-address mail budget
    const fourth = await keyless(server, REGISTER, { kind: 'claim', name: 'c3', ownerEmail: 'Busy.Owner@example.com', ...(await walletProof(server, 'agent-register', newAccount(), { agentName: 'c3' })) });
    expect(fourth.status).toBe(409);
    expect(fourth.body).toMatchObject({ code: 'OWNER_AGENT_LIMIT', limit: 3 });
    for (const link of links) expect((await confirmLink(server, link)).body.outcome).toBe('claimed');
  });

  it('keeps the claim link valid for 24 h: one second before works, at 24 h it is refused and the agent stays unclaimed', async () => {
    const owner = 'slow.owner@example.com';
    const register = async (name: string) => {
      const since = mail.mails.length;
      const res = await keyless(server, REGISTER, { kind: 'claim', name, ownerEmail: owner, ...(await walletProof(server, 'agent-register', newAccount(), { agentName: name })) });
      expect(res.status).toBe(201);
      return { res, link: tokenIn(await mail.waitFor(owner, since)) };
    };
    const early = await register('early');
    const late = await register('late');
    clock.advance(24 * HOUR - 1000);
    expect((await confirmLink(server, early.link)).body.outcome).toBe('claimed');
    clock.advance(1000);
    const refused = await confirmLink(server, late.link);
    expect(refused.status).toBe(410);
    expect((await me(late.res.body.apiKey.key)).body.tier).toBe('propose');
  });
});

describe('wallet path through the shared helpers', () => {
  it('signs the agent-register template by the server clock and gets the eleven scopes', async () => {
    const res = await keyless(server, REGISTER, { kind: 'wallet', name: 'w', ...(await walletProof(server, 'agent-register', newAccount(), { agentName: 'w' })) });
    expect(res.status).toBe(201);
    expect(res.body.apiKey.scopes).toHaveLength(11);
    expect(res.body.emailLink).toBeNull();
  });
});

describe('anonymous path with a Turnstile-compatible verifier', () => {
  let siteverify: Server;
  let turnstile: TestServer;
  const seen: URLSearchParams[] = [];
  beforeAll(async () => {
    siteverify = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push(form);
        const ok = form.get('secret') === 'turnstile-secret' && form.get('response') === 'good-token';
        const codes = form.get('response') === 'secret-refused' ? ['invalid-input-secret'] : ['invalid-input-response'];
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(ok ? { success: true } : { success: false, 'error-codes': codes }));
      });
    });
    await new Promise<void>((r) => siteverify.listen(0, '127.0.0.1', r));
    const port = (siteverify.address() as AddressInfo).port;
    turnstile = await startTestServer({
      env: {
        REGISTRATION_PATHS: 'anonymous',
        TRUST_PROXY: 'true',
        HUMAN_CHECK: 'turnstile',
        HUMAN_CHECK_SECRET: 'turnstile-secret',
        HUMAN_CHECK_SITE_KEY: 'site-key-123',
        HUMAN_CHECK_SITEVERIFY_URL: `http://127.0.0.1:${port}/siteverify`,
      },
    });
  });
  afterAll(async () => {
    await turnstile?.close();
    await new Promise((r) => siteverify?.close(r));
  });

  it('accepts a token the verifier confirms, forwarding the secret and the client address', async () => {
    const res = await keyless(turnstile, REGISTER, { kind: 'anonymous', name: 't', humanCheckToken: 'good-token' }, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(res.status).toBe(201);
    expect(seen.at(-1)?.get('remoteip')).toBe('203.0.113.7');
    const discovery = await turnstile.call('GET', '/api/agent/v1/mcp-discovery');
    expect(discovery.body.registration).toMatchObject({ turnstileSiteKey: 'site-key-123', humanCheck: { kind: 'turnstile' } });
    expect((await turnstile.call('GET', '/api/agent/v1/human-check/challenge')).body).toEqual({ kind: 'turnstile', siteKey: 'site-key-123' });
  });

  it('refuses a token the verifier rejects with 403 HUMAN_CHECK_FAILED, and answers 503 when the verifier is down', async () => {
    const rejected = await keyless(turnstile, REGISTER, { kind: 'anonymous', name: 't', humanCheckToken: 'bad-token' });
    expect(rejected.status).toBe(403);
    expect(rejected.body).toMatchObject({ code: 'HUMAN_CHECK_FAILED', reason: 'TOKEN_REJECTED', verifierCodes: ['invalid-input-response'] });
    // The verifier refusing the operator's secret is not the caller's fault.
    const misconfigured = await keyless(turnstile, REGISTER, { kind: 'anonymous', name: 't', humanCheckToken: 'secret-refused' });
    expect(misconfigured.status).toBe(503);
    await new Promise((r) => siteverify.close(r));
    const down = await keyless(turnstile, REGISTER, { kind: 'anonymous', name: 't', humanCheckToken: 'good-token' });
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('without SMTP (the embedded default)', () => {
  it('prints the mail with its link to the log, and keeps the sent mail in the outbox without the token', async () => {
    const { log, lines } = capturedLog();
    const plain = await startTestServer({ log, env: { REGISTRATION_PATHS: 'email', TRUST_PROXY: 'true' } });
    try {
      const res = await keyless(plain, REGISTER, { kind: 'email', name: 'local', email: 'local@example.com' });
      expect(res.status).toBe(201);
      await plain.runtime.services.mailer.flush();
      const logged = lines.map((l) => JSON.parse(l) as { to?: string; msg: string }).find((l) => l.to === 'local@example.com');
      expect(logged?.msg).toContain('/confirm-email#token=');

      const rows = await plain.runtime.database.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'local@example.com').execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ transport: 'log', attempts: 1 });
      expect(rows[0]!.sent_at).not.toBeNull();
      const token = tokenIn(logged!.msg);
      expect(rows[0]!.body_text).not.toContain(token);
      expect(rows[0]!.body_text).toContain('token=[redacted]');
      // No request line of the flow carries the token: it lives in the URL fragment and a POST body.
      expect(lines.filter((l) => l.includes(token))).toHaveLength(1);

      const opened = await confirmLink(plain, token);
      expect(opened.body.outcome).toBe('email-verified');
      expect(lines.filter((l) => l.includes(token))).toHaveLength(1);
    } finally {
      await plain.close();
    }
  });

  it('serves the confirm page: it does nothing by itself and posts the fragment token on a click', async () => {
    const page = await server.call('GET', '/confirm-email', { unchecked: true });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'sha256-/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain("location.hash");
    expect(page.text).toContain("/api/agent/v1/email-links/confirm");
  });
});

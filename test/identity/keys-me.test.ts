// Keys after registration (rotation, wallet-proof recovery), the post-registration upgrades
// (bind-wallet, bind-email), GET /me field by field, and the published discovery documents —
// every template GET /auth-discovery publishes is signed as a client would and accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Kysely } from 'kysely';
import { ManualClock } from '../../src/core/clock.ts';
import { ALL_SCOPES } from '../../src/core/scopes.ts';
import { EMAIL_SCOPES } from '../../src/core/entitlement.ts';
import type { DB } from '../../src/db/schema.ts';
import { fixtureCatalog } from '../support/fixture-capabilities.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { startMailServer, tokenIn, type MailServer } from '../support/mail-server.ts';
import { confirmLink, humanCheckToken, idemKey, keyless, newAccount, newClient, registerWallet, walletProof } from '../support/agents.ts';

const HOUR = 3_600_000;
const V1 = '/api/agent/v1';

let mail: MailServer;
const clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
let server: TestServer;
let closed: TestServer;
beforeAll(async () => {
  mail = await startMailServer();
  const dbRef: { db?: Kysely<DB> } = {};
  [server, closed] = await Promise.all([
    startTestServer({
      clock,
      catalog: fixtureCatalog(dbRef),
      env: { REGISTRATION_PATHS: 'anonymous,email,wallet,claim', TRUST_PROXY: 'true', SMTP_URL: mail.url, HUMAN_CHECK_POW_BITS: '4' },
    }),
    startTestServer(),
  ]);
  dbRef.db = server.runtime.database.db;
});
afterAll(async () => {
  await server?.close();
  await closed?.close();
  await mail?.close();
});

const me = (key: string) => server.call('GET', `${V1}/me`, { key });
const post = (url: string, key: string, body?: unknown, idempotencyKey = idemKey()) => server.call('POST', url, { key, body, idempotencyKey });

async function registerAnonymous() {
  const headers = newClient();
  const res = await keyless(server, `${V1}/register`, { kind: 'anonymous', name: 'anon', humanCheckToken: await humanCheckToken(server, headers) }, { headers });
  expect(res.status).toBe(201);
  return { key: res.body.apiKey.key as string, keyId: res.body.apiKey.id as string, agentId: res.body.agent.id as string };
}

describe('key rotation (links.rotateKey)', () => {
  it('issues a working key with the same grants and revokes the old one at once', async () => {
    const agent = await registerWallet(server);
    const rotateUrl = (await me(agent.key)).body.links.rotateKey;
    expect(rotateUrl).toBe(`${V1}/keys/${agent.keyId}/rotate`);
    const idem = idemKey('rotate');
    const rotated = await post(rotateUrl, agent.key, undefined, idem);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ revokedKeyId: agent.keyId, apiKey: { status: 'active', tier: 'execute', expiresAt: null } });
    expect(rotated.body.apiKey.scopes).toHaveLength(11);
    const old = await me(agent.key);
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('API_KEY_REVOKED');
    expect((await me(rotated.body.apiKey.key)).body.id).toBe(agent.agentId);
    // The old key is gone, so it cannot rotate again (nor replay the rotation).
    expect((await post(rotateUrl, agent.key, undefined, idem)).body.code).toBe('API_KEY_REVOKED');
  });

  it('keeps an anonymous key\'s expiry: rotating never extends the 24 hours', async () => {
    const anon = await registerAnonymous();
    const issued = (await server.runtime.services.keys.get(anon.keyId))!.expiresAt!;
    clock.advance(HOUR);
    const rotated = await post(`${V1}/keys/${anon.keyId}/rotate`, anon.key);
    expect(rotated.status).toBe(201);
    expect(Date.parse(rotated.body.apiKey.expiresAt)).toBe(issued.getTime());
  });

  it('answers 404 for another agent\'s key and for an unknown id, 400 for a malformed id', async () => {
    const a = await registerWallet(server);
    const b = await registerWallet(server);
    expect((await post(`${V1}/keys/${b.keyId}/rotate`, a.key)).status).toBe(404);
    expect((await post(`${V1}/keys/00000000-0000-4000-8000-000000000000/rotate`, a.key)).status).toBe(404);
    const bad = await post(`${V1}/keys/not-a-uuid/rotate`, a.key);
    expect(bad.status).toBe(400);
    expect((await me(b.key)).status).toBe(200);
  });
});

describe('key recovery (POST /keys/recover)', () => {
  it('a proof over the key-recovery template revokes every key of the agent and issues one new key', async () => {
    const agent = await registerWallet(server);
    const res = await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-key-recovery', agent.account));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ agentId: agent.agentId, revokedKeyIds: [agent.keyId], apiKey: { tier: 'execute', status: 'active' } });
    expect((await me(agent.key)).body.code).toBe('API_KEY_REVOKED');
    expect((await me(res.body.apiKey.key)).body.walletAddress).toBe(agent.account.address.toLowerCase());
  });

  it('refuses a wallet bound to no agent (recovery needs a bound wallet) and a proof over another template', async () => {
    const stranger = newAccount();
    const none = await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-key-recovery', stranger));
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('NO_AGENT_FOR_WALLET');
    const agent = await registerWallet(server);
    const wrong = await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-register', agent.account, { agentName: 'anything' }));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'SIGNATURE_MISMATCH' });
  });

  it('takes proofNonce of 1..256 characters: 256 reaches the nonce check, 257 and empty are invalid input', async () => {
    const agent = await registerWallet(server);
    const proof = await walletProof(server, 'agent-key-recovery', agent.account);
    const at256 = await keyless(server, `${V1}/keys/recover`, { ...proof, proofNonce: 'n'.repeat(256) });
    expect(at256.status).toBe(401); // valid input; the signature covers another nonce
    expect(at256.body.code).toBe('WALLET_PROOF_INVALID');
    for (const proofNonce of ['n'.repeat(257), '']) {
      const res = await keyless(server, `${V1}/keys/recover`, { ...proof, proofNonce });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_PAYLOAD');
      expect(res.body.errors[0].path).toBe('body.proofNonce');
    }
    for (const bad of [{ walletSignature: '' }, { signatureTimestamp: 0 }, { walletAddress: '0x1234' }]) {
      expect((await keyless(server, `${V1}/keys/recover`, { ...proof, ...bad })).status).toBe(400);
    }
    // The untouched proof still works: refused attempts did not burn its nonce.
    expect((await keyless(server, `${V1}/keys/recover`, proof)).status).toBe(201);
  });

  it('junk recovery attempts naming a wallet do not spend that wallet\'s recovery budget', async () => {
    const agent = await registerWallet(server);
    const forged = await walletProof(server, 'agent-key-recovery', newAccount());
    for (let i = 0; i < 12; i++) {
      expect((await keyless(server, `${V1}/keys/recover`, { ...forged, walletAddress: agent.account.address })).status).toBe(401);
    }
    expect((await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-key-recovery', agent.account))).status).toBe(201);
  });

  it('limits recoveries to 10 per wallet per hour', async () => {
    const agent = await registerWallet(server);
    for (let i = 0; i < 10; i++) {
      expect((await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-key-recovery', agent.account))).status, `recovery ${i + 1}`).toBe(201);
    }
    const eleventh = await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-key-recovery', agent.account));
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.budget).toBe('key-recovery');
  });
});

describe('bind-wallet and bind-email', () => {
  it('binding a wallet to an anonymous agent gives the execute tier and clears the 24 h expiry', async () => {
    const anon = await registerAnonymous();
    const account = newAccount();
    const bound = await post(`${V1}/agents/me/bind-wallet`, anon.key, await walletProof(server, 'agent-bind-wallet', account, { agentId: anon.agentId }));
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ walletAddress: account.address.toLowerCase(), tier: 'execute' });
    expect(bound.body.scopes).toHaveLength(11);
    clock.advance(25 * HOUR);
    const after = await me(anon.key);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ tier: 'execute', chainBindings: [{ chainId: 8453 }] });
    expect(after.body.fills).not.toBeNull();
    // Now the key is recoverable with that wallet.
    expect((await keyless(server, `${V1}/keys/recover`, await walletProof(server, 'agent-key-recovery', account))).status).toBe(201);
  });

  it('a bind proof signed for one agent does not bind the wallet to another', async () => {
    const victim = await registerAnonymous();
    const thief = await registerAnonymous();
    const account = newAccount();
    const proof = await walletProof(server, 'agent-bind-wallet', account, { agentId: victim.agentId });
    const stolen = await post(`${V1}/agents/me/bind-wallet`, thief.key, proof);
    expect(stolen.status).toBe(401);
    expect(stolen.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'SIGNATURE_MISMATCH' });
    expect((await post(`${V1}/agents/me/bind-wallet`, victim.key, proof)).status).toBe(200);
  });

  it('refuses a wallet already bound to another agent, and a second wallet for one agent', async () => {
    const owner = await registerWallet(server);
    const anon = await registerAnonymous();
    const taken = await post(`${V1}/agents/me/bind-wallet`, anon.key, await walletProof(server, 'agent-bind-wallet', owner.account, { agentId: anon.agentId }));
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('WALLET_ALREADY_BOUND');
    const second = await post(`${V1}/agents/me/bind-wallet`, owner.key, await walletProof(server, 'agent-bind-wallet', newAccount(), { agentId: owner.agentId }));
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('AGENT_WALLET_ALREADY_SET');
  });

  it('bind-email changes nothing until the mailed link is opened; then the email scopes, no expiry', async () => {
    const anon = await registerAnonymous();
    const since = mail.mails.length;
    const sent = await post(`${V1}/agents/me/bind-email`, anon.key, { email: 'bound@example.com' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'pending', sentTo: 'bound@example.com' });
    expect((await me(anon.key)).body).toMatchObject({ email: null, emailVerified: false, tier: 'read-only' });

    const opened = await confirmLink(server, tokenIn(await mail.waitFor('bound@example.com', since)));
    expect(opened.body).toMatchObject({ outcome: 'email-bound', agentId: anon.agentId });
    clock.advance(25 * HOUR);
    const after = await me(anon.key);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ email: 'bound@example.com', emailVerified: true, tier: 'propose' });
    expect([...after.body.scopes].sort()).toEqual([...EMAIL_SCOPES].sort());

    const again = await post(`${V1}/agents/me/bind-email`, anon.key, { email: 'other@example.com' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('EMAIL_ALREADY_VERIFIED');
  });

  it('a bind link opened after the anonymous key expired binds the email but does not revive the key', async () => {
    const anon = await registerAnonymous();
    clock.advance(23 * HOUR);
    const since = mail.mails.length;
    expect((await post(`${V1}/agents/me/bind-email`, anon.key, { email: 'too.late@example.com' })).status).toBe(200);
    const token = tokenIn(await mail.waitFor('too.late@example.com', since));
    clock.advance(7 * HOUR);
    expect((await me(anon.key)).body.code).toBe('API_KEY_EXPIRED');
    expect((await confirmLink(server, token)).body.outcome).toBe('email-bound');
    expect((await me(anon.key)).body.code).toBe('API_KEY_EXPIRED');
  });

  it('of two bind links, the first opened binds; the second is refused and changes nothing', async () => {
    const anon = await registerAnonymous();
    let since = mail.mails.length;
    await post(`${V1}/agents/me/bind-email`, anon.key, { email: 'first@example.com' });
    const first = tokenIn(await mail.waitFor('first@example.com', since));
    since = mail.mails.length;
    await post(`${V1}/agents/me/bind-email`, anon.key, { email: 'second@example.com' });
    const second = tokenIn(await mail.waitFor('second@example.com', since));
    expect((await confirmLink(server, first)).body.outcome).toBe('email-bound');
    const refused = await confirmLink(server, second);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('EMAIL_ALREADY_VERIFIED');
    expect((await me(anon.key)).body.email).toBe('first@example.com');
  });

  it('an anonymous agent that binds nothing loses its key at 24 h', async () => {
    const anon = await registerAnonymous();
    clock.advance(24 * HOUR);
    expect((await me(anon.key)).body.code).toBe('API_KEY_EXPIRED');
  });
});

describe('GET /me', () => {
  const FIELDS = [
    'id', 'kind', 'name', 'walletAddress', 'email', 'emailVerified', 'apiKeyId', 'tier', 'scopes', 'capabilities', 'humanIdVerified',
    'chainBindings', 'rateLimits', 'dataPlane', 'reputation', 'fills', 'environment', 'version', 'links',
  ].sort();

  it('answers the spec\'s fields and the calling key\'s id for a wallet agent, with the fill allowance arithmetic', async () => {
    const agent = await registerWallet(server, undefined, 'me-bot');
    const res = await me(agent.key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({
      id: agent.agentId,
      kind: 'agent',
      name: 'me-bot',
      walletAddress: agent.account.address.toLowerCase(),
      email: null,
      emailVerified: false,
      apiKeyId: agent.keyId,
      tier: 'execute',
      humanIdVerified: false,
      chainBindings: [{ chainId: 8453 }],
      // A wallet agent without activity yet: its own subject, tier new, the default gates, no rank (docs/reputation.md).
      reputation: { subjectKind: 'wallet', walletAddress: agent.account.address.toLowerCase(), tier: 'new', rank: null, tierSince: null, gates: { maxLiveMarkets: 20, freeFillsPerMonth: 500, mayVote: true } },
      environment: 'test',
      version: '2026-11-01',
      rateLimits: { windowSeconds: 60, readPerMinute: 600, writePerMinute: 120 },
    });
    expect([...res.body.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    const fills = res.body.fills;
    expect(fills).toMatchObject({ enabled: true, freePerMonth: 500, freeUsed: 0, freeRemaining: 500, paidRemaining: 0, remaining: 500 });
    const now = clock.now();
    expect(fills.resetsOn).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    expect(fills.packs).toEqual([{ fills: 1000, usdCents: 500 }, { fills: 5000, usdCents: 2000 }]);
    expect(Object.keys(res.body.links).sort()).toEqual(
      ['docs', 'openapi', 'rotateKey', 'authDiscovery', 'webhooksDiscovery', 'mcpDiscovery', 'eventsDiscovery', 'marketDataDiscovery', 'faucet', 'ledgerProof'].sort(),
    );
  });

  it('every link resolves: each discovery document and doc answers 200, rotateKey is a POST route for this key', async () => {
    const wallet = await registerWallet(server);
    const { links } = (await me(wallet.key)).body as { links: Record<string, string> };
    expect(links.faucet).toBe(`${V1}/faucet`);
    expect(links.ledgerProof).toBe(`${V1}/ledger/proof/${wallet.account.address.toLowerCase()}`);
    for (const [name, url] of Object.entries(links)) {
      if (name === 'rotateKey') continue;
      const res = await server.call('GET', url, { key: wallet.key });
      expect(res.status, `${name} → ${url}: ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.text.length, name).toBeGreaterThan(100);
    }
    expect(links.rotateKey).toBe(`${V1}/keys/${wallet.keyId}/rotate`);
    const rotated = await server.call('POST', links.rotateKey!, { key: wallet.key, idempotencyKey: idemKey('links') });
    expect(rotated.status, rotated.text).toBe(201);
  });

  it('lists the capabilities the key\'s tier reaches: an execute-tier one only for execute keys', async () => {
    const wallet = await registerWallet(server);
    const anon = await registerAnonymous();
    const names = async (key: string) => ((await me(key)).body.capabilities as { name: string; requiredTier: string }[]).map((c) => c.name);
    expect(await names(wallet.key)).toContain('POST /test/exec');
    const anonNames = await names(anon.key);
    expect(anonNames).not.toContain('POST /test/exec');
    expect(anonNames).not.toContain('POST /test/notes'); // propose tier
    expect(anonNames).toContain('GET /me');
    const anonCaps = (await me(anon.key)).body.capabilities as { requiredTier: string; surface: string }[];
    expect(anonCaps.every((c) => c.requiredTier === 'read-only' && c.surface === 'agent')).toBe(true);
  });

  it('reports fills null and no chain bindings without a wallet', async () => {
    const anon = await registerAnonymous();
    expect((await me(anon.key)).body).toMatchObject({ fills: null, chainBindings: [], walletAddress: null, tier: 'read-only', scopes: ['markets:read'] });
  });

  it('needs a key (401) and an agent behind it (403 for an operator key)', async () => {
    expect((await server.call('GET', `${V1}/me`)).status).toBe(401);
    const operatorKey = await server.key('execute');
    const res = await me(operatorKey);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

describe('GET /auth-discovery: every published template is the one the server verifies', () => {
  let doc: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON document under test
  beforeAll(async () => {
    doc = (await server.call('GET', `${V1}/auth-discovery`)).body;
  });

  // Filled by hand from the published text, as an agent would: not with the server's own fillTemplate.
  const fill = (template: string, account: PrivateKeyAccount, nonce: string, timestamp: number, subject: { agentName?: string; agentId?: string }) =>
    template
      .replaceAll('{walletAddress}', account.address.toLowerCase())
      .replaceAll('{nonce}', nonce)
      .replaceAll('{chainId}', String(server.config.chain.id))
      .replaceAll('{timestamp}', String(timestamp))
      .replaceAll('{agentId}', subject.agentId ?? '{agentId}')
      .replaceAll('{agentName}', subject.agentName ?? '{agentName}');

  async function signPublished(kind: string, account: PrivateKeyAccount, subject: { agentName?: string; agentId?: string } = {}) {
    const entry = doc.walletProof.templates.find((t: { kind: string }) => t.kind === kind);
    const placeholders = (entry.template as string).match(/\{[a-zA-Z]+\}/g) ?? [];
    expect(placeholders.every((p) => ['{walletAddress}', '{nonce}', '{chainId}', '{timestamp}', '{agentName}', '{agentId}'].includes(p))).toBe(true);
    const { nonce } = (await keyless(server, '/api/auth/nonce')).body;
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const signature = await account.signMessage({ message: fill(entry.template, account, nonce, timestamp, subject) });
    return { walletAddress: account.address, walletSignature: signature, proofNonce: nonce, signatureTimestamp: timestamp };
  }

  it('publishes the full shape', () => {
    expect(Object.keys(doc).sort()).toEqual(
      ['nonceEndpoint', 'verifyEndpoint', 'messageTemplates', 'walletProof', 'signaturePolicy', 'rateLimit', 'agentApiRateLimits', 'registrationRateLimits', 'tradeDefaults', 'notes'].sort(),
    );
    expect(doc.walletProof.templates.map((t: { kind: string }) => t.kind)).toEqual(['agent-register', 'agent-bind-wallet', 'agent-key-recovery']);
    expect(doc.registrationRateLimits.paths.map((p: { path: string }) => p.path)).toEqual(['anonymous', 'email', 'wallet', 'key-recovery']);
    expect(doc.signaturePolicy.lifetime.proofWindowSeconds).toBe(300);
    expect(doc.walletProof.elevationTemplate).toBe('svc-mcp-auth:{agentId}:{apiKeyId}:{tool}:{scope}:{chainId}:{walletAddress}:{resourceId}:{payloadHash}:{nonce}:{timestamp}');
    expect(doc.tradeDefaults.slippageBpsDefault).toBeLessThanOrEqual(doc.tradeDefaults.slippageBpsMax);
    expect(doc.messageTemplates[0]).toMatchObject({ kind: 'siwe' });
    expect(doc.messageTemplates[0].template).toContain('{nonce}');
  });

  it('agent-register: the filled template registers a wallet agent', async () => {
    const res = await keyless(server, `${V1}/register`, { kind: 'wallet', name: 'published', ...(await signPublished('agent-register', newAccount(), { agentName: 'published' })) });
    expect(res.status).toBe(201);
  });

  it('agent-bind-wallet: the filled template binds a wallet', async () => {
    const anon = await registerAnonymous();
    const res = await post(`${V1}/agents/me/bind-wallet`, anon.key, await signPublished('agent-bind-wallet', newAccount(), { agentId: anon.agentId }));
    expect(res.status).toBe(200);
  });

  it('agent-key-recovery: the filled template recovers a key', async () => {
    const agent = await registerWallet(server);
    const res = await keyless(server, `${V1}/keys/recover`, await signPublished('agent-key-recovery', agent.account));
    expect(res.status).toBe(201);
  });

  it('siwe: the filled message template opens a wallet session', async () => {
    const account = newAccount();
    const { nonce } = (await keyless(server, '/api/auth/nonce')).body;
    const message = (doc.messageTemplates[0].template as string)
      .replaceAll('{address}', account.address)
      .replaceAll('{nonce}', nonce)
      .replaceAll('{issuedAt}', clock.now().toISOString());
    expect(message).not.toMatch(/\{[a-zA-Z]+\}/);
    const res = await server.call('POST', '/api/auth/verify', { body: { message, signature: await account.signMessage({ message }) }, headers: newClient() });
    expect(res.status).toBe(200);
    expect(res.body.walletAddress).toBe(account.address.toLowerCase());
  });
});

describe('GET /mcp-discovery: registration', () => {
  it('reports every path closed by default, and open where the operator opened it', async () => {
    const closedDoc = (await closed.call('GET', `${V1}/mcp-discovery`)).body.registration;
    expect(closedDoc.paths.map((p: { kind: string; status: string }) => [p.kind, p.status])).toEqual([
      ['anonymous', 'closed'],
      ['email', 'closed'],
      ['wallet', 'closed'],
    ]);
    expect(closedDoc.claim.status).toBe('closed');
    expect(closedDoc.turnstileSiteKey).toBeNull();

    const open = (await server.call('GET', `${V1}/mcp-discovery`)).body.registration;
    expect(open.paths.every((p: { status: string }) => p.status === 'open')).toBe(true);
    expect(open.claim).toMatchObject({ status: 'open', claimLinkTtlHours: 24, maxAgentsPerOwner: 3 });
    const anonymous = open.paths.find((p: { kind: string }) => p.kind === 'anonymous');
    expect(anonymous).toMatchObject({ requires: ['humanCheckToken'], grantsScopes: ['markets:read'], ttlHours: 24 });
    const wallet = open.paths.find((p: { kind: string }) => p.kind === 'wallet');
    expect(wallet).toMatchObject({ requires: ['walletProof'], ttlHours: null });
    expect(wallet.grantsScopes).toHaveLength(11);
    expect(open.upgradeUrls).toEqual({ bindEmail: `${V1}/agents/me/bind-email`, bindWallet: `${V1}/agents/me/bind-wallet`, recoverKey: `${V1}/keys/recover` });
  });

  it('lists bind-email and bind-wallet among the REST-only capabilities', async () => {
    const policy = (await server.call('GET', `${V1}/mcp-discovery`)).body.surfacePolicy;
    const names = policy.intentionalRestOnly.map((r: { capability: string }) => r.capability);
    expect(names).toEqual(expect.arrayContaining(['POST /agents/me/bind-email', 'POST /agents/me/bind-wallet']));
  });
});

// POST /register over HTTP with real EIP-191 signatures: paths are closed by default; the wallet
// path gives an active execute key with the eleven scopes; the key is never stored or replayed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { walletProofText } from '../../src/core/auth-templates.ts';
import { ALL_SCOPES } from '../../src/core/scopes.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { walletProof } from '../support/agents.ts';

let closed: TestServer;
let open: TestServer;
beforeAll(async () => {
  [closed, open] = await Promise.all([startTestServer(), startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } })]);
});
// Keyless writes are limited per client address (20 / 60 s): each test is its own client.
let client = 0;
beforeEach(() => {
  client++;
});
const post = (server: TestServer, url: string, o: { idempotencyKey?: string; body?: unknown } = {}) =>
  server.call('POST', url, { ...o, headers: { 'x-forwarded-for': `198.51.100.${client}` } });

afterAll(async () => {
  await closed?.close();
  await open?.close();
});

async function walletBody(server: TestServer, account: PrivateKeyAccount, name = 'trader-bot') {
  return { kind: 'wallet', name, ...(await walletProof(server, 'agent-register', account, { agentName: name })) };
}

describe('POST /register', () => {
  it('is closed by default on every path: 403 FEATURE_DISABLED, reason AGENT_REGISTRATION_CLOSED', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const bodies = [
      await walletBody(closed, account),
      { kind: 'email', name: 'a', email: 'a@example.com' },
      { kind: 'anonymous', name: 'a', humanCheckToken: 't' },
      { ...(await walletBody(closed, account)), kind: 'claim', ownerEmail: 'owner@example.com' },
    ];
    for (const [i, body] of bodies.entries()) {
      const res = await post(closed, '/api/agent/v1/register', { idempotencyKey: `closed-${i}`, body });
      expect(res.status, body.kind).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_DISABLED', reason: 'AGENT_REGISTRATION_CLOSED' });
    }
  });

  it('registers a wallet agent with an active execute key holding the eleven scopes, no expiry', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const res = await post(open, '/api/agent/v1/register', { idempotencyKey: 'reg-1', body: await walletBody(open, account) });
    expect(res.status).toBe(201);
    expect(res.body.agent).toMatchObject({ kind: 'agent', name: 'trader-bot', walletAddress: account.address.toLowerCase(), registrationPath: 'wallet' });
    expect(res.body.apiKey).toMatchObject({ status: 'active', tier: 'execute', expiresAt: null });
    expect([...res.body.apiKey.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    expect(res.body.apiKey.scopes).toHaveLength(11);
    const key = res.body.apiKey.key as string;
    expect((await open.call('GET', '/api/agent/v1/discover/chains', { key })).status).toBe(200);

    const replay = await post(open, '/api/agent/v1/register', { idempotencyKey: 'reg-1', body: await walletBody(open, account) });
    expect(replay.body.code).toBe('IDEMPOTENCY_KEY_REUSED'); // a fresh proof is a different request
  });

  it('replays the registration without the secret, and stores the key nowhere in clear', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const body = await walletBody(open, account);
    const first = await post(open, '/api/agent/v1/register', { idempotencyKey: 'reg-2', body });
    const replay = await post(open, '/api/agent/v1/register', { idempotencyKey: 'reg-2', body });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.agent).toEqual(first.body.agent);
    expect(replay.body.apiKey.key).toBeNull();
    expect(replay.body.apiKey.id).toBe(first.body.apiKey.id);
    const db = open.runtime.database.db;
    const stored = JSON.stringify([await db.selectFrom('idempotency_records').selectAll().execute(), await db.selectFrom('api_keys').selectAll().execute()]);
    expect(stored).not.toContain(first.body.apiKey.key);
  });

  it('refuses a second agent for the same wallet with 409 WALLET_ALREADY_BOUND', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await post(open, '/api/agent/v1/register', { idempotencyKey: 'w-1', body: await walletBody(open, account) })).status).toBe(201);
    const again = await post(open, '/api/agent/v1/register', { idempotencyKey: 'w-2', body: await walletBody(open, account, 'other') });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('WALLET_ALREADY_BOUND');
  });

  it('refuses a signature by another wallet, a reused nonce and a stale timestamp', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const intruder = privateKeyToAccount(generatePrivateKey());
    const forged = { ...(await walletBody(open, intruder)), walletAddress: account.address };
    const r1 = await post(open, '/api/agent/v1/register', { idempotencyKey: 'f-1', body: forged });
    expect(r1.status).toBe(401);
    expect(r1.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'SIGNATURE_MISMATCH' });

    const good = await walletBody(open, account);
    expect((await post(open, '/api/agent/v1/register', { idempotencyKey: 'f-2', body: good })).status).toBe(201);
    const other = privateKeyToAccount(generatePrivateKey());
    const reuse = { ...(await walletBody(open, other)), proofNonce: good.proofNonce };
    reuse.walletSignature = await other.signMessage({
      message: walletProofText('agent-register', { walletAddress: other.address, nonce: good.proofNonce, chainId: 8453, timestamp: reuse.signatureTimestamp, agentName: reuse.name }),
    });
    const r2 = await post(open, '/api/agent/v1/register', { idempotencyKey: 'f-3', body: reuse });
    expect(r2.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'NONCE_USED' });

    const stale = await walletBody(open, other);
    stale.signatureTimestamp -= 301;
    stale.walletSignature = await other.signMessage({
      message: walletProofText('agent-register', { walletAddress: other.address, nonce: stale.proofNonce, chainId: 8453, timestamp: stale.signatureTimestamp, agentName: stale.name }),
    });
    const r3 = await post(open, '/api/agent/v1/register', { idempotencyKey: 'f-4', body: stale });
    expect(r3.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'TIMESTAMP_OUT_OF_WINDOW' });
  });

  it('a proof signed for one name does not register another: a leaked proof is useless to anyone else', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const signed = await walletBody(open, account, 'alice-bot');
    const stolen = await post(open, '/api/agent/v1/register', { idempotencyKey: 'leak-1', body: { ...signed, name: 'mallory-bot' } });
    expect(stolen.status).toBe(401);
    expect(stolen.body).toMatchObject({ code: 'WALLET_PROOF_INVALID', reason: 'SIGNATURE_MISMATCH' });
    // The proof was not spent by the refusal: its owner still registers the name it signed.
    const own = await post(open, '/api/agent/v1/register', { idempotencyKey: 'leak-2', body: signed });
    expect(own.status, own.text).toBe(201);
    expect(own.body.agent.name).toBe('alice-bot');
  });

  it('validates the body: name 1..64, proofNonce 1..256, no other fields', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const at64 = await walletBody(open, account, 'n'.repeat(64));
    expect((await post(open, '/api/agent/v1/register', { idempotencyKey: 'v-1', body: at64 })).status).toBe(201);
    const at65 = await post(open, '/api/agent/v1/register', { idempotencyKey: 'v-2', body: { ...at64, name: 'n'.repeat(65) } });
    expect(at65.body.code).toBe('INVALID_PAYLOAD');
    const longNonce = await post(open, '/api/agent/v1/register', { idempotencyKey: 'v-3', body: { ...at64, proofNonce: 'x'.repeat(257) } });
    expect(longNonce.body.errors[0].path).toBe('body.proofNonce');
    const extra = await post(open, '/api/agent/v1/register', { idempotencyKey: 'v-4', body: { ...at64, admin: true } });
    expect(extra.body.errors[0].path).toBe('body.admin');
    const noKind = await post(open, '/api/agent/v1/register', { idempotencyKey: 'v-5', body: { name: 'x' } });
    expect(noKind.body.code).toBe('INVALID_PAYLOAD');
  });
});

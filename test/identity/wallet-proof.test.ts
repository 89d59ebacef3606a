// Wallet-proof elevation with real EIP-191 signatures: a proof is bound to agent, key, tool,
// scope, chain, resource and payload, is single-use, expires after 300 s and needs the wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../src/core/clock.ts';
import { isProblemError } from '../../src/core/errors.ts';
import { walletProofMessage, type WalletProofFields } from '../../src/core/wallet-proof.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';
import { createNonceService, type NonceService } from '../../src/services/identity/nonces.ts';
import { createWalletProofVerifier, type ProofContext, type WalletProofVerifier } from '../../src/services/identity/wallet-proof.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';

const clock = new ManualClock(new Date('2026-11-21T12:00:00Z'));
let database: Database;
let url: string | undefined;
let nonces: NonceService;
let verifier: WalletProofVerifier;
const wallet = privateKeyToAccount(generatePrivateKey());
const other = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  url = onPostgres ? await freshPostgresUrl() : undefined;
  database = url ? await openDatabase({ databaseUrl: url }) : await migratedPGlite();
  await migrateToLatest(database.db);
  nonces = createNonceService({ db: database.db, clock });
  verifier = createWalletProofVerifier({ nonces, clock, chainId: 8453 });
});
afterAll(async () => {
  await database?.close();
  if (url) await dropPostgres(url);
});

const context: ProofContext = {
  agentId: '0b9f7a4e-52a4-4f6e-9a43-7c1e2f0c9d11',
  apiKeyId: '5d1c8e2a-0f3b-4c7d-8e9f-a1b2c3d4e5f6',
  tool: 'svc_claims_batch',
  scope: 'fees:claim',
  chainId: 8453,
  resourceId: '0x1111111111111111111111111111111111111111',
  payload: { markets: [{ chainId: 8453, marketAddress: '0x1111111111111111111111111111111111111111' }] },
};

async function sign(ctx: ProofContext, signer = wallet, at = clock.now()) {
  const { nonce } = await nonces.issue('auth');
  const timestamp = Math.floor(at.getTime() / 1000);
  const fields: WalletProofFields = { ...ctx, walletAddress: wallet.address, nonce, timestamp };
  const walletSignature = await signer.signMessage({ message: walletProofMessage(fields) });
  return { walletAddress: wallet.address, walletSignature, signatureTimestamp: timestamp, proofNonce: nonce };
}

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    if (isProblemError(err) && err.code === 'WALLET_PROOF_INVALID') return String(err.extensions?.reason);
    throw err;
  }
}

describe('wallet-proof elevation', () => {
  it('builds the exact spec template, collapsing absent optional fields to -', () => {
    const message = walletProofMessage({ ...context, scope: null, resourceId: undefined, chainId: null, walletAddress: '0xABCDEF0000000000000000000000000000000001', payload: null, nonce: 'n1', timestamp: 1700000000 });
    expect(message).toBe(
      'svc-mcp-auth:0b9f7a4e-52a4-4f6e-9a43-7c1e2f0c9d11:5d1c8e2a-0f3b-4c7d-8e9f-a1b2c3d4e5f6:svc_claims_batch:-:-:0xabcdef0000000000000000000000000000000001:-:0x44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a:n1:1700000000',
    );
  });

  it('accepts a fresh proof and returns the lowercased wallet', async () => {
    expect(await verifier.verify(context, await sign(context))).toBe(wallet.address.toLowerCase());
  });

  it('does not depend on the key order of the payload', async () => {
    const proof = await sign(context);
    const reordered = { ...context, payload: { markets: [{ marketAddress: context.resourceId, chainId: 8453 }] } };
    expect(await verifier.verify(reordered, proof)).toBe(wallet.address.toLowerCase());
  });

  it('refuses a replay of the same proof', async () => {
    const proof = await sign(context);
    await verifier.verify(context, proof);
    expect(await reason(verifier.verify(context, proof))).toBe('NONCE_USED');
  });

  it.each([
    ['another agent', { agentId: '11111111-1111-4111-8111-111111111111' }],
    ['another key', { apiKeyId: '22222222-2222-4222-8222-222222222222' }],
    ['another tool', { tool: 'svc_trade_prepare' }],
    ['another scope', { scope: 'trade:execute' }],
    ['another chain', { chainId: 1 }],
    ['another resource', { resourceId: '0x2222222222222222222222222222222222222222' }],
    ['another payload', { payload: { markets: [] } }],
  ])('cannot be reused for %s', async (_label, change) => {
    const proof = await sign(context);
    expect(await reason(verifier.verify({ ...context, ...change }, proof))).toBe('SIGNATURE_MISMATCH');
    // The failed attempt did not burn the nonce: the genuine use still works.
    expect(await verifier.verify(context, proof)).toBe(wallet.address.toLowerCase());
  });

  it('refuses a proof signed by another wallet', async () => {
    expect(await reason(verifier.verify(context, await sign(context, other)))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a malformed signature', async () => {
    const proof = await sign(context);
    expect(await reason(verifier.verify(context, { ...proof, walletSignature: '0x1234' }))).toBe('SIGNATURE_MALFORMED');
  });

  it('accepts a proof signed 300 s ago and refuses one signed 301 s ago', async () => {
    const start = clock.now();
    const at300 = await sign(context, wallet, new Date(start.getTime() - 300_000));
    expect(await verifier.verify(context, at300)).toBe(wallet.address.toLowerCase());
    const at301 = await sign(context, wallet, new Date(start.getTime() - 301_000));
    expect(await reason(verifier.verify(context, at301))).toBe('TIMESTAMP_OUT_OF_WINDOW');
  });

  it('refuses a nonce older than its 300 s TTL and an unknown nonce', async () => {
    const { nonce } = await nonces.issue('auth');
    clock.advance(301_000);
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const fields = { ...context, walletAddress: wallet.address, nonce, timestamp };
    const proof = { walletAddress: wallet.address, walletSignature: await wallet.signMessage({ message: walletProofMessage(fields) }), signatureTimestamp: timestamp, proofNonce: nonce };
    expect(await reason(verifier.verify(context, proof))).toBe('NONCE_EXPIRED');
    const unknown = { ...fields, nonce: 'never-issued' };
    const proof2 = { ...proof, proofNonce: 'never-issued', walletSignature: await wallet.signMessage({ message: walletProofMessage(unknown) }) };
    expect(await reason(verifier.verify(context, proof2))).toBe('NONCE_UNKNOWN');
  });
  it('refuses a human-check salt as a wallet-proof nonce (NONCE_UNKNOWN), and leaves the salt usable for its check', async () => {
    const { nonce: salt } = await nonces.issue('human-check');
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const fields = { ...context, walletAddress: wallet.address, nonce: salt, timestamp };
    const proof = { walletAddress: wallet.address, walletSignature: await wallet.signMessage({ message: walletProofMessage(fields) }), signatureTimestamp: timestamp, proofNonce: salt };
    expect(await reason(verifier.verify(context, proof))).toBe('NONCE_UNKNOWN');
    expect(await nonces.consume(salt, 'human-check', 'human-check')).toBeNull();
  });
});

describe('POST /api/auth/nonce over HTTP', () => {
  it('issues a nonce without a key or Idempotency-Key, usable once in a wallet proof', async () => {
    const { startTestServer } = await import('../support/harness.ts');
    const server = await startTestServer();
    try {
      const res = await server.call('POST', '/api/auth/nonce');
      expect(res.status).toBe(200);
      expect(res.body.nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(res.body.signedNonce).toMatch(/^[0-9a-f]{64}$/);
      const again = await server.call('POST', '/api/auth/nonce', { body: {} });
      expect(again.body.nonce).not.toBe(res.body.nonce);
      expect((await server.call('POST', '/api/auth/nonce', { body: { extra: 1 } })).body.code).toBe('INVALID_PAYLOAD');

      const timestamp = Math.floor(Date.now() / 1000);
      const fields = { ...context, walletAddress: wallet.address, nonce: res.body.nonce, timestamp };
      const proof = { walletAddress: wallet.address, walletSignature: await wallet.signMessage({ message: walletProofMessage(fields) }), signatureTimestamp: timestamp, proofNonce: res.body.nonce };
      const v = server.runtime.services.walletProofs;
      expect(await v.verify(context, proof)).toBe(wallet.address.toLowerCase());
      expect(await reason(v.verify(context, proof))).toBe('NONCE_USED');
    } finally {
      await server.close();
    }
  });
});

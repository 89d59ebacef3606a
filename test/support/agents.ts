// Test helpers that act as an agent would: fetch a nonce, sign a published template with a real
// viem account, register on a path, solve the proof-of-work human check.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { walletProofText, type ProofSubject, type WalletProofKind } from '../../src/core/auth-templates.ts';
import { powToken, solvePow } from '../../src/core/pow.ts';
import type { CallResult, TestServer } from './harness.ts';

let clients = 0;
/** A fresh client address: keyless budgets are per address, so each flow gets its own (needs TRUST_PROXY=true). */
export const newClient = (): Record<string, string> => {
  clients++;
  return { 'x-forwarded-for': `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}` };
};

let idem = 0;
export const idemKey = (label = 'k'): string => `${label}-${++idem}-${Date.now()}`;

export const newAccount = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());

/** POST as a keyless client, with a fresh Idempotency-Key unless given. */
export const keyless = (server: TestServer, url: string, body?: unknown, o: { headers?: Record<string, string>; idempotencyKey?: string } = {}): Promise<CallResult> =>
  server.call('POST', url, { body, idempotencyKey: o.idempotencyKey ?? idemKey(), headers: o.headers ?? newClient() });

/**
 * Wallet-proof body fields over one of the published templates, signed now (by the server's clock), for the agent
 * `subject` names: agentName for agent-register, agentId for agent-bind-wallet.
 */
export async function walletProof(server: TestServer, kind: WalletProofKind, account: PrivateKeyAccount, subject: ProofSubject = {}) {
  const { nonce } = (await keyless(server, '/api/auth/nonce')).body;
  const timestamp = Math.floor(server.runtime.clock.now().getTime() / 1000);
  const message = walletProofText(kind, { ...subject, walletAddress: account.address, nonce, chainId: server.config.chain.id, timestamp });
  return { walletAddress: account.address, walletSignature: await account.signMessage({ message }), proofNonce: nonce, signatureTimestamp: timestamp };
}

export async function registerWallet(server: TestServer, account = newAccount(), name = 'wallet-bot') {
  const res = await keyless(server, '/api/agent/v1/register', { kind: 'wallet', name, ...(await walletProof(server, 'agent-register', account, { agentName: name })) });
  if (res.status !== 201) throw new Error(`wallet registration failed: ${res.status} ${res.text}`);
  return { account, agentId: res.body.agent.id as string, key: res.body.apiKey.key as string, keyId: res.body.apiKey.id as string, body: res.body };
}

/** Fetches a proof-of-work challenge and solves it. */
export async function humanCheckToken(server: TestServer, headers = newClient()): Promise<string> {
  const res = await server.call('GET', '/api/agent/v1/human-check/challenge', { headers });
  if (res.status !== 200 || res.body.kind !== 'pow') throw new Error(`no pow challenge: ${res.status} ${res.text}`);
  return powToken(res.body.salt, solvePow(res.body.salt, res.body.bits));
}

/** What the confirm page does when the person presses Confirm: POST the link's token. */
export const confirmLink = (server: TestServer, token: string): Promise<CallResult> =>
  server.call('POST', '/api/agent/v1/email-links/confirm', { body: { token }, headers: newClient() });

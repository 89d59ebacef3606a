// The crash suite's client side: plain HTTP against a real `svc start` child (no inject), agents registered with a
// wallet proof as an agent would, and an ORDERBOOK market created through the negotiate loop from the creator's wallet.
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { walletProofText } from '../../src/core/auth-templates.ts';
import { chainDefinition } from '../../src/chain/clients.ts';
import { rpc } from '../support/anvil-rpc.ts';

export const AGENT_API = '/api/agent/v1';
const CHAIN_ID = 8453;

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  headers: Headers;
}

export interface CallOptions {
  key?: string;
  idempotencyKey?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Abort after this long (a hang becomes a network error the caller records). */
  timeoutMs?: number;
}

/** One HTTP request; a refused connection or a reset socket throws (the caller decides what an unanswered write is). */
export async function call(base: string, method: 'GET' | 'POST', path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    signal: AbortSignal.timeout(o.timeoutMs ?? 20_000),
  });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') && text.length > 0;
  return { status: res.status, body: json ? JSON.parse(text) : text, headers: res.headers };
}

export interface Agent {
  index: number;
  name: string;
  account: PrivateKeyAccount;
  agentId: string;
  key: string;
  keyId: string;
  /** The client address it registers from (TRUST_PROXY=true): keyless budgets are per address. */
  xff: string;
  /** Its key's write budget left, as the last write's RateLimit-Remaining said (the budget is per svc process). */
  writesLeft: number;
}

let setupKeys = 0;
const setupKey = (label: string): string => `crash-setup-${label}-${++setupKeys}-${Date.now()}`;

/** Registers a wallet agent over HTTP: a nonce, the agent-register template signed by a fresh key, POST /register. */
export async function registerAgent(base: string, index: number, name: string): Promise<Agent> {
  const account = privateKeyToAccount(generatePrivateKey());
  const xff = `10.77.${index >> 8}.${index & 255}`;
  const nonce = await call(base, 'POST', '/api/auth/nonce', { headers: { 'x-forwarded-for': xff } });
  if (nonce.status !== 200 && nonce.status !== 201) throw new Error(`nonce: ${nonce.status} ${JSON.stringify(nonce.body)}`);
  const timestamp = Math.floor(Date.now() / 1000);
  const message = walletProofText('agent-register', { agentName: name, walletAddress: account.address, nonce: nonce.body.nonce, chainId: CHAIN_ID, timestamp });
  const res = await call(base, 'POST', `${AGENT_API}/register`, {
    headers: { 'x-forwarded-for': xff },
    idempotencyKey: setupKey('register'),
    body: { kind: 'wallet', name, walletAddress: account.address, walletSignature: await account.signMessage({ message }), proofNonce: nonce.body.nonce, signatureTimestamp: timestamp },
  });
  if (res.status !== 201) throw new Error(`wallet registration of ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return { index, name, account, agentId: res.body.agent.id, key: res.body.apiKey.key, keyId: res.body.apiKey.id, xff, writesLeft: Number.POSITIVE_INFINITY };
}

/** The negotiate loop with pricingModel ORDERBOOK; the factory transaction is sent from the creator's wallet (given gas first). */
export async function createOrderBook(base: string, rpcUrl: string, creator: Agent, question: string): Promise<string> {
  const post = async (path: string, body?: unknown): Promise<Answer> => {
    const res = await call(base, 'POST', `${AGENT_API}${path}`, { key: creator.key, idempotencyKey: setupKey('book'), body });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  const closeTime = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const proposed = await post('/negotiate/propose', { question, category: 'TECH', pricingModel: 'ORDERBOOK', closeTime, resolutionSource: 'https://example.org/resolution' });
  const id = proposed.body.negotiation.id as string;
  await post(`/negotiate/${id}/accept`);
  const prepared = await post(`/negotiate/${id}/prepare-deploy`);
  await rpc(rpcUrl, 'anvil_setBalance', [creator.account.address, '0x56BC75E2D63100000']); // 100 ETH of gas
  const chain = chainDefinition(CHAIN_ID, 'crash', rpcUrl);
  const wallet = createWalletClient({ chain, account: creator.account, transport: http(rpcUrl) });
  const tx = prepared.body.transaction as { to: Hex; data: Hex };
  const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: 0n });
  const receipt = await createPublicClient({ chain, transport: http(rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`order-book creation ${hash} reverted`);
  const committed = await post(`/negotiate/${id}/commit-deploy`, { txHash: hash });
  return (committed.body.market.address as string).toLowerCase();
}

// The browser wallet (issue 23), loaded only when the person connects or sends a transaction: an injected EIP-1193
// provider through viem. Sign-In with Ethereum fills the server's own template (GET /auth-discovery) and sends the
// signature to POST /api/auth/verify; a transaction is sent from the wallet and followed to CONFIRMED through
// GET /api/v1/transactions/{hash}. The page holds no key: the session cookie is HttpOnly.
import { createClient, custom, type Client, type EIP1193Provider, type Hex } from 'viem';
import { getChainId, requestAddresses, sendTransaction, signMessage, switchChain } from 'viem/actions';
import { ProblemError, sendJson } from '../api/write.ts';
import { setSession } from './session.ts';

declare global {
  interface Window {
    ethereum?: EIP1193Provider;
  }
}

/** A wallet step that failed in the browser, named like a problem code so it has words (i18n error.<CODE>). */
const walletError = (code: 'NO_WALLET' | 'WALLET_REJECTED' | 'WRONG_CHAIN' | 'TX_REVERTED' | 'TX_DROPPED', detail: string) => new ProblemError(0, code, detail, {});

/** EIP-1193 4001: the person said no in the wallet. */
const rejected = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 4001 || (err as { cause?: { code?: unknown } } | null)?.cause?.code === 4001;

// A bare client and the five actions the app uses (not the whole wallet decorator): a smaller chunk.
function client(): Client {
  if (!window.ethereum) throw walletError('NO_WALLET', 'no injected wallet (window.ethereum)');
  return createClient({ transport: custom(window.ethereum) });
}

async function account(wallet: Client): Promise<Hex> {
  try {
    const [address] = await requestAddresses(wallet);
    if (!address) throw walletError('WALLET_REJECTED', 'the wallet shared no account');
    return address;
  } catch (err) {
    if (rejected(err)) throw walletError('WALLET_REJECTED', String(err));
    throw err;
  }
}

interface AuthDiscovery {
  nonceEndpoint: { path: string };
  messageTemplates: { kind: string; template: string }[];
}

/** Connects the wallet and signs in with SIWE; the session cookie is set by the answer. */
export async function signIn(): Promise<string> {
  const wallet = client();
  const address = await account(wallet);
  const [discovery, time] = await Promise.all([
    sendJson<AuthDiscovery>('GET', '/api/agent/v1/auth-discovery'),
    // Issued At is the server's time: a wrong clock on the device would otherwise refuse the sign-in.
    sendJson<{ serverTime: number }>('GET', '/api/agent/v1/time'),
  ]);
  const template = discovery.messageTemplates.find((m) => m.kind === 'siwe')?.template;
  if (!template) throw new ProblemError(0, 'FEATURE_DISABLED', 'the server publishes no SIWE template', {});
  const { nonce } = await sendJson<{ nonce: string }>('POST', discovery.nonceEndpoint.path);
  const fields: Record<string, string> = { address, nonce, issuedAt: new Date(time.serverTime).toISOString() };
  const message = template.replace(/\{(address|nonce|issuedAt)\}/g, (_, name: string) => fields[name]!);
  let signature: Hex;
  try {
    signature = await signMessage(wallet, { account: address, message });
  } catch (err) {
    if (rejected(err)) throw walletError('WALLET_REJECTED', String(err));
    throw err;
  }
  const session = await sendJson<{ walletAddress: string; expiresAt: string }>('POST', '/api/auth/verify', { message, signature });
  setSession({ status: 'signedIn', address: session.walletAddress, expiresAt: session.expiresAt });
  return session.walletAddress;
}

export interface PreparedTransaction {
  chainId: number;
  to: Hex;
  data: Hex;
  value?: string;
}

/** Sends a transaction the server prepared from the signed-in wallet; answers its hash. */
export async function sendPrepared(tx: PreparedTransaction): Promise<Hex> {
  const wallet = client();
  const from = await account(wallet);
  const chainId = await getChainId(wallet);
  if (chainId !== tx.chainId) {
    try {
      await switchChain(wallet, { id: tx.chainId });
    } catch (err) {
      throw walletError('WRONG_CHAIN', `the wallet is on chain ${chainId}; this needs chain ${tx.chainId}: ${String(err)}`);
    }
  }
  try {
    return await sendTransaction(wallet, { account: from, chain: null, to: tx.to, data: tx.data, value: BigInt(tx.value ?? '0') });
  } catch (err) {
    if (rejected(err)) throw walletError('WALLET_REJECTED', String(err));
    throw err;
  }
}

/** Polls GET /api/v1/transactions/{hash} until the chain says CONFIRMED (REVERTED or DROPPED throw). */
export async function followToConfirmed(hash: Hex, o: { intervalMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  const submittedAt = new Date().toISOString();
  for (;;) {
    o.signal?.throwIfAborted();
    const s = await sendJson<{ state: 'CONFIRMED' | 'REVERTED' | 'PENDING' | 'DROPPED' }>('GET', `/api/v1/transactions/${hash}?submittedAt=${encodeURIComponent(submittedAt)}`);
    if (s.state === 'CONFIRMED') return;
    if (s.state === 'REVERTED') throw walletError('TX_REVERTED', `transaction ${hash} reverted`);
    if (s.state === 'DROPPED') throw walletError('TX_DROPPED', `transaction ${hash} was dropped`);
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 1000));
  }
}

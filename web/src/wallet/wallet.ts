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

/** Asks the wallet to switch to `wanted` when it is on another chain (WRONG_CHAIN if it will not). */
async function onChain(wallet: Client, wanted: number): Promise<void> {
  const chainId = await getChainId(wallet);
  if (chainId === wanted) return;
  try {
    await switchChain(wallet, { id: wanted });
  } catch (err) {
    throw walletError('WRONG_CHAIN', `the wallet is on chain ${chainId}; this needs chain ${wanted}: ${String(err)}`);
  }
}

/** Sends a transaction the server prepared from the signed-in wallet; answers its hash. */
export async function sendPrepared(tx: PreparedTransaction): Promise<Hex> {
  const wallet = client();
  const from = await account(wallet);
  await onChain(wallet, tx.chainId);
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

export interface PermitDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Hex;
}

/**
 * A uint256 view of one address argument (ERC-20 balanceOf, EIP-2612 nonces) through the wallet's own node. Encoded by
 * hand: viem's readContract would bring its whole ABI coder and error decoding into this chunk (twice its size).
 */
async function readUint(wallet: Client, token: Hex, selector: Hex, owner: Hex): Promise<bigint> {
  const data = `${selector}${owner.slice(2).toLowerCase().padStart(64, '0')}` as Hex;
  const answer = (await wallet.request({ method: 'eth_call', params: [{ to: token, data }, 'latest'] } as never)) as Hex;
  return BigInt(answer === '0x' ? 0 : answer);
}
const BALANCE_OF = '0x70a08231';
const NONCES = '0x7ecebe00';
const PERMIT_TYPES = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/**
 * Signs an EIP-2612 permit in the wallet (eth_signTypedData_v4): `value` base units of the domain's token for
 * `spender` until `deadline` (Unix seconds), with the owner's current nonce read from the token. Sends nothing.
 */
export async function signPermit(p: { domain: PermitDomain; spender: Hex; value: bigint; deadline: number }): Promise<{ v: number; r: Hex; s: Hex }> {
  const wallet = client();
  const owner = await account(wallet);
  await onChain(wallet, p.domain.chainId);
  const nonce = await readUint(wallet, p.domain.verifyingContract, NONCES, owner);
  // eth_signTypedData_v4 asked directly (numbers as decimal strings): viem's signTypedData and parseSignature would
  // add their validation and curve code to this chunk for a request the wallet itself checks.
  const typedData = {
    domain: p.domain,
    types: PERMIT_TYPES,
    primaryType: 'Permit',
    message: { owner, spender: p.spender, value: p.value.toString(), nonce: nonce.toString(), deadline: String(p.deadline) },
  };
  let signature: Hex;
  try {
    signature = (await wallet.request({ method: 'eth_signTypedData_v4', params: [owner, JSON.stringify(typedData)] } as never)) as Hex;
  } catch (err) {
    if (rejected(err)) throw walletError('WALLET_REJECTED', String(err));
    throw err;
  }
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw walletError('WALLET_REJECTED', 'the wallet answered no 65-byte signature');
  // r ‖ s ‖ v; some wallets give v as 0/1 (the y parity) rather than 27/28.
  const v = parseInt(signature.slice(130, 132), 16);
  return { v: v < 27 ? v + 27 : v, r: `0x${signature.slice(2, 66)}`, s: `0x${signature.slice(66, 130)}` };
}

/** The wallet's balance of an ERC-20 token, in base units, read through the wallet's own node. */
export async function tokenBalance(token: Hex, owner: Hex): Promise<bigint> {
  return readUint(client(), token, BALANCE_OF, owner);
}

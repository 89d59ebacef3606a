// The signed-in wallet as the whole app sees it: GET /api/auth/session on load, set by sign-in, cleared by sign-out.
// No wallet code here: viem loads (wallet.ts) only when the person connects or sends a transaction.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { sendJson } from '../api/write.ts';

export type SessionState = { status: 'loading' } | { status: 'signedOut' } | { status: 'signedIn'; address: string; expiresAt: string };

let state: SessionState = { status: 'loading' };
const listeners = new Set<(s: SessionState) => void>();
let started = false;

export function setSession(next: SessionState): void {
  state = next;
  for (const l of listeners) l(state);
}

/** Reads the session the cookie holds (a 401 is no session). */
export async function refreshSession(): Promise<void> {
  try {
    const s = await sendJson<{ walletAddress: string; expiresAt: string }>('GET', '/api/auth/session');
    setSession({ status: 'signedIn', address: s.walletAddress, expiresAt: s.expiresAt });
  } catch (err) {
    // Any refusal means "not signed in"; a network failure too, until the next try.
    if (err instanceof ApiError) setSession({ status: 'signedOut' });
  }
}

export async function signOut(): Promise<void> {
  try {
    await sendJson('POST', '/api/auth/logout');
  } finally {
    setSession({ status: 'signedOut' });
  }
}

/**
 * The wallet changed under the page: another account (or none) ends the session, which was signed for the old one;
 * another chain has the session read again (the server says whether it still holds).
 */
function followWallet(): void {
  const provider = window.ethereum as { on?: (event: string, listener: (arg: unknown) => void) => void } | undefined;
  if (typeof provider?.on !== 'function') return;
  provider.on('accountsChanged', (accounts) => {
    if (state.status !== 'signedIn') return;
    const now = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0].toLowerCase() : null;
    if (now !== state.address.toLowerCase()) void signOut();
  });
  provider.on('chainChanged', () => {
    if (state.status === 'signedIn') void refreshSession();
  });
}

export function useSession(): SessionState {
  const [s, setS] = useState(state);
  useEffect(() => {
    listeners.add(setS);
    setS(state);
    if (!started) {
      started = true;
      void refreshSession();
      followWallet();
    }
    return () => void listeners.delete(setS);
  }, []);
  return s;
}

// Wallet sessions in place of a key, as the web app holds them: a SIWE sign-in as the app does it, a funded wallet
// signed in, and the headers the app's calls carry (the session cookie and the CSRF guard).
import type { PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { siweMessage } from '../../src/core/siwe.ts';
import { newAccount, newClient } from './agents.ts';
import type { TestServer } from './harness.ts';
import { fund, gas } from './markets.ts';

/** Signs in with SIWE as the web app does; answers the Cookie header the browser would send back. */
export async function signIn(server: TestServer, account: PrivateKeyAccount): Promise<string> {
  const { nonce } = (await server.call('POST', '/api/auth/nonce', { headers: newClient() })).body;
  const message = siweMessage({ publicBaseUrl: server.config.publicBaseUrl, chainId: server.config.chain.id }, { address: account.address, nonce, issuedAt: server.runtime.clock.now() });
  const res = await server.call('POST', '/api/auth/verify', { body: { message, signature: await account.signMessage({ message }) }, headers: newClient() });
  expect(res.status, res.text).toBe(200);
  const raw = res.headers['set-cookie'];
  return (Array.isArray(raw) ? raw[0]! : raw!).split(';')[0]!;
}

/**
 * The headers of a web app call from a fresh client address: the session cookie and the CSRF guard (`guard: false`
 * leaves the guard out, as a cross-site form would).
 */
export const sessionHeaders = (cookie: string, o: { guard?: boolean } = {}): Record<string, string> => ({
  ...newClient(),
  cookie,
  ...(o.guard === false ? {} : { 'svc-csrf': '1' }),
});

/** A fresh wallet with gas and money (`fund`'s amounts unless given), signed in: its account and its session cookie. */
export async function signedInWallet(server: TestServer, amounts?: Parameters<typeof fund>[2]): Promise<{ account: PrivateKeyAccount; cookie: string }> {
  const account = newAccount();
  await gas(server, account.address);
  await fund(server, account.address, amounts);
  return { account, cookie: await signIn(server, account) };
}

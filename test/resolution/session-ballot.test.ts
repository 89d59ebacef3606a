// A ballot cast with a wallet session (docs/web.md "Trading with a wallet session"; the market page's vote): the
// signed-in, verified-human wallet casts its own ballot without a key, and a session is refused another wallet's
// ballot (403 FORBIDDEN) even with that wallet's valid signature. Real SIWE sign-in, a real vote round on anvil.
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ballotTypedData } from '../../src/core/resolution/votes.ts';
import { CATALOG } from '../../src/api/catalog/index.ts';
import { SESSION_SCOPES } from '../../src/api/pipeline/session-principal.ts';
import { idemKey, newAccount, newClient } from '../support/agents.ts';
import { signIn as signInAs } from '../support/sessions.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { votingMarket } from '../support/votes.ts';

const A = '/api/agent/v1';
let server: TestServer;
let market: Address;
let sessionId: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
  ({ market, sessionId } = await votingMarket(server, 'ballot-session-creator'));
});
afterAll(async () => server?.close());

const signIn = (account: PrivateKeyAccount): Promise<string> => signInAs(server, account);

/** The ballot body a wallet signs (EIP-712 Ballot under the resolver's domain), as the page asks the wallet to. */
async function ballotOf(voter: PrivateKeyAccount, outcome: number) {
  const signature = await voter.signTypedData(ballotTypedData(server.config.chain.id, server.runtime.services.chain.lane().resolver, { market, round: 1, outcome }));
  return { walletAddress: voter.address, outcome, signature };
}

/** The web app's call: the session cookie and the CSRF guard, no key (null: neither). */
const cast = (cookie: string | null, body: unknown): Promise<CallResult> =>
  server.call('POST', `${A}/resolution/votes/${sessionId}/ballots`, { body, headers: { ...newClient(), ...(cookie ? { cookie, 'svc-csrf': '1' } : {}) }, idempotencyKey: idemKey('ballot') });

describe('a ballot cast with a wallet session', () => {
  it("casts the signed-in verified human's own ballot without a key", async () => {
    const voter = newAccount();
    await server.runtime.services.humans.attest(voter.address, 'test');
    const res = await cast(await signIn(voter), await ballotOf(voter, 2));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ sessionId, wallet: voter.address.toLowerCase(), outcome: 2 });
    const published = await server.call('GET', `${A}/resolution/votes/${sessionId}`);
    expect(published.body.ballots.map((b: { wallet: string }) => b.wallet)).toContain(voter.address.toLowerCase());
  });

  it("refuses a session another wallet's ballot, even signed by that wallet: 403 FORBIDDEN, nothing cast", async () => {
    const victim = newAccount();
    await server.runtime.services.humans.attest(victim.address, 'test');
    const relayer = newAccount();
    await server.runtime.services.humans.attest(relayer.address, 'test');
    const res = await cast(await signIn(relayer), await ballotOf(victim, 1));
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    const published = await server.call('GET', `${A}/resolution/votes/${sessionId}`);
    expect(published.body.ballots.map((b: { wallet: string }) => b.wallet)).not.toContain(victim.address.toLowerCase());
    // The victim's own session may still cast it.
    expect((await cast(await signIn(victim), await ballotOf(victim, 1))).status).toBe(201);
  });

  it('refuses an unverified wallet with HUMAN_VERIFICATION_REQUIRED, and a call with neither key nor session', async () => {
    const stranger = newAccount();
    const res = await cast(await signIn(stranger), await ballotOf(stranger, 1));
    expect([res.status, res.body.code]).toEqual([403, 'HUMAN_VERIFICATION_REQUIRED']);
    const nobody = await cast(null, await ballotOf(stranger, 1));
    expect([nobody.status, nobody.body.code]).toEqual([401, 'API_KEY_REQUIRED']);
  });

  it('is opened to the session by the catalog, with a scope the session holds', () => {
    const cap = CATALOG.find((c) => c.name === 'POST /resolution/votes/:sessionId/ballots')!;
    expect(cap.walletSession).toBe('principal');
    expect(cap.scopes.every((s) => SESSION_SCOPES.includes(s))).toBe(true);
  });
});

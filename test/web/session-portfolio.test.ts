// The portfolio and the resolution steps with a wallet session in place of an API key (docs/web.md "Trading with a
// wallet session"): what the web app's portfolio and market page do for a signed-in wallet. Real SIWE sign-in, real
// chain; nothing mocked. Each capability opened to the session is shown working with one, refused without one, and
// never reaching another wallet's money.
import { erc20Abi, parseUnits, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposalTypedData } from '../../src/core/resolution/votes.ts';
import { SESSION_SCOPES } from '../../src/api/pipeline/session-principal.ts';
import { CATALOG } from '../../src/api/catalog/index.ts';
import { idemKey, newAccount, newClient } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { funded as fundedAgent, type Agent } from '../support/claims.ts';
import { createMarket, sendApprovals, sendTx } from '../support/markets.ts';
import { sessionHeaders, signedInWallet, signIn as sessionSignIn } from '../support/sessions.ts';

const A = '/api/agent/v1';
let server: TestServer;
let creator: Agent;

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
  creator = await fundedAgent(server, 'portfolio-creator');
});
afterAll(async () => server?.close());

const sync = () => server.runtime.services.indexer.syncNow();
const advance = async (s: number) => {
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [s]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
};

const signIn = (account: PrivateKeyAccount) => sessionSignIn(server, account);

/** A call of the web app: the session cookie and the CSRF guard, no key (null: neither, as a visitor). */
const asSession = (cookie: string | null, method: 'GET' | 'POST', path: string, body?: unknown, o: { idempotencyKey?: string } = {}): Promise<CallResult> =>
  server.call(method, `${A}${path}`, { body, headers: cookie ? sessionHeaders(cookie) : newClient(), idempotencyKey: o.idempotencyKey });

/** A fresh wallet with gas and money that buys `shares` of `outcome` through its session, as the trade panel does. */
async function sessionBuyer(market: string, outcome: number, shares: bigint): Promise<{ account: PrivateKeyAccount; cookie: string }> {
  const { account, cookie } = await signedInWallet(server);
  const body = { market, outcome, side: 'buy', shares: shares.toString(), deadlineSeconds: 86_400 };
  let prepared = await asSession(cookie, 'POST', '/trade/prepare', body);
  if (prepared.body.code === 'APPROVAL_REQUIRED') {
    await sendApprovals(server, account, prepared.body.approvals);
    prepared = await asSession(cookie, 'POST', '/trade/prepare', body);
  }
  expect(prepared.status, prepared.text).toBe(200);
  await sendTx(server, account, prepared.body.transaction);
  return { account, cookie };
}

/** The creator's EIP-712 proposal, signed as the web app asks the wallet to, relayed through the creator's session. */
async function proposeAsCreator(cookie: string, market: string, outcome: number): Promise<CallResult> {
  const resolution = (await server.call('GET', `${A}/markets/${market}/resolution`, { headers: newClient() })).body;
  const deadline = BigInt(Math.floor(Date.parse(resolution.chainTime) / 1000) + 600);
  const signature = await creator.account.signTypedData(proposalTypedData(server.config.chain.id, resolution.resolver as Address, { market: market as Address, outcome, deadline }));
  return asSession(cookie, 'POST', `/markets/${market}/resolution/propose`, { outcome, deadline: Number(deadline), signature });
}

const OPENED = [
  'GET /claims/available',
  'POST /claims/simulate',
  'POST /claims/batch',
  'GET /trade/creator-funds',
  'POST /trade/creator-funds/collect',
  'POST /markets/:address/resolution/propose',
  'POST /markets/:address/resolution/challenge/prepare',
  'POST /markets/:address/resolution/finalize',
];

describe('the portfolio and the resolution steps with a wallet session', () => {
  it('proposes as the creator, finalizes, lists and claims the payout, and collects the creator funds, all without a key', async () => {
    const { market } = await createMarket(server, creator.key, creator.account, { question: 'Will the portfolio claim pay?' });
    const address = (market.address as string).toLowerCase();
    const token = market.collateral.token as Address;
    await sync();
    const shares = parseUnits('30', 6);
    const winner = await sessionBuyer(address, 0, shares);
    const creatorCookie = await signIn(creator.account);
    await sync();

    // Propose: the session relays the creator's signed proposal (the signature, not the session, is the creator).
    const proposed = await proposeAsCreator(creatorCookie, address, 1);
    expect(proposed.status, proposed.text).toBe(202);
    expect(proposed.body).toMatchObject({ outcome: 1, isVoid: false, proposer: creator.account.address.toLowerCase() });
    await sync();
    // Finalize before the window ends is refused with its code; after it, any session may send it.
    const early = await asSession(winner.cookie, 'POST', `/markets/${address}/resolution/finalize`);
    expect([early.status, early.body.code]).toEqual([409, 'CHALLENGE_WINDOW_OPEN']);
    await advance(7_201);
    const finalized = await asSession(winner.cookie, 'POST', `/markets/${address}/resolution/finalize`);
    expect(finalized.status, finalized.text).toBe(202);
    await sync();

    // The winner's payout: listed, simulated and claimed through the session, paid to its own wallet.
    const available = await asSession(winner.cookie, 'GET', '/claims/available');
    expect(available.status, available.text).toBe(200);
    expect(available.body).toMatchObject({ wallet: winner.account.address.toLowerCase(), totalEligibleNow: shares.toString() });
    expect(available.body.payouts[0]).toMatchObject({ marketAddress: address, amount: shares.toString(), status: 'claimable', eligibleNow: true });
    const refs = { markets: [{ chainId: server.config.chain.id, marketAddress: address }] };
    const dry = await asSession(winner.cookie, 'POST', '/claims/simulate', refs);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.items[0]).toMatchObject({ wouldSettle: true, amount: shares.toString() });
    // Another wallet's session sees only its own (nothing), and claiming the winner's market pays it nothing.
    const mallory = await signIn(newAccount());
    expect((await asSession(mallory, 'GET', '/claims/available')).body).toMatchObject({ payouts: [], totalClaimable: '0' });
    const stolen = await asSession(mallory, 'POST', '/claims/batch', refs, { idempotencyKey: idemKey('steal') });
    expect(stolen.status, stolen.text).toBe(200);
    expect(stolen.body.claims[0]).toMatchObject({ state: 'SKIPPED', skippedReason: 'NOT_CLAIMABLE_YET' });

    const balance = () => server.runtime.services.chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [winner.account.address] });
    const before = await balance();
    const claimed = await asSession(winner.cookie, 'POST', '/claims/batch', refs, { idempotencyKey: idemKey('claim') });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body.claims[0]).toMatchObject({ state: 'SETTLED', amount: shares.toString() });
    expect((await balance()) - before).toBe(shares);

    // Creator funds: the creator's session reads and collects them; another wallet's session gets none of them.
    await sync();
    const funds = await asSession(creatorCookie, 'GET', '/trade/creator-funds');
    expect(funds.status, funds.text).toBe(200);
    expect(funds.body.walletAddress).toBe(creator.account.address.toLowerCase());
    expect(funds.body.creatorFunds.markets.find((m: { marketAddress: string }) => m.marketAddress === address)).toMatchObject({ marketBalance: { status: 'claimable' }, bond: { status: 'returnable' } });
    expect((await asSession(mallory, 'GET', '/trade/creator-funds')).body.creatorFunds.markets).toEqual([]);
    const notTheirs = await asSession(mallory, 'POST', '/trade/creator-funds/collect', { marketAddresses: [address] }, { idempotencyKey: idemKey('collect') });
    expect(notTheirs.body.collections[0]).toMatchObject({ marketBalance: { state: 'SKIPPED', skippedReason: expect.stringMatching(/^not_creator/) } });
    const collected = await asSession(creatorCookie, 'POST', '/trade/creator-funds/collect', { marketAddresses: [address] }, { idempotencyKey: idemKey('collect') });
    expect(collected.status, collected.text).toBe(200);
    expect(collected.body).toMatchObject({ walletAddress: creator.account.address.toLowerCase(), collections: [{ marketAddress: address, marketBalance: { state: 'COLLECTED' }, bond: { state: 'COLLECTED' } }] });
  });

  it("prepares a challenge for the session's own wallet, and refuses a proposal another wallet signed", async () => {
    const { market } = await createMarket(server, creator.key, creator.account, { question: 'Will the portfolio challenge stand?' });
    const address = (market.address as string).toLowerCase();
    await sync();
    const { account: challenger, cookie } = await signedInWallet(server);
    // A proposal signed by a wallet that did not create the market is refused, whoever relays it.
    const resolution = (await server.call('GET', `${A}/markets/${address}/resolution`, { headers: newClient() })).body;
    const deadline = Math.floor(Date.parse(resolution.chainTime) / 1000) + 600;
    const forged = await challenger.signTypedData(proposalTypedData(server.config.chain.id, resolution.resolver as Address, { market: address as Address, outcome: 2, deadline: BigInt(deadline) }));
    const refused = await asSession(cookie, 'POST', `/markets/${address}/resolution/propose`, { outcome: 2, deadline, signature: forged });
    expect([refused.status, refused.body.code]).toEqual([422, 'PROPOSAL_SIGNATURE_INVALID']);

    expect((await proposeAsCreator(await signIn(creator.account), address, 1)).status).toBe(202);
    await sync();
    const prepared = await asSession(cookie, 'POST', `/markets/${address}/resolution/challenge/prepare`, { counterOutcome: 2 });
    expect(prepared.status, prepared.text).toBe(200);
    expect(prepared.body.wallet).toBe(challenger.address.toLowerCase());
    expect(prepared.body.transactions.map((t: { purpose: string; from: string }) => [t.purpose, t.from])).toEqual([
      ['approve', challenger.address.toLowerCase()],
      ['challenge', challenger.address.toLowerCase()],
    ]);
    for (const tx of prepared.body.transactions as { to: Address; data: Hex }[]) await sendTx(server, challenger, tx);
    await sync();
    expect((await server.call('GET', `${A}/markets/${address}/resolution`, { headers: newClient() })).body.challenge).toMatchObject({ challenger: challenger.address.toLowerCase(), counterOutcome: 2 });
  });

  it('is refused without a session, and with a session only where the catalog opens it', async () => {
    const market = `0x${'3'.repeat(40)}`;
    const calls: [string, 'GET' | 'POST', string, unknown][] = [
      ['GET /claims/available', 'GET', '/claims/available', undefined],
      ['POST /claims/simulate', 'POST', '/claims/simulate', { markets: [{ chainId: 8453, marketAddress: market }] }],
      ['POST /claims/batch', 'POST', '/claims/batch', { markets: [{ chainId: 8453, marketAddress: market }] }],
      ['GET /trade/creator-funds', 'GET', '/trade/creator-funds', undefined],
      ['POST /trade/creator-funds/collect', 'POST', '/trade/creator-funds/collect', {}],
      ['POST /markets/:address/resolution/propose', 'POST', `/markets/${market}/resolution/propose`, { outcome: 1, deadline: 1, signature: `0x${'1'.repeat(130)}` }],
      ['POST /markets/:address/resolution/challenge/prepare', 'POST', `/markets/${market}/resolution/challenge/prepare`, { counterOutcome: 1 }],
      ['POST /markets/:address/resolution/finalize', 'POST', `/markets/${market}/resolution/finalize`, undefined],
    ];
    expect(calls.map((c) => c[0])).toEqual(OPENED);
    for (const [name, method, path, body] of calls) {
      const res = await asSession(null, method, path, body, { idempotencyKey: method === 'POST' ? idemKey('none') : undefined });
      expect([res.status, res.body.code], name).toEqual([401, 'API_KEY_REQUIRED']);
    }
    // Exactly these capabilities take the session beyond the trading loop, and the session holds exactly the scopes
    // they ask for: without the catalog's mark or the wider SESSION_SCOPES each of them would be refused.
    for (const name of OPENED) {
      const cap = CATALOG.find((c) => c.name === name && c.surface === 'agent')!;
      expect(cap.walletSession, name).toBe('principal');
      expect(cap.scopes.every((s) => SESSION_SCOPES.includes(s)), name).toBe(true);
    }
    const cookie = await signIn(newAccount());
    // Still closed: the residual sweep, keys, webhooks, the caller's own record; the vote needs its ballot signature.
    for (const [method, path, body] of [
      ['POST', '/claims/sweep', {}],
      ['POST', '/sweep/execute', { marketAddress: market, chainId: 8453 }],
      ['GET', '/me', undefined],
      ['GET', '/webhooks', undefined],
    ] as const) {
      const res = await asSession(cookie, method, path, body, { idempotencyKey: method === 'POST' ? idemKey('closed') : undefined });
      expect([res.status, res.body.code], path).toEqual([401, 'API_KEY_REQUIRED']);
    }
  });
});

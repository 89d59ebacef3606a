// Black-box reputation end to end on a real chain and a real ledger: a creator loses a dispute decided by human
// ballots and is restricted (an audit event says so), and the gates bite — the create loop refuses its third live
// market, it may not vote, its free fills are a tenth; traders on an order book are promoted by their fills; linked
// wallets share one subject (a restriction follows the wallets); the owner gate of the audit trails refuses another
// wallet; comments, profiles, leaderboards, GET /me and /discover/rules carry tiers and gates, never a score.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { subjectIdOf } from '../../src/core/reputation/subject.ts';
import { ballotTypedData } from '../../src/core/resolution/votes.ts';
import { siweMessage } from '../../src/core/siwe.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { addComment } from '../../src/services/markets/comments.ts';
import { foldOnce } from '../../src/services/reputation/fold.ts';
import { newAccount, newClient, registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { buyShares, funded, type Agent } from '../support/claims.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { createMarket, gas, sendTx, terms, tokens } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const A = '/api/agent/v1';
const C = '/api/v1';
let server: TestServer;
let readKey: string;
beforeAll(async () => {
  server = await startTestServer({
    env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', VOTE_QUORUM: '2', FILLS_FREE_PER_MONTH: '20' },
  });
  readKey = await server.key('read-only');
});
afterAll(async () => server?.close());

let idem = 0;
const post = (key: string, path: string, body?: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: `rep-${++idem}` });
const get = (key: string, path: string, headers?: Record<string, string>) => server.call('GET', path.startsWith('/api') ? path : `${A}${path}`, { key, headers });
const sync = () => server.runtime.services.indexer.syncNow();
const fold = () => server.runtime.services.reputation.foldNow();
const lower = (a: string) => a.toLowerCase();
const resolverAbi = loadArtifact('MarketResolver').abi;
const resolverCall = (functionName: string, args: readonly unknown[]) => ({ to: server.runtime.services.chain.lane().resolver, data: encodeFunctionData({ abi: resolverAbi, functionName, args } as never) as Hex });

/** Every body a test read, to check at the end that no score ever appears. */
const bodies: unknown[] = [];
const seen = (res: CallResult): CallResult => {
  bodies.push(res.body);
  return res;
};

/** A signed-in wallet session (SIWE), its token for the Svc-Wallet-Session header. */
async function session(agent: Agent): Promise<string> {
  const headers = newClient();
  const { nonce } = (await server.call('POST', '/api/auth/nonce', { headers })).body;
  const message = siweMessage({ publicBaseUrl: server.config.publicBaseUrl, chainId: server.config.chain.id }, { address: agent.account.address, nonce, issuedAt: server.runtime.clock.now() });
  const res = await server.call('POST', '/api/auth/verify', { body: { message, signature: await agent.account.signMessage({ message }), returnToken: true }, headers });
  expect(res.status, res.text).toBe(200);
  return res.body.token as string;
}

/** The creator proposes `proposed`, a fresh challenger disputes with `counter`, the keeper opens round 1. */
async function dispute(creator: Agent, market: Address, proposed: number, counter: number): Promise<string> {
  const resolver = server.runtime.services.chain.lane().resolver;
  const challenger = await funded(server, 'challenger');
  await sendTx(server, challenger.account, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver, maxUint256] }) });
  await sendTx(server, creator.account, resolverCall('propose', [market, proposed]));
  await sendTx(server, challenger.account, resolverCall('challenge', [market, counter]));
  await sync();
  expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([`openVote ${market}`]);
  await sync();
  challengers.push(challenger);
  return `${server.config.chain.id}:${market}:1`;
}
const challengers: Agent[] = [];

async function ballot(voter: Agent, sessionId: string, outcome: number): Promise<CallResult> {
  const [, market, round] = sessionId.split(':');
  const typed = ballotTypedData(server.config.chain.id, server.runtime.services.chain.lane().resolver, { market: market as Address, round: Number(round), outcome });
  return post(voter.key, `/resolution/votes/${sessionId}/ballots`, { walletAddress: voter.account.address, outcome, signature: await voter.account.signTypedData(typed) });
}

let creator: Agent;
let trader: Agent;
let voters: Agent[];
let m1: Address;

describe('a creator who loses a dispute', () => {
  it('is restricted by the fold, with the inputs and the tier change in its audit trail', async () => {
    creator = await funded(server, 'rep-creator');
    trader = await funded(server, 'rep-trader');
    voters = [];
    for (const name of ['rep-voter-1', 'rep-voter-2']) {
      const voter = await registerWallet(server, undefined, name);
      await server.runtime.services.humans.attest(voter.account.address, 'test');
      voters.push(voter);
    }
    m1 = lower((await createMarket(server, creator.key, creator.account)).market.address) as Address;
    await sync();
    await buyShares(server, trader, m1, 0, parseUnits('10', 6));
    await sync();
    expect(await fold()).toBeGreaterThan(0);
    // A new creator: the default gates.
    const before = seen(await get(readKey, `/reputation/wallet/${creator.account.address}`));
    expect(before.status, before.text).toBe(200);
    expect(before.body).toMatchObject({ tier: 'new', subjectKind: 'wallet', walletAddress: lower(creator.account.address), linkedWalletCount: 1, gates: { maxLiveMarkets: 20, freeFillsPerMonth: 20, mayVote: true } });

    // Proposed 1, disputed with 2; two verified humans vote 2: the binding verdict slashes the creator's bond.
    const sessionId = await dispute(creator, m1, 1, 2);
    for (const voter of voters) expect((await ballot(voter, sessionId, 2)).status).toBe(201);
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [86_401]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([`recordVerdict ${m1}`]);
    await sync();
    await fold();

    const after = seen(await get(readKey, `/reputation/wallet/${creator.account.address}`));
    expect(after.body).toMatchObject({ tier: 'restricted', gates: { maxLiveMarkets: 2, freeFillsPerMonth: 2, mayVote: false }, tierSince: expect.any(String) });
    // The consumer alias and the subject read answer the same subject.
    const consumer = seen(await get(readKey, `${C}/reputation/${creator.account.address}`));
    expect(consumer.body).toEqual(after.body);
    const bySubject = seen(await get(readKey, `${C}/reputation/subjects/${after.body.subjectId}`));
    expect(bySubject.body).toEqual({ ...after.body, walletAddress: null });

    // The audit trail: the inputs that moved the record and the tier change, each with its reason code.
    const trail = seen(await get(creator.key, '/reputation/me/events'));
    expect(trail.status, trail.text).toBe(200);
    const reasons = trail.body.events.map((e: { kind: string; reason: string }) => `${e.kind}:${e.reason}`);
    expect(reasons).toEqual(['tier:SLASH_RATE', 'input:DISPUTE_LOST', 'input:MARKET_CREATED']);
    expect(trail.body.events[0]).toMatchObject({ kind: 'tier', tier: { from: 'new', to: 'restricted' }, walletAddress: lower(creator.account.address) });
    expect(trail.body.events[1]).toMatchObject({ marketAddress: m1, chainId: server.config.chain.id, change: { disputesLost: 1 }, source: expect.stringMatching(/^event:\d+$/) });
    // The others' facts: the voters agreed with the binding verdict, the challenger's challenge was upheld, the trader traded.
    const voterTrail = seen(await get(voters[0]!.key, '/reputation/me/events'));
    expect(voterTrail.body.events.map((e: { reason: string }) => e.reason)).toEqual(['BALLOT_AGREED', 'HUMAN_VERIFIED']);
    const challengerTrail = seen(await get(challengers[0]!.key, '/reputation/me/events'));
    expect(challengerTrail.body.events.map((e: { reason: string }) => e.reason)).toEqual(['CHALLENGE_UPHELD']);
    const traderTrail = seen(await get(trader.key, '/reputation/me/events'));
    expect(traderTrail.body.events).toEqual([expect.objectContaining({ reason: 'TRADES', marketAddress: m1, change: expect.objectContaining({ trades: 1, collateral: { symbol: 'USDC', volume: expect.stringMatching(/^[1-9][0-9]*$/) } }) })]);
    // Folding again counts nothing twice.
    expect(await fold()).toBe(0);
    expect((await get(creator.key, '/reputation/me/events')).body.events).toHaveLength(3);
  });

  it('gets the lower live-market cap: the create loop answers LIVE_MARKET_CAP_REACHED at 2', async () => {
    for (let i = 0; i < 2; i++) await createMarket(server, creator.key, creator.account, { question: `Restricted creator market number ${i + 2}?` });
    const preflight = await post(creator.key, '/negotiate/preflight', terms({ question: 'Will a third live market be allowed?' }));
    expect(preflight.body.liveMarkets).toEqual({ count: 2, max: 2 });
    expect(preflight.body.problems.map((p: { code: string }) => p.code)).toContain('LIVE_MARKET_CAP_REACHED');
    const refused = await post(creator.key, '/negotiate/propose', terms({ question: 'Will a third live market be allowed?' }));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'LIVE_MARKET_CAP_REACHED', detail: expect.stringContaining('at most 2') });
    const live = await get(readKey, `${C}/markets/by-creator/${creator.account.address}/live-count`);
    expect(live.body).toMatchObject({ liveCount: 2, maxLiveMarkets: 2 });
    // Another creator, new, keeps the default cap.
    expect((await get(readKey, `${C}/markets/by-creator/${trader.account.address}/live-count`)).body.maxLiveMarkets).toBe(20);
    // /discover/rules says what each tier allows and which refusal a closed gate answers.
    const rules = seen(await get(readKey, '/discover/rules'));
    expect(rules.body.reputation.tiers.map((t: { tier: string; gates: unknown }) => [t.tier, t.gates])).toEqual([
      ['restricted', { maxLiveMarkets: 2, freeFillsPerMonth: 2, mayVote: false }],
      ['new', { maxLiveMarkets: 20, freeFillsPerMonth: 20, mayVote: true }],
      ['established', { maxLiveMarkets: 30, freeFillsPerMonth: 20, mayVote: true }],
      ['trusted', { maxLiveMarkets: 50, freeFillsPerMonth: 40, mayVote: true }],
    ]);
    expect(rules.body.reputation.refusals.map((r: { code: string }) => r.code)).toEqual(['LIVE_MARKET_CAP_REACHED', 'FILL_ALLOWANCE_EXHAUSTED', 'REPUTATION_RESTRICTED']);
  });

  it('may not vote, even as a verified human; a new voter may', async () => {
    const m2 = lower((await server.runtime.database.db.selectFrom('markets').select('address').where('creator', '=', lower(creator.account.address)).where('state', '=', 'open').orderBy('id').executeTakeFirstOrThrow()).address) as Address;
    const sessionId = await dispute(creator, m2, 1, 2);
    await server.runtime.services.humans.attest(creator.account.address, 'test');
    const refused = await ballot(creator, sessionId, 1);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'REPUTATION_RESTRICTED', detail: expect.stringContaining('restricted') });
    expect((await ballot(voters[0]!, sessionId, 2)).status).toBe(201);
  });
});

let alice: Agent;
let bob: Agent;
let book: { address: string };

describe('order-book traders', () => {
  it('are promoted by their fills (counted once when two folds race); a restricted wallet has a tenth of the free fills and runs out at 2', async () => {
    alice = await registerWallet(server, undefined, 'rep-alice');
    bob = await registerWallet(server, undefined, 'rep-bob');
    await gas(server, alice.account.address);
    book = await createOrderBookMarket(server, alice, 'Will the reputation order book fill ten times?', new Date(Date.now() + 7 * 86_400_000));
    const bid = await post(alice.key, '/orderbook/place-order', { market: book.address, outcome: 0, action: 'buy', price: '0.5', shares: '300000000' });
    expect(bid.status, bid.text).toBe(201);
    for (let i = 0; i < 10; i++) {
      const take = await post(bob.key, '/orderbook/place-order', { market: book.address, outcome: 1, action: 'buy', price: '0.5', shares: '20000000', tif: 'IOC' });
      expect(take.body.fills, take.text).toHaveLength(1);
    }
    expect((await get(bob.key, '/me')).body.fills).toMatchObject({ freePerMonth: 20, freeUsed: 10 });
    // Two passes racing (two processes): one applies the fills, the other finds the cursors moved and writes nothing.
    const db = server.runtime.database.db;
    const deps = { db, clock: server.runtime.clock, log: createLogger('silent'), chainId: server.config.chain.id, humans: server.runtime.services.humans, freeFillsPerMonth: 20, decimalsOf: () => 6 };
    const raced = (await Promise.all([foldOnce(deps), foldOnce(deps)])).map((r) => r.facts).sort((a, b) => a - b);
    expect(raced[0]).toBe(0);
    expect(raced[1]).toBeGreaterThanOrEqual(2);
    await fold();
    const counted = await db.selectFrom('reputation_wallets').select('trades').where('wallet', '=', lower(bob.account.address)).executeTakeFirstOrThrow();
    expect(Number(counted.trades)).toBe(10);
    for (const who of [alice, bob]) {
      const rep = seen(await get(readKey, `/reputation/wallet/${who.account.address}`));
      expect(rep.body).toMatchObject({ tier: 'established', gates: { maxLiveMarkets: 30 } });
    }
    const trail = seen(await get(bob.key, '/reputation/me/events'));
    expect(trail.body.events[0]).toMatchObject({ kind: 'tier', reason: 'TRADING_RECORD', tier: { from: 'new', to: 'established' } });
    expect(trail.body.events[1]).toMatchObject({ kind: 'input', reason: 'TRADES', change: { trades: 10, volumeMicros: '100000000', collateral: { symbol: 'PLAY', volume: '100000000' } } });

    // The restricted creator: GET /me shows its tier's free fills; two fills, then 402.
    const me = seen(await get(creator.key, '/me'));
    expect(me.body.fills).toMatchObject({ freePerMonth: 2, freeUsed: 0 });
    expect(me.body.reputation).toMatchObject({ tier: 'restricted', gates: { freeFillsPerMonth: 2 } });
    for (let i = 0; i < 2; i++) {
      const take = await post(creator.key, '/orderbook/place-order', { market: book.address, outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC' });
      expect(take.status, take.text).toBe(201);
    }
    const exhausted = await post(creator.key, '/orderbook/place-order', { market: book.address, outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC' });
    expect(exhausted.status).toBe(402);
    expect(exhausted.body.code).toBe('FILL_ALLOWANCE_EXHAUSTED');
  });
});

describe('linked wallets', () => {
  let carol: Agent;
  let identitySubject: string;

  it('share one subject: the fold moves a wallet to its identity, which keeps the tier the wallet brings', async () => {
    carol = await registerWallet(server, undefined, 'rep-carol');
    const bobSubject = (await get(readKey, `/reputation/wallet/${bob.account.address}`)).body.subjectId as string;
    const code = (await post(carol.key, '/identity/link-code')).body.code;
    const consent = (await post(bob.key, '/identity/link-consent', { code })).body.consent.id;
    expect((await post(carol.key, '/identity/approve-links', { consentIds: [consent] })).status).toBe(200);
    await fold();
    const rep = seen(await get(readKey, `/reputation/wallet/${carol.account.address}`));
    expect(rep.body).toMatchObject({ subjectKind: 'identity', linkedWalletCount: 2, tier: 'established', walletAddress: lower(carol.account.address) });
    identitySubject = rep.body.subjectId;
    expect((await get(readKey, `/reputation/wallet/${bob.account.address}`)).body.subjectId).toBe(identitySubject);
    // Bob's own subject ended when it joined.
    expect((await get(readKey, `/reputation/subjects/${bobSubject}`)).body.code).toBe('NOT_FOUND');
    const trail = seen(await get(bob.key, '/reputation/me/events'));
    expect(trail.body.subjectId).toBe(identitySubject);
    expect(trail.body.events.slice(0, 2)).toMatchObject([
      { kind: 'tier', reason: 'SUBJECT_FORMED', tier: { from: null, to: 'established' }, walletAddress: lower(bob.account.address) },
      { kind: 'input', reason: 'IDENTITY_LINKED', change: { fromSubjectId: bobSubject, toSubjectId: identitySubject } },
    ]);
    const own = seen(await get(bob.key, '/reputation/me/events?filter=this_wallet'));
    expect(own.body.events.every((e: { walletAddress: string }) => e.walletAddress === lower(bob.account.address))).toBe(true);
    const carolOwn = seen(await get(carol.key, '/reputation/me/events?filter=this_wallet'));
    expect(carolOwn.body).toMatchObject({ walletAddress: lower(carol.account.address), events: [] });
    const carolAll = seen(await get(carol.key, '/reputation/me/events'));
    expect(carolAll.body.events.length).toBe(trail.body.events.length);
  });

  it('the consumer audit trails: the owner and a wallet linked with it pass, another wallet is 403, no session 401', async () => {
    const carolToken = await session(carol);
    const header = (token: string) => ({ 'svc-wallet-session': token });
    const byWallet = seen(await get(readKey, `${C}/reputation/${bob.account.address}/events`, header(carolToken)));
    expect(byWallet.status, byWallet.text).toBe(200);
    expect(byWallet.body).toMatchObject({ subjectId: identitySubject, filter: 'all_linked', walletAddress: lower(bob.account.address), limit: 50, offset: 0 });
    expect(byWallet.body.events.map((e: { reason: string }) => e.reason)).toEqual(expect.arrayContaining(['SUBJECT_FORMED', 'IDENTITY_LINKED', 'TRADING_RECORD', 'TRADES']));
    const bobsOnly = seen(await get(readKey, `${C}/reputation/${bob.account.address}/events?filter=this_wallet&limit=1&offset=1`, header(carolToken)));
    expect(bobsOnly.body).toMatchObject({ filter: 'this_wallet', limit: 1, offset: 1, hasMore: true, events: [{ walletAddress: lower(bob.account.address) }] });
    // By subject, the cookie scheme: this_wallet is the signed-in wallet.
    const cookie = { cookie: `svc_session=${carolToken}` };
    const bySubject = seen(await get(readKey, `${C}/reputation/subjects/${identitySubject}/events?filter=this_wallet`, cookie));
    expect(bySubject.body).toMatchObject({ walletAddress: lower(carol.account.address), events: [] });
    expect((await get(readKey, `${C}/reputation/subjects/${identitySubject}/events`, cookie)).body.events.length).toBe(byWallet.body.events.length);

    // Another wallet, signed in: 403 on both; no session: 401; an unknown subject: 404.
    const aliceToken = await session(alice);
    for (const url of [`${C}/reputation/${bob.account.address}/events`, `${C}/reputation/subjects/${identitySubject}/events`]) {
      const forbidden = await get(readKey, url, header(aliceToken));
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.code).toBe('FORBIDDEN');
      const anonymous = await get(readKey, url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('WALLET_AUTH_REQUIRED');
    }
    expect((await get(readKey, `${C}/reputation/subjects/rs1_nothing/events`, header(aliceToken))).body.code).toBe('NOT_FOUND');
    const stranger = newAccount().address;
    expect((await get(readKey, `${C}/reputation/${stranger}/events`, header(aliceToken))).body.code).toBe('NOT_FOUND');
    // The consumer OpenAPI names both schemes on the trails.
    const doc = (await server.call('GET', `${C}/openapi.json`)).body;
    expect(doc.paths['/api/v1/reputation/{walletAddress}/events'].get.security).toEqual(
      expect.arrayContaining([expect.objectContaining({ cookieAuth: [] }), expect.objectContaining({ developerAuthHeader: [] })]),
    );
  });

  it('a wallet linked with a restricted one shares its restriction; linking never lifts it, not even before the fold', async () => {
    const dave = await registerWallet(server, undefined, 'rep-dave');
    const code = (await post(creator.key, '/identity/link-code')).body.code;
    const consent = (await post(dave.key, '/identity/link-consent', { code })).body.consent.id;
    expect((await post(creator.key, '/identity/approve-links', { consentIds: [consent] })).status).toBe(200);
    // Before the fold the creator's gates still follow the subject it is recorded under.
    expect((await server.runtime.services.reputation.walletGates(creator.account.address)).tier).toBe('restricted');
    await fold();
    const rep = seen(await get(readKey, `/reputation/wallet/${dave.account.address}`));
    expect(rep.body).toMatchObject({ subjectKind: 'identity', tier: 'restricted', gates: { maxLiveMarkets: 2, mayVote: false } });
    expect((await get(dave.key, '/me')).body.fills.freePerMonth).toBe(2);
  });
});

describe('reads that carry tiers', () => {
  it('profiles: the track record and the tier of a counterparty', async () => {
    const profile = seen(await get(readKey, `/profile/${creator.account.address}`));
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body).toMatchObject({
      chainId: server.config.chain.id,
      agent: { name: 'rep-creator', label: null },
      trackRecord: { marketsCreated: 3, marketsResolved: 1, marketsResolvedClean: 0, marketsLive: 1, disputes: { lost: 1, creatorAbsences: 0 }, trades: 2 },
      reputation: { tier: 'restricted' },
    });
    const traderProfile = seen(await get(readKey, `/profile/${trader.account.address}`));
    expect(traderProfile.body.trackRecord).toMatchObject({ trades: 1, volume: [{ symbol: 'USDC', trades: 1 }] });
    expect(seen(await get(readKey, `/profile/${alice.account.address}`)).body.trackRecord).toMatchObject({ marketsCreated: 1, trades: 12, volume: [{ symbol: 'PLAY', trades: 12, volume: '101000000' }] });
    const nobody = seen(await get(readKey, `/profile/${newAccount().address}`));
    expect(nobody.body).toMatchObject({ agent: null, reputation: null, trackRecord: { marketsCreated: 0, trades: 0, volume: [] } });
  });

  it('comments carry the author\'s position and tier', async () => {
    await addComment(server.runtime.database.db, server.runtime.clock, { market: m1, author: trader.account.address, body: 'I bought Yes early.', chainId: server.config.chain.id });
    await addComment(server.runtime.database.db, server.runtime.clock, { market: m1, author: alice.account.address, body: 'Interesting market.', chainId: server.config.chain.id });
    const comments = seen(await get(readKey, `/discover/markets/${m1}/comments`));
    expect(comments.status, comments.text).toBe(200);
    const [byAlice, byTrader] = comments.body.comments;
    expect(byAlice.reputation).toEqual({ subjectId: subjectIdOf(`wallet:${lower(alice.account.address)}`), tier: 'established' });
    expect(byTrader.reputation).toMatchObject({ tier: 'new' });
    expect(byTrader.position[0]).toBe(parseUnits('10', 6).toString());
  });

  it('leaderboards answer rank and tier only, by role and period', async () => {
    const overall = seen(await get(readKey, `${C}/reputation/leaderboard`));
    expect(overall.body).toMatchObject({ role: 'overall', period: 'all', limit: 50, offset: 0, hasMore: false });
    const entries = overall.body.entries as { rank: number; tier: string; subjectId: string }[];
    expect(entries.map((e) => e.rank)).toEqual(entries.map((_, i) => i + 1));
    for (const e of entries) expect(Object.keys(e).sort()).toEqual(['rank', 'subjectId', 'tier', 'walletAddress']);
    const order = ['trusted', 'established', 'new', 'restricted'];
    expect(entries.map((e) => order.indexOf(e.tier))).toEqual([...entries.map((e) => order.indexOf(e.tier))].sort((a, b) => a - b));
    expect(entries[0]!.tier).toBe('established');
    expect(entries.at(-1)!.tier).toBe('restricted');
    // A subject's rank is its place there.
    const aliceRep = (await get(readKey, `/reputation/wallet/${alice.account.address}`)).body;
    expect(entries[aliceRep.rank - 1]!.subjectId).toBe(aliceRep.subjectId);

    for (const period of ['7d', '30d', 'all']) {
      const traders = seen(await get(readKey, `/reputation/leaderboard?role=trader&period=${period}`));
      const top = traders.body.entries.slice(0, 2).map((e: { subjectId: string }) => e.subjectId);
      expect(top.sort()).toEqual([aliceRep.subjectId, (await get(readKey, `/reputation/wallet/${bob.account.address}`)).body.subjectId].sort());
      const jurors = seen(await get(readKey, `/reputation/leaderboard?role=juror&period=${period}`));
      expect(jurors.body.entries.map((e: { walletAddress: string }) => e.walletAddress).sort()).toEqual(voters.map((v) => lower(v.account.address)).sort());
      expect(jurors.body.total).toBe(2);
    }
    const page = seen(await get(readKey, '/reputation/leaderboard?role=overall&limit=1&offset=1'));
    expect(page.body).toMatchObject({ limit: 1, offset: 1, hasMore: true, entries: [{ rank: 2, subjectId: entries[1]!.subjectId }] });
    const far = await get(readKey, `/reputation/leaderboard?offset=${Number.MAX_SAFE_INTEGER}`);
    expect(far.body).toMatchObject({ entries: [], hasMore: false });
  });

  it('reads by agent and in batch; /discover/reputation and /me carry the same view', async () => {
    const byAgent = seen(await get(readKey, `/reputation/agents/${bob.agentId}`));
    expect(byAgent.body).toMatchObject({ agentId: bob.agentId, subjectKind: 'identity', walletAddress: lower(bob.account.address) });
    const stranger = newAccount().address;
    const batch = seen(await server.call('POST', `${A}/reputation/batch`, { key: readKey, body: { walletAddresses: [creator.account.address, stranger, creator.account.address] } }));
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.reputations.map((r: { reputation: { tier: string } | null }) => r.reputation?.tier ?? null)).toEqual(['restricted', null, 'restricted']);
    const discovered = seen(await get(alice.key, '/discover/reputation'));
    const me = seen(await get(alice.key, '/me'));
    expect(me.body.reputation).toEqual(discovered.body);
    expect(discovered.body).toMatchObject({ tier: 'established', walletAddress: lower(alice.account.address) });
    const keyOnly = await server.key('read-only', ['markets:read']);
    expect((await get(keyOnly, '/discover/reputation')).body.code).toBe('FORBIDDEN');
  });

  it('no body ever carries a score', async () => {
    const keys = new Set<string>();
    const views: object[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        if ('gates' in v && 'subjectId' in v) views.push(v);
        for (const [k, x] of Object.entries(v)) {
          keys.add(k);
          walk(x);
        }
      }
    };
    bodies.forEach(walk);
    expect(bodies.length).toBeGreaterThan(25);
    expect([...keys].filter((k) => /score|standing|points|weight/i.test(k))).toEqual([]);
    // Nor a value of the hidden standings: every reputation view, wherever it is nested, carries exactly these fields.
    expect(views.length).toBeGreaterThan(15);
    for (const v of views) expect(Object.keys(v).sort()).toEqual(expect.arrayContaining(['gates', 'rank', 'subjectId', 'tier']));
    for (const v of views) expect(Object.keys(v).filter((k) => !['subjectId', 'subjectKind', 'walletAddress', 'linkedWalletCount', 'tier', 'tierSince', 'rank', 'gates', 'updatedAt', 'agentId'].includes(k))).toEqual([]);
  });
});

describe('limits and codes', () => {
  it('pages, ids and bodies outside the spec limits are refused with their code', async () => {
    const code = async (path: string, key = readKey) => (await server.call('GET', path.startsWith('/api') ? path : `${A}${path}`, { key, unchecked: true })).body.code;
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'offset=-1', `offset=${Number.MAX_SAFE_INTEGER + 1}`, 'role=judge', 'period=1y', 'sort=PNL']) {
      expect(await code(`/reputation/leaderboard?${q}`), q).toBe('INVALID_QUERY');
    }
    for (const q of ['limit=0', 'limit=101', 'offset=-1', `offset=${Number.MAX_SAFE_INTEGER + 1}`, 'role=overall']) expect(await code(`${C}/reputation/leaderboard?${q}`), q).toBe('INVALID_QUERY');
    expect((await get(readKey, `${C}/reputation/leaderboard?limit=100&offset=0`)).status).toBe(200);
    expect(await code('/reputation/me/events?filter=everything', bob.key)).toBe('INVALID_QUERY');
    expect(await code('/reputation/me/events?limit=101', bob.key)).toBe('INVALID_QUERY');
    // Path ids: an EvmAddress, a subjectId of 1..256, an agentId of 1..128.
    expect(await code('/reputation/wallet/0x1234')).toBe('INVALID_ID');
    expect(await code(`${C}/reputation/0x1234`)).toBe('INVALID_ID');
    expect(await code(`/reputation/subjects/${'s'.repeat(256)}`)).toBe('NOT_FOUND');
    expect(await code(`/reputation/subjects/${'s'.repeat(257)}`)).toBe('INVALID_ID');
    expect(await code(`${C}/reputation/subjects/${'s'.repeat(257)}`)).toBe('INVALID_ID');
    expect(await code(`/reputation/agents/${'a'.repeat(128)}`)).toBe('NOT_FOUND');
    expect(await code(`/reputation/agents/${'a'.repeat(129)}`)).toBe('INVALID_ID');
    expect(await code(`/reputation/wallet/${newAccount().address}`)).toBe('NOT_FOUND');
    expect(await code(`/profile/0xnope`)).toBe('INVALID_ID');
    // The batch: 1..100 wallets, no other fields.
    const batch = async (body: unknown) => (await server.call('POST', `${A}/reputation/batch`, { key: readKey, body, unchecked: true })).body.code;
    expect(await batch({ walletAddresses: [] })).toBe('INVALID_PAYLOAD');
    expect(await batch({ walletAddresses: Array.from({ length: 101 }, () => newAccount().address) })).toBe('INVALID_PAYLOAD');
    expect(await batch({ walletAddresses: ['0x12'] })).toBe('INVALID_PAYLOAD');
    expect(await batch({ walletAddresses: [newAccount().address], extra: 1 })).toBe('INVALID_PAYLOAD');
    const hundred = await server.call('POST', `${A}/reputation/batch`, { key: readKey, body: { walletAddresses: Array.from({ length: 100 }, () => newAccount().address) } });
    expect(hundred.status).toBe(200);
    expect(hundred.body.reputations).toHaveLength(100);
    // Keyless reads are refused: every reputation read needs an API key.
    expect((await server.call('GET', `${C}/reputation/leaderboard`, { unchecked: true })).body.code).toBe('API_KEY_REQUIRED');
  });

  it('every read is an MCP tool on the agent surface', async () => {
    const capabilities = (await server.call('GET', `${A}/discover/capabilities`)).body.capabilities.map((c: { name: string }) => c.name);
    expect(capabilities).toEqual(
      expect.arrayContaining([
        'GET /reputation/wallet/:walletAddress',
        'GET /reputation/subjects/:subjectId',
        'GET /reputation/agents/:agentId',
        'GET /reputation/leaderboard',
        'POST /reputation/batch',
        'GET /reputation/me/events',
        'GET /discover/reputation',
        'GET /profile/:address',
      ]),
    );
    const restOnly = (await server.call('GET', `${A}/mcp-discovery`)).body.surfacePolicy.intentionalRestOnly.map((r: { capability: string }) => r.capability);
    expect(restOnly.filter((c: string) => /reputation|profile/.test(c))).toEqual([]);
  });
});

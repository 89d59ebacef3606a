// The resolution reads on a real chain and database: one market's resolution with the actions open to each caller as
// it moves from created (open, then closed) through proposed, disputed, voting and council to resolved (a creator, a stranger, a verified
// human, a wallet linked under that human's identity, a council member, nobody); the queue listing a creator's due
// proposals, a voter's open session, a council member's review and, on request, what anyone may finalize, each
// dropped once acted on; and the resolutionSource catalog. Chain time by evm_increaseTime; the keeper runs only when
// the test says so.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { ballotTypedData } from '../../src/core/resolution/votes.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendTx, tokens } from '../support/markets.ts';

const clock = new ManualClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', VOTE_QUORUM: '2' } });
  // The keeper acts when the test calls runOnce, never on its own timer in the middle of a step.
  await server.runtime.services.resolutionKeeper.stop();
});
afterAll(async () => server?.close());

const A = '/api/agent/v1';
const abi = loadArtifact('MarketResolver').abi;
const resolver = () => server.runtime.services.chain.lane().resolver;
const sync = () => server.runtime.services.indexer.syncNow();
const call = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi, functionName, args } as never) as Hex;
const later = async (seconds: number) => {
  await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [seconds]);
  await rpc(server.runtime.rpcUrl, 'evm_mine');
};
let ops = 0;
const asOperator = (functionName: string, args: readonly unknown[]) =>
  server.runtime.relayer.send({ operationId: `test:reads:${++ops}:${functionName}`, idempotencyKey: `test:reads:${ops}`, to: resolver(), data: call(functionName, args) });
let idem = 0;
const post = (key: string, path: string, body?: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: `reads-${++idem}` });

type Action = { action: string; available: boolean; reason: string | null; method: string; path: string; tool: string };
const stateOf = async (market: string, key?: string) => {
  const res = await server.call('GET', `${A}/markets/${market}/resolution`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const actionsOf = async (market: string, key?: string): Promise<Record<string, Action>> => Object.fromEntries(((await stateOf(market, key)).actions as Action[]).map((a) => [a.action, a]));
const open = async (market: string, key?: string) => Object.entries(await actionsOf(market, key)).filter(([, a]) => a.available).map(([name]) => name).sort();
const queue = async (key: string, query = ''): Promise<{ marketAddress: string; action: string; dueBy: string | null; sessionId: string | null; question: string }[]> => {
  const res = await server.call('GET', `${A}/resolution/queue${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
};
const entries = (items: { marketAddress: string; action: string }[]) => items.map((i) => `${i.action} ${i.marketAddress}`);

describe('resolution reads', () => {
  it('show each caller the actions open to it, and queue them, as a market moves from creation to the council', async () => {
    const chainId = server.config.chain.id;
    const creator = await registerWallet(server, undefined, 'reads-creator');
    await gas(server, creator.account.address);
    await fund(server, creator.account.address);
    const stranger = await registerWallet(server, undefined, 'reads-stranger');
    await gas(server, stranger.account.address);
    await fund(server, stranger.account.address, { usdc: 0n, pm: parseUnits('100000', 18) });
    const closeTime = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const address = ((await createMarket(server, creator.key, creator.account, { closeTime })).market.address as string).toLowerCase();
    const second = ((await createMarket(server, creator.key, creator.account, { closeTime, question: 'Will the second test market resolve to Yes this year?' })).market.address as string).toLowerCase();
    const third = ((await createMarket(server, creator.key, creator.account, { closeTime, question: 'Will the third test market resolve to Yes this year?', resolutionSource: 'The final league table as published by the league' }))
      .market.address as string).toLowerCase();
    await sync();

    // Created: nothing on chain. Nobody signed in may finalize or challenge nothing; the wallet-bound actions need a key.
    const fresh = await stateOf(address);
    expect(fresh).toMatchObject({ market: address, chainId, state: 'open', phase: null, proposal: null, challenge: null, session: null, finalOutcome: null, creatorSlashed: null, resolver: resolver().toLowerCase() });
    expect(fresh.council).toEqual({ phase: null, threshold: 1, members: [server.runtime.operator.toLowerCase()], signatures: [] });
    const anonymous = await actionsOf(address);
    expect(Object.keys(anonymous)).toEqual(['propose', 'challenge', 'finalize', 'vote', 'council_sign']);
    for (const name of ['propose', 'vote', 'council_sign']) expect(anonymous[name]).toMatchObject({ available: false, reason: 'sign in with a key whose agent has a bound wallet' });
    expect(anonymous.finalize!.reason).toMatch(/nothing is proposed yet/);
    expect(anonymous.propose).toMatchObject({ method: 'POST', path: `${A}/markets/${address}/resolution/propose`, tool: 'svc_markets_resolution_propose' });
    expect(anonymous.challenge).toMatchObject({ path: `${A}/markets/${address}/resolution/challenge/prepare`, tool: 'svc_markets_resolution_challenge_prepare' });
    expect(anonymous.vote).toMatchObject({ path: `${A}/resolution/votes/:sessionId/ballots`, tool: 'svc_resolution_votes_ballots' });
    expect(await open(address, creator.key)).toEqual(['propose']);
    expect((await actionsOf(address, stranger.key)).propose!.reason).toBe(`only the market's creator (${creator.account.address.toLowerCase()}) proposes`);

    // Open, a proposal is possible (early resolution) but not due: the queue is empty until close time.
    expect(await queue(creator.key)).toEqual([]);
    clock.advance(3_660_000);
    await later(3_660);
    await server.runtime.services.lifecycle.tick();
    expect((await stateOf(address)).state).toBe('closed');

    // The creator's queue holds the three proposals it owes, the earliest resolveBy first; nobody else's does.
    const owed = await queue(creator.key);
    expect(owed.map((i) => i.action)).toEqual(['propose', 'propose', 'propose']);
    expect(owed.map((i) => i.marketAddress).sort()).toEqual([address, second, third].sort());
    expect(owed.map((i) => i.dueBy!)).toEqual(owed.map((i) => i.dueBy!).sort());
    const resolveBy = fresh.deadlines.resolveBy as string;
    expect(owed.find((i) => i.marketAddress === address)).toEqual({ chainId, marketAddress: address, question: 'Will the test market resolve to Yes by the end of the year?', action: 'propose', dueBy: resolveBy, sessionId: null });
    expect(await queue(stranger.key)).toEqual([]);
    expect(entries(await queue(creator.key, '?limit=1'))).toHaveLength(1);

    // Proposed: anyone may challenge until the deadline; finalize waits for it; the proposal leaves the creator's queue.
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [address, 1]) });
    await sendTx(server, creator.account, { to: resolver(), data: call('propose', [second, 1]) });
    await sync();
    const proposed = await stateOf(address, creator.key);
    expect(proposed).toMatchObject({ state: 'creator_proposal', phase: 'proposed', proposal: { outcome: 1, isVoid: false, proposer: creator.account.address.toLowerCase() }, challenge: null });
    expect(proposed.proposal.challengeDeadline).toBe(proposed.deadlines.challengeDeadline);
    expect(Date.parse(proposed.proposal.challengeDeadline) - Date.parse(proposed.proposal.proposedAt)).toBe(7_200_000);
    expect(await open(address)).toEqual(['challenge']);
    expect(await open(address, creator.key)).toEqual(['challenge']);
    const afterProposal = await actionsOf(address, creator.key);
    expect(afterProposal.propose!.reason).toBe('the resolution is already under way (proposed)');
    expect(afterProposal.finalize!.reason).toBe(`the challenge window is open until ${proposed.proposal.challengeDeadline}`);
    expect(entries(await queue(creator.key))).toEqual([`propose ${third}`]);
    expect(await queue(creator.key, '?includeAnyone=true')).toHaveLength(1); // nothing to finalize yet

    // Disputed: the stranger posts the bond; nothing is open until the vote.
    await sendTx(server, stranger.account, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver(), maxUint256] }) });
    await sendTx(server, stranger.account, { to: resolver(), data: call('challenge', [address, 2]) });
    await sync();
    const disputed = await stateOf(address);
    const bond = (await server.runtime.services.chain.client.readContract({ address: resolver(), abi, functionName: 'challengeBond' })) as bigint;
    expect(disputed).toMatchObject({ state: 'challenge', phase: 'disputed', challenge: { challenger: stranger.account.address.toLowerCase(), counterOutcome: 2, bond: bond.toString() } });
    expect(await open(address, stranger.key)).toEqual([]);

    // Voting: a verified human may vote once per identity (a linked wallet shares it); an unverified one may not.
    expect(await server.runtime.services.resolutionKeeper.runOnce()).toContain(`openVote ${address}`);
    await sync();
    const sessionId = `${chainId}:${address}:1`;
    const [alice, bob, dave] = await Promise.all(['alice', 'bob', 'dave'].map((n) => registerWallet(server, undefined, `reads-voter-${n}`)));
    const code = (await post(alice!.key, '/identity/link-code')).body.code;
    const consent = (await post(bob!.key, '/identity/link-consent', { code })).body.consent.id;
    expect((await post(alice!.key, '/identity/approve-links', { consentIds: [consent] })).status).toBe(200);
    await server.runtime.services.humans.attest(alice!.account.address, 'test');
    const voting = await stateOf(address, alice!.key);
    expect(voting).toMatchObject({ state: 'human_voting', phase: 'voting', session: { sessionId, round: 1, status: 'open', ballotCount: 0, quorum: 2 } });
    expect(voting.deadlines.voteDeadline).toBe(voting.session.voteDeadline);
    const aliceActions = Object.fromEntries((voting.actions as Action[]).map((a) => [a.action, a]));
    expect(aliceActions.vote).toMatchObject({ available: true, reason: null, path: `${A}/resolution/votes/${sessionId}/ballots`, tool: 'svc_resolution_votes_ballots' });
    expect(await open(address, bob!.key)).toEqual(['vote']); // linked under alice's verified identity
    expect((await actionsOf(address, dave!.key)).vote!.reason).toMatch(/not a verified human/);
    expect(await queue(alice!.key)).toEqual([{ chainId, marketAddress: address, question: 'Will the test market resolve to Yes by the end of the year?', action: 'vote', dueBy: voting.session.voteDeadline, sessionId }]);
    expect(await queue(dave!.key)).toEqual([]);

    const signature = await alice!.account.signTypedData(ballotTypedData(chainId, resolver(), { market: address as Address, round: 1, outcome: 2 }));
    expect((await post(alice!.key, `/resolution/votes/${sessionId}/ballots`, { walletAddress: alice!.account.address, outcome: 2, signature })).status).toBe(201);
    expect((await actionsOf(address, alice!.key)).vote!.reason).toBe('your identity already voted in round 1');
    expect((await actionsOf(address, bob!.key)).vote!.reason).toBe('your identity already voted in round 1');
    expect(await queue(alice!.key)).toEqual([]);
    expect((await stateOf(address)).session).toMatchObject({ status: 'open', ballotCount: 1 });

    // A day later (chain time): the round is over, and the unchallenged second proposal is anyone's to finalize.
    await later(86_401);
    expect((await actionsOf(address, alice!.key)).vote!.reason).toMatch(/^round 1 closed at .*; its verdict is being recorded$/);
    expect(await open(second)).toEqual(['finalize']);
    expect((await actionsOf(second)).challenge!.reason).toMatch(/^the challenge window closed at /);
    expect(entries(await queue(stranger.key, '?includeAnyone=true'))).toEqual([`finalize ${second}`]);
    expect(await queue(stranger.key)).toEqual([]);

    // One ballot of a quorum of two: no quorum, and the council reviews. The keeper also finalizes the second market.
    expect((await server.runtime.services.resolutionKeeper.runOnce()).sort()).toEqual([`finalize ${second}`, `recordVerdict ${address}`].sort());
    await sync();
    expect(await queue(stranger.key, '?includeAnyone=true')).toEqual([]);
    const council = await stateOf(address);
    expect(council).toMatchObject({ state: 'council_review', phase: 'council', session: { status: 'closed', ballotCount: 1 }, council: { phase: 'opened', signatures: [] } });
    expect((await actionsOf(address, alice!.key)).vote!.reason).toBe('the resolution is council: ballots are cast while a vote round is open');

    // A council of one member of our own (threshold 1): its key may sign, until it has.
    const member = privateKeyToAccount(generatePrivateKey());
    const memberAgent = await registerWallet(server, member, 'reads-council');
    expect((await asOperator('setCouncil', [[member.address], 1n])).state).toBe('confirmed');
    expect((await stateOf(address)).council).toMatchObject({ phase: 'opened', threshold: 1, members: [member.address.toLowerCase()] });
    expect(await open(address, memberAgent.key)).toEqual(['council_sign']);
    expect((await actionsOf(address, memberAgent.key)).council_sign).toMatchObject({ path: `${A}/markets/${address}/resolution/council-signatures`, tool: 'svc_markets_resolution_council_signatures' });
    expect((await actionsOf(address, stranger.key)).council_sign!.reason).toBe('none of your wallets is a member of the council');
    expect(entries(await queue(memberAgent.key))).toEqual([`council_sign ${address}`]);

    // The member's signature is kept (as the council-signatures action keeps it): the threshold is met, not yet executed.
    const domain = { name: 'MarketResolver', version: '1', chainId, verifyingContract: resolver() };
    const types = { CouncilDecision: [{ name: 'market', type: 'address' }, { name: 'outcome', type: 'uint8' }, { name: 'round', type: 'uint8' }] } as const;
    const decision = await member.signTypedData({ domain, types, primaryType: 'CouncilDecision', message: { market: address as Address, outcome: 2, round: 1 } });
    const signedAt = new Date();
    await server.runtime.database.db
      .insertInto('council_signatures')
      .values({ chain_id: chainId, market: address, round: 1, signer: member.address.toLowerCase(), outcome: 2, signature: decision.toLowerCase(), signed_at: signedAt })
      .execute();
    const decided = await stateOf(address, memberAgent.key);
    expect(decided.council).toEqual({ phase: 'decided', threshold: 1, members: [member.address.toLowerCase()], signatures: [{ signer: member.address.toLowerCase(), outcome: 2, signedAt: signedAt.toISOString() }] });
    expect((decided.actions as Action[]).find((a) => a.action === 'council_sign')!.reason).toBe('your council wallets already signed in round 1');
    expect(await queue(memberAgent.key)).toEqual([]);

    // Executed on chain: resolved on the council's outcome, the creator slashed (its proposal overturned).
    expect((await asOperator('councilDecide', [address, 2, [{ signer: member.address, signature: decision }]])).state).toBe('confirmed');
    await sync();
    const resolved = await stateOf(address, memberAgent.key);
    expect(resolved).toMatchObject({ state: 'resolved', phase: 'resolved', finalOutcome: 2, creatorSlashed: true, council: { phase: 'executed' } });
    expect((resolved.actions as Action[]).filter((a) => a.available)).toEqual([]);

    // The third market's creator lets resolveBy pass: proposing is over, and it leaves the queue.
    expect(entries(await queue(creator.key))).toEqual([`propose ${third}`]);
    const thirdResolveBy = (await stateOf(third)).deadlines.resolveBy as string;
    await later(Math.ceil((Date.parse(thirdResolveBy) - Date.parse((await stateOf(third)).chainTime)) / 1000) + 60);
    expect((await actionsOf(third, creator.key)).propose!.reason).toBe(`resolveBy ${thirdResolveBy} passed without a proposal: the human vote decides (absent creator)`);
    expect(await queue(creator.key)).toEqual([]);

    // The catalog: the two example.org markets and the one described in words, none open any more.
    const sources = await server.call('GET', `${A}/resolution/sources`);
    expect(sources.status, sources.text).toBe(200);
    expect(sources.body.accepted).toMatchObject({ minLength: 3, maxLength: 500, description: expect.stringContaining('https://') });
    expect(sources.body).toMatchObject({
      chainId,
      sources: [
        { source: 'example.org', kind: 'url', marketCount: 2, openMarketCount: 0, exampleMarket: { address: second, resolutionSource: 'https://example.org/resolution' } },
        { source: 'text', kind: 'text', marketCount: 1, openMarketCount: 0, exampleMarket: { address: third, question: 'Will the third test market resolve to Yes this year?', resolutionSource: 'The final league table as published by the league' } },
      ],
    });
  });

  it('refuses an unknown market, another chain, a malformed address and unknown or out-of-range query fields', async () => {
    const key = (await registerWallet(server, undefined, 'reads-errors')).key;
    const code = (res: CallResult) => [res.status, res.body.code];
    expect(code(await server.call('GET', `${A}/markets/0x${'ab'.repeat(20)}/resolution`))).toEqual([404, 'MARKET_NOT_FOUND']);
    expect(code(await server.call('GET', `${A}/markets/0x${'ab'.repeat(20)}/resolution?chainId=1`))).toEqual([400, 'UNSUPPORTED_CHAIN']);
    expect(code(await server.call('GET', `${A}/markets/not-an-address/resolution`))).toEqual([400, 'INVALID_ID']);
    expect(code(await server.call('GET', `${A}/markets/0x${'ab'.repeat(20)}/resolution?round=1`))).toEqual([400, 'INVALID_QUERY']);
    expect(code(await server.call('GET', `${A}/resolution/queue?unknown=1`, { key }))).toEqual([400, 'INVALID_QUERY']);
    expect(code(await server.call('GET', `${A}/resolution/queue?limit=0`, { key }))).toEqual([400, 'INVALID_QUERY']);
    expect(code(await server.call('GET', `${A}/resolution/queue?limit=201`, { key }))).toEqual([400, 'INVALID_QUERY']);
    expect(code(await server.call('GET', `${A}/resolution/queue?includeAnyone=yes`, { key }))).toEqual([400, 'INVALID_QUERY']);
    expect((await server.call('GET', `${A}/resolution/queue`)).status).toBe(401);
    expect(code(await server.call('GET', `${A}/resolution/sources?kind=url`))).toEqual([400, 'INVALID_QUERY']);
    // An operator key (no agent, no wallet) has nothing queued and may propose nothing.
    const operatorKey = await server.key('read-only');
    expect(await queue(operatorKey)).toEqual([]);
  });
});

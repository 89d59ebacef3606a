// The human vote end to end on a real chain: a disputed market's round opened by the keeper, ballots from verified
// humans (one per identity: a linked wallet is refused; an unverified one too; a bad signature; after the deadline),
// the published session, and the verdict the keeper records at the deadline, committing to the ballots, which
// resolves the market. The commitment recomputed from the published ballots equals the one on chain.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ballotsRoot, ballotTypedData } from '../../src/core/resolution/votes.ts';
import { recountVotes } from '../../src/services/resolution/recount.ts';
import { runSvc } from '../cli/svc-process.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendTx, tokens } from '../support/markets.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', VOTE_QUORUM: '2' } });
});
afterAll(async () => server?.close());

const abi = loadArtifact('MarketResolver').abi;
const A = '/api/agent/v1';
let idem = 0;
const post = (key: string, path: string, body?: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: `vote-${++idem}` });
const sync = () => server.runtime.services.indexer.syncNow();
const call = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi, functionName, args } as never) as Hex;

/** A market its creator proposed 1 on, challenged with 2, with vote round 1 opened by the keeper. */
async function disputedMarket(name: string): Promise<Address> {
  const resolver = server.runtime.services.chain.lane().resolver;
  const creator = await registerWallet(server, undefined, name);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  const { market } = await createMarket(server, creator.key, creator.account);
  const address = (market.address as string).toLowerCase() as Address;
  await sync();
  const challenger = privateKeyToAccount(generatePrivateKey());
  await gas(server, challenger.address);
  await fund(server, challenger.address, { usdc: 0n, pm: parseUnits('100000', 18) });
  await sendTx(server, challenger, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver, maxUint256] }) });
  await sendTx(server, creator.account, { to: resolver, data: call('propose', [address, 1]) });
  await sendTx(server, challenger, { to: resolver, data: call('challenge', [address, 2]) });
  await sync();
  expect(await server.runtime.services.resolutionKeeper.runOnce()).toEqual([`openVote ${address}`]);
  await sync();
  return address;
}

describe('human votes', () => {
  it('one ballot per verified identity until the deadline; the keeper records the binding verdict that resolves the market', async () => {
    const { chain, humans, resolutionKeeper } = server.runtime.services;
    const resolver = chain.lane().resolver;
    const address = await disputedMarket('vote-creator');
    const sessionId = `${server.config.chain.id}:${address}:1`;

    // Voters: alice (verified) and bob linked under her identity; carol verified on her own; dave not verified.
    const [alice, bob, carol, dave] = await Promise.all(['alice', 'bob', 'carol', 'dave'].map((n) => registerWallet(server, undefined, `voter-${n}`)));
    const code = (await post(alice!.key, '/identity/link-code')).body.code;
    const consent = (await post(bob!.key, '/identity/link-consent', { code })).body.consent.id;
    expect((await post(alice!.key, '/identity/approve-links', { consentIds: [consent] })).status).toBe(200);
    await humans.attest(alice!.account.address, 'test');
    await humans.attest(carol!.account.address, 'test');
    const ballot = async (voter: typeof alice, outcome: number, signedOutcome = outcome) => {
      const signature = await voter!.account.signTypedData(ballotTypedData(server.config.chain.id, resolver, { market: address, round: 1, outcome: signedOutcome }));
      return post(voter!.key, `/resolution/votes/${sessionId}/ballots`, { walletAddress: voter!.account.address, outcome, signature });
    };

    const first = await ballot(alice, 2);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ sessionId, wallet: alice!.account.address.toLowerCase(), outcome: 2, identityKey: expect.stringMatching(/^identity:/) });
    expect((await ballot(bob, 1)).body.code).toBe('ALREADY_VOTED'); // linked: one vote between them
    expect((await ballot(dave, 2)).body.code).toBe('HUMAN_VERIFICATION_REQUIRED');
    expect((await ballot(carol, 2, 1)).body.code).toBe('BALLOT_SIGNATURE_INVALID'); // signed another outcome
    expect((await ballot(carol, 3)).body.code).toBe('INVALID_PAYLOAD'); // a binary market
    expect((await ballot(carol, 2)).status).toBe(201);
    const open = await server.call('GET', `${A}/resolution/votes/${sessionId}`);
    expect(open.body).toMatchObject({ status: 'open', round: 1, quorum: 2, verdict: null, resolver: resolver.toLowerCase() });
    expect(open.body.ballots).toHaveLength(2);

    // The deadline passes (chain time): no more ballots; the keeper counts and records.
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [86_401]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    expect((await ballot(dave, 2)).body.code).toBe('VOTE_CLOSED');
    expect((await server.call('GET', `${A}/resolution/votes/${sessionId}`)).body.status).toBe('counting');
    expect(await resolutionKeeper.runOnce()).toEqual([`recordVerdict ${address}`]);
    await sync();
    const closed = (await server.call('GET', `${A}/resolution/votes/${sessionId}`)).body;
    expect(closed).toMatchObject({ status: 'closed', verdict: { kind: 'binding', ballotCount: 2 } });
    const state = await server.runtime.database.db.selectFrom('markets').select('state').where('address', '=', address).executeTakeFirstOrThrow();
    expect(state.state).toBe('resolved');

    // Anyone's recount: the commitment of the published ballots is the one the resolver holds.
    const record = (await chain.client.readContract({ address: resolver, abi, functionName: 'resolutionOf', args: [address] })) as { ballotRoot: string; finalOutcome: number; creatorSlashed: boolean };
    expect(ballotsRoot(closed.ballots)).toBe(record.ballotRoot);
    expect(closed.verdict.ballotRoot).toBe(record.ballotRoot);
    expect(record).toMatchObject({ finalOutcome: 2, creatorSlashed: true });
    const events = await server.runtime.database.db.selectFrom('events').select(['type', 'payload']).where('market_address', '=', address).where('type', 'in', ['market.voteClosed', 'market.disputeFinalized', 'market.resolved']).orderBy('seq').execute();
    expect(events).toEqual([
      { type: 'market.voteClosed', payload: { sessionId, verdictKind: 'binding', outcome: 2 } },
      { type: 'market.disputeFinalized', payload: { finalOutcome: 2, creatorSlashed: true } },
      { type: 'market.resolved', payload: { outcome: 2, isVoid: false } },
    ]);
    expect((await server.call('GET', `${A}/resolution/votes/${server.config.chain.id}:0x${'0'.repeat(40)}:1`)).body.code).toBe('VOTE_SESSION_NOT_FOUND');

    // The recount command, against the running service and the chain, agrees; a tampered published ballot fails it.
    const api = await server.runtime.listen();
    const verified = await runSvc(['resolution', 'verify', address, '--api', api, '--rpc', server.runtime.rpcUrl], {});
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain('round 1: chain binding 2, 2 ballots');
    expect(verified.stdout).toContain(': ok');
    const fetchSession = async (id: string) => (await server.call('GET', `${A}/resolution/votes/${id}`)).body;
    const tampered = async (id: string) => {
      const s = await fetchSession(id);
      return { ...s, ballots: s.ballots.map((b: { outcome: number }, i: number) => (i === 0 ? { ...b, outcome: 1 } : b)) };
    };
    const good = await recountVotes({ client: chain.client, chainId: server.config.chain.id, fetchSession }, address);
    expect(good).toMatchObject({ ok: true, rounds: [{ round: 1, ok: true, problems: [] }] });
    const bad = await recountVotes({ client: chain.client, chainId: server.config.chain.id, fetchSession: tampered }, address);
    expect(bad.ok).toBe(false);
    expect(bad.rounds[0]!.problems.join('; ')).toMatch(/is not signed by it for outcome 1.*ballot commitment/);
    // A ballot tampered where it is published (the database behind the API): the command exits 1 and says why.
    await server.runtime.database.db.updateTable('vote_ballots').set({ outcome: 1 }).where('wallet_address', '=', alice!.account.address.toLowerCase()).execute();
    const refused = await runSvc(['resolution', 'verify', address, '--api', api, '--rpc', server.runtime.rpcUrl], {});
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('MISMATCH');
    expect(refused.stdout).toContain(`the ballot of ${alice!.account.address.toLowerCase()} is not signed by it for outcome 1`);
  });

  it('a tie for the most ballots is a deadlock: the keeper records it and the council takes the market', async () => {
    const { chain, humans, resolutionKeeper } = server.runtime.services;
    const resolver = chain.lane().resolver;
    const address = await disputedMarket('tie-creator');
    const sessionId = `${server.config.chain.id}:${address}:1`;
    // Two verified humans, one ballot each, for different outcomes: quorum (2) is met, nobody leads.
    const vote = async (voter: Awaited<ReturnType<typeof registerWallet>>, outcome: number) => {
      const signature = await voter.account.signTypedData(ballotTypedData(server.config.chain.id, resolver, { market: address, round: 1, outcome }));
      return post(voter.key, `/resolution/votes/${sessionId}/ballots`, { walletAddress: voter.account.address, outcome, signature });
    };
    const voters = [];
    for (const [name, outcome] of [['tie-yes', 1], ['tie-no', 2]] as const) {
      const voter = await registerWallet(server, undefined, name);
      await humans.attest(voter.account.address, 'test');
      expect((await vote(voter, outcome)).status).toBe(201);
      voters.push(voter);
    }
    // A wallet that voted, linked afterwards under another identity, is that identity's vote: its root cannot vote again.
    const root = await registerWallet(server, undefined, 'tie-root');
    await humans.attest(root.account.address, 'test');
    const code = (await post(root.key, '/identity/link-code')).body.code;
    const consent = (await post(voters[0]!.key, '/identity/link-consent', { code })).body.consent.id;
    expect((await post(root.key, '/identity/approve-links', { consentIds: [consent] })).status).toBe(200);
    expect((await vote(root, 2)).body.code).toBe('ALREADY_VOTED');
    // The keeper's count, taken while a ballot is on its way (its chain-time check passed): the ballot is refused, so
    // every published ballot is a counted one.
    expect(await server.runtime.services.votes.verdict(address, 1, 2)).toMatchObject({ kind: 'deadlock', ballotCount: 2 });
    const late = await registerWallet(server, undefined, 'tie-late');
    await humans.attest(late.account.address, 'test');
    expect((await vote(late, 1)).body).toMatchObject({ code: 'VOTE_CLOSED', detail: expect.stringContaining('was counted') });
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [86_401]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    expect(await resolutionKeeper.runOnce()).toEqual([`recordVerdict ${address}`]);
    await sync();
    const session = (await server.call('GET', `${A}/resolution/votes/${sessionId}`)).body;
    expect(session).toMatchObject({ status: 'closed', verdict: { kind: 'deadlock', ballotCount: 2 } });
    const state = await server.runtime.database.db.selectFrom('markets').select('state').where('address', '=', address).executeTakeFirstOrThrow();
    expect(state.state).toBe('council_review');
    const events = await server.runtime.database.db.selectFrom('events').select(['type', 'payload']).where('market_address', '=', address).where('type', 'in', ['market.voteClosed', 'market.councilReview']).orderBy('seq').execute();
    expect(events).toEqual([
      { type: 'market.voteClosed', payload: { sessionId, verdictKind: 'deadlock', outcome: null } },
      { type: 'market.councilReview', payload: { phase: 'opened' } },
    ]);
    const fetchSession = async (id: string) => (await server.call('GET', `${A}/resolution/votes/${id}`)).body;
    expect(await recountVotes({ client: chain.client, chainId: server.config.chain.id, fetchSession }, address)).toMatchObject({ ok: true });
  });
});

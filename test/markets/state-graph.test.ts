// Every edge of the state graph /discover/market-states publishes, walked through the real code: markets created on
// chain, closed by the scheduler, proposed early and late, challenged, voted on (a restart to round 2 included),
// escalated to the council and decided by council signatures (one signed by `svc resolution council-sign`), or voided
// by a reorg of their creation; two of them are order books (a dispute and vote, and the council). The transitions observed in the projection are exactly the graph's, and each one's
// event is in the outbox. Service time by the injected clock, chain time by evm_increaseTime.
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { TRANSITIONS } from '../../src/core/markets/states.ts';
import { ballotTypedData, councilDecisionTypedData } from '../../src/core/resolution/votes.ts';
import { runSvc } from '../cli/svc-process.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendTx, tokens } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { waitFor } from '../support/wait.ts';

const clock = new ManualClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', VOTE_QUORUM: '1' } });
});
afterAll(async () => server?.close());

const abi = loadArtifact('MarketResolver').abi;
const A = '/api/agent/v1';
let idem = 0;
const call = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi, functionName, args } as never) as Hex;

it('walks every edge of the published state graph through the service and the chain', async () => {
  const { chain, indexer, lifecycle, resolutionKeeper, resolutionActions, humans } = server.runtime.services;
  const db = server.runtime.database.db;
  const resolver = chain.lane().resolver;
  const chainId = server.config.chain.id;
  const both = async (seconds: number) => {
    clock.advance(seconds * 1000);
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [seconds]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
  };

  // What the projection shows, step by step: a change of state, or of vote round within human_voting, is an edge.
  const seen = new Map<string, { state: string; round: number }>();
  const edges = new Set<string>();
  const walked: { market: string; edge: string }[] = [];
  const observe = async () => {
    await indexer.syncNow();
    const rows = await db
      .selectFrom('markets as m')
      .leftJoin('market_resolutions as r', (j) => j.onRef('r.chain_id', '=', 'm.chain_id').onRef('r.market', '=', 'm.address'))
      .select(['m.address', 'm.state', 'r.vote_round'])
      .where('m.address', 'in', [...seen.keys()])
      .execute();
    for (const r of rows) {
      const before = seen.get(r.address)!;
      const now = { state: r.state, round: r.vote_round ?? 0 };
      if (before.state !== now.state || (now.state === 'human_voting' && before.round !== now.round)) {
        edges.add(`${before.state}->${now.state}`);
        walked.push({ market: r.address, edge: `${before.state}->${now.state}` });
      }
      seen.set(r.address, now);
    }
  };

  const creator = await registerWallet(server, undefined, 'graph-creator');
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  const closeTime = new Date(clock.now().getTime() + 2 * 3_600_000).toISOString();
  const create = async () => {
    const { market } = await createMarket(server, creator.key, creator.account, { closeTime });
    const address = (market.address as string).toLowerCase() as Address;
    seen.set(address, { state: 'open', round: 0 });
    return address;
  };
  // Order books resolve by the same machine: one goes through a dispute and a vote, one through the council.
  let books = 0;
  const createBook = async () => {
    const { address } = await createOrderBookMarket(server, creator, `Will order book ${++books} resolve through the graph?`, new Date(closeTime));
    seen.set(address, { state: 'open', round: 0 });
    return address as Address;
  };
  const propose = (market: Address, outcome: number) => sendTx(server, creator.account, { to: resolver, data: call('propose', [market, outcome]) });

  // open -> void: a reorg takes the creation away.
  const reorged = await create();
  await observe();
  await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
  await observe();
  expect(seen.get(reorged)!.state).toBe('void');

  const [early, earlyVoid, late, lateVoid, absent, absentVoid] = [await create(), await createBook(), await create(), await create(), await create(), await createBook()];
  await observe();

  // Early proposals (while open), both challenged; the keeper opens their votes; one is restarted to round 2.
  const challenger = privateKeyToAccount(generatePrivateKey());
  await gas(server, challenger.address);
  await fund(server, challenger.address, { usdc: 0n, pm: parseUnits('100000', 18) });
  await sendTx(server, challenger, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver, maxUint256] }) });
  for (const m of [early, earlyVoid]) await propose(m, 1);
  await observe();
  for (const m of [early, earlyVoid]) await sendTx(server, challenger, { to: resolver, data: call('challenge', [m, 2]) });
  await observe();
  expect((await resolutionKeeper.runOnce()).sort()).toEqual([`openVote ${early}`, `openVote ${earlyVoid}`].sort());
  await observe();
  await resolutionActions.requestRestart(early, 'test: integrity restart');
  expect(await resolutionKeeper.runOnce()).toEqual([`openVote ${early}`]);
  await observe();
  const voter = await registerWallet(server, undefined, 'graph-voter');
  await humans.attest(voter.account.address, 'test');
  const ballot = async (market: Address, round: number, outcome: number) => {
    const signature = await voter.account.signTypedData(ballotTypedData(chainId, resolver, { market, round, outcome }));
    const r = await server.call('POST', `${A}/resolution/votes/${chainId}:${market}:${round}/ballots`, { key: voter.key, body: { walletAddress: voter.account.address, outcome, signature }, idempotencyKey: `graph-${++idem}` });
    expect(r.status, r.text).toBe(201);
  };
  await ballot(early, 2, 2);
  await ballot(earlyVoid, 1, 0);

  // Close time: the scheduler closes the untouched markets; two creators propose late (an outcome, and void).
  await both(2 * 3_600 + 60);
  await lifecycle.tick();
  await observe();
  await propose(late, 1);
  await propose(lateVoid, 0);
  await observe();

  // A day on: the votes end binding (an outcome, and void), the unchallenged proposals are finalized.
  await both(86_401);
  expect((await resolutionKeeper.runOnce()).sort()).toEqual([`finalize ${late}`, `finalize ${lateVoid}`, `recordVerdict ${early}`, `recordVerdict ${earlyVoid}`].sort());
  await observe();

  // Past resolveBy without a proposal: votes for the absent creator's markets, no quorum, the council decides.
  const resolveBys = await db.selectFrom('markets').select('resolve_by').where('address', 'in', [absent, absentVoid]).execute();
  const resolveBy = Math.max(...resolveBys.map((r) => r.resolve_by.getTime()));
  await both(Math.ceil((resolveBy - clock.now().getTime()) / 1000) + 60);
  expect((await resolutionKeeper.runOnce()).sort()).toEqual([`openVote ${absent}`, `openVote ${absentVoid}`].sort());
  await observe();
  await both(86_401);
  expect((await resolutionKeeper.runOnce()).sort()).toEqual([`recordVerdict ${absent}`, `recordVerdict ${absentVoid}`].sort());
  await observe();
  // The embedded council is the operator, threshold 1: the operator's CLI signs one decision, the test the other.
  const signed = await runSvc(['resolution', 'council-sign', absent, '--outcome', '1', '--rpc', server.runtime.rpcUrl], { OPERATOR_PRIVATE_KEY: readFileSync(server.config.chain.operatorKeyFile, 'utf8').trim() });
  expect(signed.code, signed.stdout + signed.stderr).toBe(0);
  const body = JSON.parse(signed.stdout.trim().split('\n').at(-1)!) as { signer: string; outcome: number; signature: string };
  expect(body.outcome).toBe(1);
  const decided = await server.call('POST', `${A}/markets/${absent}/resolution/council-signatures`, { key: voter.key, body });
  expect(decided.status, decided.text).toBe(201);
  const operator = privateKeyToAccount(readFileSync(server.config.chain.operatorKeyFile, 'utf8').trim() as Hex);
  const signature = await operator.signTypedData(councilDecisionTypedData(chainId, resolver, { market: absentVoid, outcome: 0, round: 1 }));
  expect((await server.call('POST', `${A}/markets/${absentVoid}/resolution/council-signatures`, { key: voter.key, body: { signer: operator.address, outcome: 0, signature } })).status).toBe(201);
  // A signature that reaches the threshold sends councilDecide; when that send fails (it answers decision null and
  // logs it), the keeper sends it on its next pass: pass until both decisions are on chain and projected.
  await waitFor(
    async () => {
      await observe();
      if (seen.get(absent)?.state === 'council_review' || seen.get(absentVoid)?.state === 'council_review') {
        await resolutionKeeper.runOnce();
        return false;
      }
      return true;
    },
    { what: 'both council decisions to be projected' },
  );

  expect(Object.fromEntries([...seen].map(([m, s]) => [m, s.state]))).toEqual({
    [reorged]: 'void',
    [early]: 'resolved',
    [earlyVoid]: 'void',
    [late]: 'resolved',
    [lateVoid]: 'void',
    [absent]: 'resolved',
    [absentVoid]: 'void',
  });
  // Exactly the published graph: nothing it names is unreachable, nothing happened that it does not name.
  expect([...edges].sort()).toEqual(TRANSITIONS.map((t) => `${t.from}->${t.to}`).sort());
  const published = await server.call('GET', `${A}/discover/market-states?marketAddress=${early}`, { key: voter.key });
  expect(published.status, published.text).toBe(200);
  expect(published.body.transitions.map((t: { from: string; to: string }) => `${t.from}->${t.to}`).sort()).toEqual([...edges].sort());
  // Each market's outbox holds the event of every edge it walked.
  for (const { market, edge } of walked) {
    const t = TRANSITIONS.find((x) => `${x.from}->${x.to}` === edge)!;
    if (!t.event) continue;
    const kinds = (await db.selectFrom('events').select('type').where('market_address', '=', market).execute()).map((e) => e.type);
    expect(kinds, `${market} ${edge}: ${t.event}`).toContain(t.event);
  }
});

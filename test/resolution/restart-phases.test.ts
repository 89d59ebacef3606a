// Issue 16: a service restart in the middle of every resolution phase resumes without a lost or doubled event. The
// real `svc start` on one data folder (seeded demo markets, whose creators are anvil dev accounts) walks three markets
// through every phase and is killed in each: A proposed, then finalized by the keeper; B disputed, voted without
// quorum, decided by the council; C disputed and resolved by a binding vote. One run is SIGKILLed the moment the
// keeper's finalize is mined, before the indexer has read it. Chain time moves by evm_increaseTime; afterwards the
// database holds each market event once, one resolution_logs row per resolver log and each keeper operation once.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseAbi, type Abi, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccounts } from '../../src/chain/anvil.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { chainDefinition } from '../../src/chain/clients.ts';
import { ballotTypedData, councilDecisionTypedData } from '../../src/core/resolution/votes.ts';
import { openDatabase } from '../../src/db/index.ts';
import { RESOLVER_EVENTS } from '../../src/services/markets/indexer/resolutions.ts';
import { accepts, followLines, linesOf, runSvc, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { call } from '../crash/client.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { onPostgres } from '../support/harness.ts';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';
import { waitFor } from '../support/wait.ts';

const CHAIN_ID = 8453;
const A = '/api/agent/v1';
/**
 * The resolution windows, seconds: long enough that real time never closes one, passed by evm_increaseTime. The vote
 * window is the longer, so moving past A's challenge window leaves B's and C's rounds open: the keeper then has one
 * action to send, and the kill after it races no other.
 */
const CHALLENGE_WINDOW = 600;
const VOTE_WINDOW = 1200;
const BACKEND = onPostgres ? 'PostgreSQL' : 'PGlite';
const resolverAbi = loadArtifact('MarketResolver').abi as Abi;
const marketAbi = parseAbi(['function creator() view returns (address)', 'function resolver() view returns (address)']);
// The seed funds dev accounts 1..6 (creators 1..3, traders 4..6); 0 funds the operator at every start. 9 is untouched.
const devAccounts = anvilDevAccounts().map((k) => privateKeyToAccount(k));
const challenger = devAccounts[4]!;
const anyone = devAccounts[9]!;
const voters = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];

interface Market {
  address: Address;
  creator: PrivateKeyAccount;
  outcomeCount: number;
}

let folder: ProcessFolder;
let env: Record<string, string>;
let base: string;
let rpcUrl: string;
let key: string;
let svc: SvcProcess;
const running = new Set<SvcProcess>();
const timings: string[] = [];
let broken = false;
/** A: undisputed; B: no quorum, then the council; C: a binding vote. */
let mA: Market;
let mB: Market;
let mC: Market;
let resolver: Address;
/** When run 4, the first to see A's finalize, was spawned (ms since epoch). */
let finalizeProjectedAfter = 0;
/** The resolver's logs on chain, read in the last run (anvil stops with svc). */
let chainLogs: { market: string; txHash: string; logIndex: number; eventName: string }[] = [];

beforeAll(async () => {
  folder = await processFolder('svc-resolution-restart-');
  base = folder.base;
  rpcUrl = `http://127.0.0.1:${folder.anvilPort}`;
  env = {
    ...folder.env,
    LOG_LEVEL: 'info', // the keeper's "sent" line is at info
    SEED_DEMO_MARKETS: 'true',
    INDEXER_POLL_MS: '100',
    MARKET_SCHEDULER_MS: '100',
    VOTE_QUORUM: '2',
    RESOLUTION_CHALLENGE_WINDOW_SECONDS: String(CHALLENGE_WINDOW),
    RESOLUTION_VOTE_WINDOW_SECONDS: String(VOTE_WINDOW),
  };
});

afterAll(async () => {
  for (const s of running) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
  console.log(`resolution restart suite on ${BACKEND}:\n  ${timings.join('\n  ')}`);
  const leaked = await folder?.remove();
  if (leaked && leaked.length > 0) console.warn(`resolution restart suite: killed anvil left on port ${folder.anvilPort}: pid(s) ${leaked.join(', ')}`);
});

const chain = chainDefinition(CHAIN_ID, 'restart-phases', 'http://127.0.0.1');
const publicClient = () => createPublicClient({ chain, transport: http(rpcUrl) });

let runs = 0;
async function start(overrides: Record<string, string> = {}): Promise<void> {
  svc = spawnSvc(['start'], { ...env, ...overrides });
  running.add(svc);
  const s = svc;
  void s.exited.then(() => running.delete(s));
  await svc.waitForLine(/^svc: ready in /, 90_000);
  timings.push(`run ${++runs}: ready in ${Date.now() - svc.spawnedAt} ms`);
}

/** Stops svc with the signal and waits for it, and for its anvil (which stops with it, dumping its state). */
async function stop(signal: 'SIGKILL' | 'SIGINT'): Promise<void> {
  const s = svc;
  s.child.kill(signal);
  const exit = await Promise.race([s.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`svc did not exit within 30 s of ${signal}:\n${s.output().slice(-4000)}`)), 30_000).unref())]);
  if (signal === 'SIGINT') expect(exit, s.output().slice(-4000)).toEqual({ code: 0, signal: null });
  else expect(exit.signal, s.output().slice(-4000)).toBe('SIGKILL');
  // With setpriv anvil gets a parent-death SIGTERM; without it the next start takes the orphan over.
  if (existsSync('/usr/bin/setpriv')) await waitFor(async () => !(await accepts(folder.anvilPort)), { timeoutMs: 15_000, what: `anvil on port ${folder.anvilPort} to stop with svc` });
}

async function get(p: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  const res = await call(base, 'GET', `${A}${p}`, { key });
  if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const marketState = async (m: Market) => (await get(`/discover/market-states?marketAddress=${m.address}`)).market;

/** Waits until each market is in its state, one market at a time (a poll is one request: the read budget is per key). */
async function waitForStates(want: [Market, string][], timeoutMs = 20_000): Promise<void> {
  for (const [m, state] of want) {
    await waitFor(async () => (await marketState(m)).state === state, { timeoutMs, intervalMs: 100, what: `market ${m.address} to be ${state}` });
  }
}

async function send(account: PrivateKeyAccount, to: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<Hex> {
  const wallet = createWalletClient({ chain, account, transport: http(rpcUrl) });
  const hash = await wallet.sendTransaction({ to, data: encodeFunctionData({ abi, functionName, args } as never) });
  const receipt = await publicClient().waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status, `${functionName} from ${account.address}`).toBe('success');
  return hash;
}

/** The chain time (unix seconds) the test moved to; 0 until it moves it. */

async function later(seconds: number): Promise<void> {
  await rpc(rpcUrl, 'evm_increaseTime', [seconds]);
  await rpc(rpcUrl, 'evm_mine');
}

const sessionId = (m: Market) => `${CHAIN_ID}:${m.address}:1`;

async function ballot(voter: PrivateKeyAccount, m: Market, outcome: number): Promise<void> {
  const signature = await voter.signTypedData(ballotTypedData(CHAIN_ID, resolver, { market: m.address, round: 1, outcome }));
  const res = await call(base, 'POST', `${A}/resolution/votes/${sessionId(m)}/ballots`, { key, idempotencyKey: `ballot-${voter.address}-${m.address}`, body: { walletAddress: voter.address, outcome, signature } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** Runs one step of the walk; a failed step skips the rest (each needs the one before). */
function step(name: string, fn: () => Promise<void>, timeoutMs = 90_000): void {
  it(name, async (ctx) => {
    if (broken) return ctx.skip();
    try {
      await fn();
    } catch (err) {
      broken = true;
      throw err;
    }
  }, timeoutMs);
}

describe(`a restart in the middle of every resolution phase (${BACKEND})`, () => {
  step('before the first start: an execute key and two verified human voters, by the CLI', async () => {
    const created = await runSvc(['keys', 'create', '--tier', 'execute'], env);
    expect(created.code, created.stderr).toBe(0);
    key = linesOf(created.stdout).find((l) => l.startsWith('api key: '))!.slice('api key: '.length).trim();
    for (const voter of voters) {
      const verified = await runSvc(['identity', 'verify', voter.address], env);
      expect(verified.code, verified.stderr).toBe(0);
    }
  });

  step('run 1: the creators propose, B and C are challenged; SIGKILL in creator_proposal and challenge', async () => {
    // The keeper would open B's and C's votes within a tick: this run's scheduler does not tick before the kill.
    await start({ MARKET_SCHEDULER_MS: '60000' });
    expect(svc.stdout()).toMatch(/seed: \d+ demo markets with trades are live/);
    const listed = (await get('/discover/markets?pricingModel=automated&pageSize=100')).markets as { address: string; creator: string; outcomeCount: number }[];
    const byCreator = (m: { address: string; creator: string; outcomeCount: number }): Market => ({
      address: m.address.toLowerCase() as Address,
      creator: devAccounts.find((a) => a.address.toLowerCase() === m.creator.toLowerCase())!,
      outcomeCount: m.outcomeCount,
    });
    const binary = listed.filter((m) => m.outcomeCount === 2).map(byCreator);
    const ternary = listed.filter((m) => m.outcomeCount === 3).map(byCreator);
    expect(binary.length).toBeGreaterThanOrEqual(2);
    expect(ternary.length).toBeGreaterThanOrEqual(1);
    [mA, mC] = binary as [Market, Market];
    mB = ternary[0]!;
    for (const m of [mA, mB, mC]) expect(m.creator, `the creator of ${m.address} is a dev account`).toBeDefined();
    resolver = ((await publicClient().readContract({ address: mA.address, abi: marketAbi, functionName: 'resolver' })) as Address).toLowerCase() as Address;
    for (const m of [mA, mB, mC]) expect((await publicClient().readContract({ address: m.address, abi: marketAbi, functionName: 'creator' })).toLowerCase()).toBe(m.creator.address.toLowerCase());

    const bondToken = (await publicClient().readContract({ address: resolver, abi: resolverAbi, functionName: 'bondToken' })) as Address;
    const bond = (await publicClient().readContract({ address: resolver, abi: resolverAbi, functionName: 'challengeBond' })) as bigint;
    expect(await publicClient().readContract({ address: bondToken, abi: erc20Abi, functionName: 'balanceOf', args: [challenger.address] })).toBeGreaterThanOrEqual(2n * bond);
    await send(challenger, bondToken, erc20Abi, 'approve', [resolver, maxUint256]);

    await send(mA.creator, resolver, resolverAbi, 'propose', [mA.address, 1]);
    await send(mB.creator, resolver, resolverAbi, 'propose', [mB.address, 1]);
    await send(challenger, resolver, resolverAbi, 'challenge', [mB.address, 2]);
    await send(mC.creator, resolver, resolverAbi, 'propose', [mC.address, 1]);
    await send(challenger, resolver, resolverAbi, 'challenge', [mC.address, 2]);
    await waitForStates([[mA, 'creator_proposal'], [mB, 'challenge'], [mC, 'challenge']]);
    expect((await marketState(mA)).resolution).toMatchObject({ phase: 'proposed', proposedOutcome: 1, voteRound: 0, finalOutcome: null });
    await stop('SIGKILL');
  });

  step('run 2: the keeper opens both votes; ballots are cast over REST; SIGKILL in human_voting', async () => {
    await start();
    await waitForStates([[mB, 'human_voting'], [mC, 'human_voting']]);
    expect((await marketState(mA)).state).toBe('creator_proposal'); // its window is still open on chain
    for (const m of [mB, mC]) expect(await get(`/resolution/votes/${sessionId(m)}`)).toMatchObject({ status: 'open', round: 1, quorum: 2, verdict: null, ballots: [] });
    await ballot(voters[0]!, mB, 2); // one ballot: below the quorum of 2
    await ballot(voters[0]!, mC, 2);
    await ballot(voters[1]!, mC, 2); // two for outcome 2: binding
    expect((await get(`/resolution/votes/${sessionId(mC)}`)).ballots).toHaveLength(2);
    await stop('SIGKILL');
  });

  step("run 3: A's challenge window ends on chain; SIGKILL the moment the keeper's finalize is mined, before the indexer reads it", async () => {
    // The indexer does not poll in this run (it synced at start-up): the finalize is on chain and not in the database.
    await start({ INDEXER_POLL_MS: '60000' });
    const sent: string[] = [];
    const killed = new Promise<void>((resolve) => {
      followLines(svc, (line) => {
        if (!line.includes('"msg":"resolution keeper: sent"')) return;
        svc.child.kill('SIGKILL');
        const { action, market } = JSON.parse(line) as { action: string; market: string };
        sent.push(`${action} ${market}`);
        resolve();
      });
    });
    expect((await marketState(mA)).state).toBe('creator_proposal');
    await later(CHALLENGE_WINDOW + 1);
    const s = svc;
    const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the keeper sent no finalize within 30 s:\n${s.output().slice(-4000)}`)), 30_000).unref());
    await Promise.race([killed, s.exited, late]);
    await stop('SIGKILL');
    expect(sent).toEqual([`finalize ${mA.address}`]);
  });

  step('run 4: the missed finalize is projected; both vote rounds end on chain and the keeper records the verdicts: C resolved, B to the council; SIGKILL in council_review and resolved', async () => {
    await start();
    finalizeProjectedAfter = svc.spawnedAt;
    await waitForStates([[mA, 'resolved']]);
    for (const m of [mB, mC]) expect((await marketState(m)).state).toBe('human_voting');
    await later(VOTE_WINDOW - CHALLENGE_WINDOW);
    await waitForStates([[mB, 'council_review'], [mC, 'resolved']]);
    expect(await get(`/resolution/votes/${sessionId(mB)}`)).toMatchObject({ status: 'closed', verdict: { kind: 'no_quorum', ballotCount: 1 } });
    expect(await get(`/resolution/votes/${sessionId(mC)}`)).toMatchObject({ status: 'closed', verdict: { kind: 'binding', ballotCount: 2 } });
    await stop('SIGKILL');
  });

  step('run 5: the council (the operator, threshold 1) decides B, submitted by anyone; SIGINT in resolved', async () => {
    await start();
    expect((await marketState(mA)).resolution).toMatchObject({ phase: 'resolved', finalOutcome: 1 });
    expect((await marketState(mC)).resolution).toMatchObject({ phase: 'resolved', finalOutcome: 2 });
    expect((await marketState(mB)).state).toBe('council_review');
    const operator = privateKeyToAccount(readFileSync(path.join(folder.dataDir, 'operator.key'), 'utf8').trim() as Hex);
    expect(await publicClient().readContract({ address: resolver, abi: resolverAbi, functionName: 'councilMembers' })).toEqual([operator.address]);
    const signature = await operator.signTypedData(councilDecisionTypedData(CHAIN_ID, resolver, { market: mB.address, outcome: 3, round: 1 }));
    await send(anyone, resolver, resolverAbi, 'councilDecide', [mB.address, 3, [{ signer: operator.address, signature }]]);
    await waitForStates([[mB, 'resolved']]);
    await stop('SIGINT');
  });

  step('run 6: a restart after resolution changes nothing', async () => {
    await start();
    // The indexer has read past a block mined after this start, and the keeper has had passes to act: nothing moves.
    await rpc(rpcUrl, 'evm_mine');
    const head = await publicClient().getBlockNumber();
    await waitFor(async () => BigInt((await get('/discover/markets?pageSize=1')).projection.cursors[0].blockNumber ?? -1) >= head, { timeoutMs: 20_000, intervalMs: 100, what: `the indexer to pass block ${head}` });
    for (const [m, outcome] of [[mA, 1], [mB, 3], [mC, 2]] as const) {
      expect(await marketState(m)).toMatchObject({ state: 'resolved', resolution: { phase: 'resolved', finalOutcome: outcome } });
      expect(await publicClient().readContract({ address: resolver, abi: resolverAbi, functionName: 'resolutionOf', args: [m.address] })).toMatchObject({ finalOutcome: outcome });
    }
    const logs = await publicClient().getLogs({ address: resolver, events: RESOLVER_EVENTS, fromBlock: 0n, toBlock: 'latest', strict: true });
    chainLogs = logs.map((l) => ({ market: l.args.market.toLowerCase(), txHash: l.transactionHash, logIndex: l.logIndex, eventName: l.eventName }));
    await stop('SIGINT');
  });

  step('stopped: each market event once, one resolution_logs row per resolver log, each keeper operation once', async () => {
    const database = await openDatabase(folder.databaseUrl ? { databaseUrl: folder.databaseUrl } : { pgliteDir: path.join(folder.dataDir, 'pg') });
    try {
      const db = database.db;
      const eventsOf = async (m: Market) =>
        (await db.selectFrom('events').select(['type', 'payload']).where('market_address', '=', m.address).where('type', 'like', 'market.%').where('type', 'not in', ['market.created', 'market.live', 'market.trade']).orderBy('seq').execute()).map((e) => ({ type: e.type, payload: e.payload }));
      // Each trade's market.trade once, across the restarts: one per recorded trade.
      for (const m of [mA, mB, mC]) {
        const tradeEvents = await db.selectFrom('events').select('payload').where('market_address', '=', m.address).where('type', '=', 'market.trade').execute();
        const trades = await db.selectFrom('market_trades').select(['tx_hash', 'log_index']).where('market', '=', m.address).execute();
        const keys = tradeEvents.map((e) => { const p = e.payload as { txHash: string; logIndex: number }; return `${p.txHash.toLowerCase()} ${p.logIndex}`; });
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys.sort()).toEqual(trades.map((t) => `${t.tx_hash.toLowerCase()} ${t.log_index}`).sort());
      }
      const opened = (m: Market) => ({ type: 'market.voteOpened', payload: { sessionId: sessionId(m), round: 1, voteDeadline: expect.any(String) } });
      const proposed = { type: 'market.challengeWindowOpened', payload: expect.objectContaining({ outcome: 1, isVoid: false }) };
      const disputed = { type: 'market.disputed', payload: { challenger: challenger.address.toLowerCase(), counterOutcome: 2 } };
      expect(await eventsOf(mA)).toEqual([proposed, { type: 'market.resolved', payload: { outcome: 1, isVoid: false } }]);
      // The killed run never read its own finalize: the next one did.
      const resolvedA = await db.selectFrom('events').select('created_at').where('market_address', '=', mA.address).where('type', '=', 'market.resolved').executeTakeFirstOrThrow();
      expect(resolvedA.created_at.getTime()).toBeGreaterThanOrEqual(finalizeProjectedAfter);
      expect(await eventsOf(mB)).toEqual([
        proposed,
        disputed,
        opened(mB),
        { type: 'market.voteClosed', payload: { sessionId: sessionId(mB), verdictKind: 'no_quorum', outcome: null } },
        { type: 'market.councilReview', payload: { phase: 'opened' } },
        { type: 'market.councilReview', payload: { phase: 'decided' } },
        { type: 'market.councilReview', payload: { phase: 'executed' } },
        { type: 'market.disputeFinalized', payload: { finalOutcome: 3, creatorSlashed: true } },
        { type: 'market.resolved', payload: { outcome: 3, isVoid: false } },
      ]);
      expect(await eventsOf(mC)).toEqual([
        proposed,
        disputed,
        opened(mC),
        { type: 'market.voteClosed', payload: { sessionId: sessionId(mC), verdictKind: 'binding', outcome: 2 } },
        { type: 'market.disputeFinalized', payload: { finalOutcome: 2, creatorSlashed: true } },
        { type: 'market.resolved', payload: { outcome: 2, isVoid: false } },
      ]);

      // The chain's resolver logs (all of them are these three markets') are the stored ones, one row each.
      const kinds = (m: Market) => chainLogs.filter((l) => l.market === m.address).map((l) => l.eventName);
      expect(kinds(mA)).toEqual(['ResolutionProposed', 'MarketResolved']);
      expect(kinds(mB)).toEqual(['ResolutionProposed', 'ResolutionChallenged', 'VoteOpened', 'VoteClosed', 'CouncilDecided', 'MarketResolved']);
      expect(kinds(mC)).toEqual(['ResolutionProposed', 'ResolutionChallenged', 'VoteOpened', 'VoteClosed', 'MarketResolved']);
      expect(chainLogs).toHaveLength(13);
      const rows = await db.selectFrom('resolution_logs').select(['market', 'tx_hash', 'log_index']).where('chain_id', '=', CHAIN_ID).execute();
      const keyOf = (l: { market: string; txHash: string; logIndex: number }) => `${l.market} ${l.txHash.toLowerCase()} ${l.logIndex}`;
      expect(rows.map((r) => keyOf({ market: r.market, txHash: r.tx_hash, logIndex: r.log_index })).sort()).toEqual(chainLogs.map(keyOf).sort());

      for (const [m, outcome, route] of [[mA, 1, 'undisputed'], [mB, 3, 'council'], [mC, 2, 'vote']] as const) {
        const row = await db.selectFrom('market_resolutions').selectAll().where('chain_id', '=', CHAIN_ID).where('market', '=', m.address).executeTakeFirstOrThrow();
        expect(row).toMatchObject({ phase: 'resolved', final_outcome: outcome, vote_round: m === mA ? 0 : 1 });
        expect(row.record).toMatchObject({ route, creatorSlashed: m !== mA, proposer: m.creator.address.toLowerCase() });
        const market = await db.selectFrom('markets').select('state').where('chain_id', '=', CHAIN_ID).where('address', '=', m.address).executeTakeFirstOrThrow();
        expect(market.state).toBe('resolved');
      }
      const ballots = await db.selectFrom('vote_ballots').select(['market', 'wallet_address']).where('chain_id', '=', CHAIN_ID).execute();
      expect(ballots.filter((b) => b.market === mB.address)).toHaveLength(1);
      expect(ballots.filter((b) => b.market === mC.address)).toHaveLength(2);

      // Each keeper action is one relayer operation, confirmed, and its transaction is the one whose log the chain holds.
      const ops = await db.selectFrom('relayer_transactions').select(['operation_id', 'state', 'tx_hash']).where('operation_id', 'like', 'resolution:%').orderBy('operation_id').execute();
      const id = (m: Market, what: string) => `resolution:${CHAIN_ID}:${m.address}:${what}`;
      const expected: [string, Market, string][] = [
        [id(mA, 'finalize'), mA, 'MarketResolved'],
        [id(mB, 'open-vote:1'), mB, 'VoteOpened'],
        [id(mB, 'verdict:1'), mB, 'VoteClosed'],
        [id(mC, 'open-vote:1'), mC, 'VoteOpened'],
        [id(mC, 'verdict:1'), mC, 'VoteClosed'],
      ];
      expect(ops.map((o) => o.operation_id)).toEqual(expected.map(([op]) => op).sort());
      for (const [op, m, eventName] of expected) {
        const row = ops.find((o) => o.operation_id === op)!;
        expect(row.state, op).toBe('confirmed');
        expect(chainLogs.filter((l) => l.market === m.address && l.eventName === eventName).map((l) => l.txHash.toLowerCase()), op).toEqual([row.tx_hash!.toLowerCase()]);
      }
    } finally {
      await database.close();
    }
  });
});

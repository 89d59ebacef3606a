// Leaderboards and P&L history against a real chain and real ledger fills (docs/leaderboard.md): a small scenario —
// automated trades on anvil, order-book fills on two days, an undisputed resolution, a disputed market decided by a
// human vote — whose every board is computed by hand here; the period and category filters, limits and error codes
// of both surfaces; a reorg that drops a trade puts the board back; a wallet's equity curve. On the embedded database the
// updater's passes (and the reputation fold's, the ledger batcher's) take the connection as background work.
import diagnostics from 'node:diagnostics_channel';
import { parseUnits, type Address, type Hex } from 'viem';
import { encodeFunctionData, erc20Abi, maxUint256 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { ballotTypedData } from '../../src/core/resolution/votes.ts';
import { PGLITE_HOLDS_CHANNEL, type PGliteHold } from '../../src/db/pglite-dialect.ts';
import { originOf } from '../../bench/holds.ts';
import { refreshTotals } from '../../src/services/leaderboard/totals.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { buyShares, funded, resolveUndisputed, tradeShares, type Agent } from '../support/claims.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendTx, tokens } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const A = '/api/agent/v1';
const DAY = 86_400_000;
let server: TestServer;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  server = await startTestServer({ clock, env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000', VOTE_QUORUM: '2' } });
});
afterAll(async () => server?.close());

const db = () => server.runtime.database.db;
const sync = () => server.runtime.services.indexer.syncNow();
const update = () => server.runtime.services.leaderboard.runOnce({ forceRoles: true });
const post = (key: string, path: string, body?: unknown) => server.call('POST', `${A}${path}`, { key, body, idempotencyKey: idemKey('lb') });
const epochDay = (at: Date | string) => Math.floor(new Date(at).getTime() / DAY);
const isoDay = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** A board over REST (agent surface unless `consumer`), asserting 200. */
async function board(key: string, query: string, consumer = false) {
  const res = await server.call('GET', `${consumer ? '/api/v1/leaderboard' : `${A}/discover/leaderboard`}${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body as { entries: { rank: number; walletAddress: string; agentName: string | null; value: string; kind: string; trader?: Record<string, unknown>; creator?: Record<string, unknown>; voter?: Record<string, unknown> }[]; nextOffset: number | null; valueUnit: string; window: unknown };
}
const ranked = (b: Awaited<ReturnType<typeof board>>) => b.entries.map((e) => [e.walletAddress.toLowerCase(), e.value]);

/** Sells through /trade/prepare, approving the outcome token first when asked. */
const sellShares = (agent: Agent, market: string, outcome: number, shares: bigint): Promise<void> => tradeShares(server, agent, 'sell', market, outcome, shares);

/**
 * The incremental rows equal a rebuild from scratch: every wallet's totals recomputed from its day rows and its
 * positions (the path a reorg takes) change nothing.
 */
async function expectRebuildAgrees(): Promise<void> {
  const rows = () => db().selectFrom('leaderboard_totals').selectAll().orderBy('wallet').orderBy('period').orderBy('category').execute();
  const before = await rows();
  const wallets = new Set(before.map((r) => r.wallet));
  await db().transaction().execute((trx) => refreshTotals(trx, epochDay(clock.now()), wallets, [], wallets));
  expect(await rows()).toEqual(before);
}

/** The maximum drawdown of daily deltas, from 0: the hand rule of docs/leaderboard.md. */
function drawdown(deltas: bigint[]): bigint {
  let cum = 0n;
  let peak = 0n;
  let worst = 0n;
  for (const d of deltas) {
    cum += d;
    peak = cum > peak ? cum : peak;
    worst = peak - cum > worst ? peak - cum : worst;
  }
  return worst;
}
const ratio = (pnl: bigint, dd: bigint) => {
  const scaled = (pnl * 1_000_000n) / (dd > 100_000_000n ? dd : 100_000_000n);
  const abs = scaled < 0n ? -scaled : scaled;
  const frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${scaled < 0n ? '-' : ''}${abs / 1_000_000n}${frac ? `.${frac}` : ''}`;
};

describe('input', () => {
  it('defaults, limits and the error code of each surface: INVALID_PAYLOAD on the consumer, INVALID_QUERY on the agent', async () => {
    const key = await server.key('read-only', ['markets:read']);
    const empty = await board(key, '', true);
    expect(empty).toMatchObject({ sort: 'PNL', category: 'ALL', period: '7d', limit: 50, offset: 0, valueUnit: 'usd_micro', nextOffset: null, entries: [] });
    expect((await board(key, '?sort=RISK_ADJ_PNL&period=all')).valueUnit).toBe('ratio');
    expect((await board(key, '?sort=VOTERS&period=30d')).valueUnit).toBe('points');
    for (const bad of ['?sort=pnl', '?sort=SHARPE', '?period=1d', '?limit=0', '?limit=101', '?limit=1.5', '?offset=201', '?offset=-1', '?category=crypto', '?category=WEATHER', '?sort=VOTERS&category=CRYPTO', '?sort=CREATOR_QUALITY&category=TECH', '?page=2']) {
      const consumer = await server.call('GET', `/api/v1/leaderboard${bad}`, { key });
      expect(consumer.status, bad).toBe(400);
      expect(consumer.body.code, bad).toBe('INVALID_PAYLOAD');
      expect(consumer.body.errors[0].path, bad).toMatch(/^query\./);
      const agent = await server.call('GET', `${A}/discover/leaderboard${bad}`, { key });
      expect(agent.status, bad).toBe(400);
      expect(agent.body.code, bad).toBe('INVALID_QUERY');
    }
    expect((await server.call('GET', '/api/v1/leaderboard')).body.code).toBe('API_KEY_REQUIRED');
    expect((await server.call('GET', `${A}/profile/0x1234/pnl-history`, { key })).body.code).toBe('INVALID_ID');
    const nobody = await server.call('GET', `${A}/profile/${'0x'.padEnd(42, 'a')}/pnl-history`, { key });
    expect(nobody.status).toBe(200);
    expect(nobody.body).toMatchObject({ walletAddress: '0xaAaAaAaaAaAaAaaAaAAAAAAAAaaaAaAaAaaAaaAa', unit: 'usd_micro', points: [], totals: { pnl: '0', trades: 0 } });
  });
});

/** What one wallet did on one day in one category, computed by hand: USD micro-dollars. */
interface HandDay {
  wallet: string;
  day: number;
  category: string;
  realized: bigint;
  volume: bigint;
  trades: number;
}

/** A wallet's totals over the hand days from `from` (null: all), per docs/leaderboard.md. */
function expectedTotals(days: readonly HandDay[], unrealized: ReadonlyMap<string, bigint>, wallet: string, category: string, from: number | null) {
  const mine = days.filter((d) => d.wallet === wallet && (category === 'ALL' || d.category === category) && (from === null || d.day >= from));
  if (mine.length === 0) return null;
  const perDay = new Map<number, bigint>();
  for (const d of mine) perDay.set(d.day, (perDay.get(d.day) ?? 0n) + d.realized);
  const deltas = [...perDay.entries()].sort(([a], [b]) => a - b).map(([, r]) => r);
  const realized = deltas.reduce((a, b) => a + b, 0n);
  const u = unrealized.get(`${wallet}:${category}`) ?? 0n;
  const dd = drawdown(deltas);
  return {
    pnl: (realized + u).toString(),
    realizedPnl: realized.toString(),
    unrealizedPnl: u.toString(),
    volume: mine.reduce((a, d) => a + d.volume, 0n).toString(),
    trades: mine.reduce((a, d) => a + d.trades, 0),
    maxDrawdown: dd.toString(),
    riskAdjustedPnl: ratio(realized + u, dd),
  };
}

/** The trader board the hand days give: entries ranked by the sort's value, ties by wallet. */
function expectedBoard(days: readonly HandDay[], unrealized: ReadonlyMap<string, bigint>, sort: 'PNL' | 'VOLUME' | 'RISK_ADJ_PNL', category: string, from: number | null) {
  const wallets = [...new Set(days.map((d) => d.wallet))];
  const rows = wallets.flatMap((w) => {
    const t = expectedTotals(days, unrealized, w, category, from);
    return t && !(sort === 'VOLUME' && t.volume === '0') ? [{ wallet: w, t }] : [];
  });
  const key = (r: (typeof rows)[number]) => (sort === 'PNL' ? BigInt(r.t.pnl) : sort === 'VOLUME' ? BigInt(r.t.volume) : BigInt(Math.round(Number(r.t.riskAdjustedPnl) * 1e6)));
  rows.sort((a, b) => (key(b) > key(a) ? 1 : key(b) < key(a) ? -1 : a.wallet < b.wallet ? -1 : 1));
  return rows.map((r) => [r.wallet, sort === 'PNL' ? r.t.pnl : sort === 'VOLUME' ? r.t.volume : r.t.riskAdjustedPnl]);
}

interface Scenario {
  days: HandDay[];
  unrealized: Map<string, bigint>;
  traders: { a: string; b: string };
  start: number;
  key: string;
}
let scenario: Scenario;

describe('a small scenario computed by hand', () => {
  it('ranks traders by PNL, VOLUME and RISK_ADJ_PNL, creators and voters, per category, on both surfaces and over MCP', async () => {
    const start = epochDay(clock.now());
    const [creator, alice, bob, disputed] = [await funded(server, 'lb-creator'), await funded(server, 'lb-alice'), await funded(server, 'lb-bob'), await funded(server, 'lb-disputed')];
    const a = alice.account.address.toLowerCase();
    const b = bob.account.address.toLowerCase();
    const { market: m1 } = await createMarket(server, creator.key, creator.account, { category: 'CRYPTO', question: 'Will the leaderboard market resolve Yes this year?' });
    const book = await createOrderBookMarket(server, creator, 'Will the leaderboard order book resolve Yes?', new Date(clock.now().getTime() + 30 * DAY));

    // The disputed market: proposed 1, challenged with 2; three verified voters, two for 2, one for 1.
    const resolver = server.runtime.services.chain.lane().resolver;
    const abi = loadArtifact('MarketResolver').abi;
    const call = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi, functionName, args } as never) as Hex;
    const { market: m2 } = await createMarket(server, disputed.key, disputed.account, { category: 'SPORTS', question: 'Will the disputed leaderboard market resolve Yes?' });
    const m2Address = m2.address.toLowerCase() as Address;
    const challenger = privateKeyToAccount(generatePrivateKey());
    await gas(server, challenger.address);
    await fund(server, challenger.address, { usdc: 0n, pm: parseUnits('100000', 18) });
    await sendTx(server, challenger, { to: tokens(server).PM, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [resolver, maxUint256] }) });
    await sendTx(server, disputed.account, { to: resolver, data: call('propose', [m2Address, 1]) });
    await sendTx(server, challenger, { to: resolver, data: call('challenge', [m2Address, 2]) });
    await sync();
    await server.runtime.services.resolutionKeeper.runOnce();
    await sync();

    // Automated trades (USDC, CRYPTO): Alice buys 100 shares of Yes and sells 40 back; Bob buys 50 of No.
    await buyShares(server, alice, m1.address, 0, 100_000_000n);
    await sellShares(alice, m1.address, 0, 40_000_000n);
    await buyShares(server, bob, m1.address, 1, 50_000_000n);
    await sync();

    // The order book (play money, TECH), today: Alice bids 10 Yes at 0.40, Bob buys 10 No at 0.60: a MINT.
    const place = (agent: Agent, body: Record<string, unknown>) => post(agent.key, '/orderbook/place-order', { market: book.address, shares: '10000000', ...body });
    expect((await place(alice, { outcome: 0, action: 'buy', price: '0.4' })).status).toBe(201);
    expect((await place(bob, { outcome: 1, action: 'buy', price: '0.6', tif: 'IOC' })).body.fills).toMatchObject([{ kind: 'MINT', fee: '30000' }]);
    // Tomorrow: Alice sells her 10 Yes at 0.55 to Bob: a TRANSFER.
    clock.advance(DAY);
    expect((await place(alice, { outcome: 0, action: 'sell', price: '0.55' })).status).toBe(201);
    expect((await place(bob, { outcome: 0, action: 'buy', price: '0.55', tif: 'IOC' })).body.fills).toMatchObject([{ kind: 'TRANSFER', fee: '27500' }]);
    // The order loop writes no leaderboard rows: the fold reads the fills after its cursor (migration 0038).
    expect(await db().selectFrom('leaderboard_legs').select('id').where('source', '=', 'fill').execute()).toEqual([]);

    // The vote on the disputed market: binding 2 (quorum 2), the creator slashed.
    const sessionId = `${server.config.chain.id}:${m2Address}:1`;
    const voters = [await registerWallet(server, undefined, 'lb-voter-x'), await registerWallet(server, undefined, 'lb-voter-y'), await registerWallet(server, undefined, 'lb-voter-z')];
    for (const [i, voter] of voters.entries()) {
      await server.runtime.services.humans.attest(voter.account.address, 'test');
      const outcome = i < 2 ? 2 : 1;
      const signature = await voter.account.signTypedData(ballotTypedData(server.config.chain.id, resolver, { market: m2Address, round: 1, outcome }));
      expect((await post(voter.key, `/resolution/votes/${sessionId}/ballots`, { walletAddress: voter.account.address, outcome, signature })).status).toBe(201);
    }
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [86_401]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    await server.runtime.services.resolutionKeeper.runOnce();
    await sync();
    // The automated market resolves Yes, undisputed.
    await resolveUndisputed(server, creator, m1.address, 1);
    expect(await update()).toMatchObject({ folded: 7, settled: 1 });
    const newest = await db().selectFrom('order_fills').select(sql<string>`max(id)::text`.as('id')).executeTakeFirstOrThrow();
    expect((await db().selectFrom('leaderboard_fill_cursor').select('fill_id').executeTakeFirstOrThrow()).fill_id).toBe(newest.id);

    // By hand, from the trades' own numbers (cost fees excluded; fees on top of a buy, out of a sell).
    const [t1, t2, t3] = await db().selectFrom('market_trades').selectAll().where('market', '=', m1.address.toLowerCase()).orderBy('block_number').orderBy('log_index').execute();
    const fees = (t: typeof t1) => BigInt(t!.protocol_fee) + BigInt(t!.creator_fee);
    const basis1 = BigInt(t1!.cost) + fees(t1);
    const released = (basis1 * 40n) / 100n;
    const sold = BigInt(t2!.cost) - fees(t2) - released;
    const settledAlice = 60_000_000n - (basis1 - released);
    const basis3 = BigInt(t3!.cost) + fees(t3);
    const finalized = await db().selectFrom('market_resolutions').select(['market', 'record']).where('market', 'in', [m1.address.toLowerCase(), m2Address]).execute();
    const f1 = epochDay((finalized.find((r) => r.market === m1.address.toLowerCase())!.record as { finalizedAt: string }).finalizedAt);
    const days: HandDay[] = [
      { wallet: a, day: epochDay(t1!.block_time), category: 'CRYPTO', realized: 0n, volume: BigInt(t1!.cost), trades: 1 },
      { wallet: a, day: epochDay(t2!.block_time), category: 'CRYPTO', realized: sold, volume: BigInt(t2!.cost), trades: 1 },
      { wallet: a, day: f1, category: 'CRYPTO', realized: settledAlice, volume: 0n, trades: 0 },
      { wallet: a, day: start, category: 'TECH', realized: 0n, volume: 4_000_000n, trades: 1 },
      { wallet: a, day: start + 1, category: 'TECH', realized: 5_500_000n - 4_000_000n, volume: 5_500_000n, trades: 1 },
      { wallet: b, day: epochDay(t3!.block_time), category: 'CRYPTO', realized: 0n, volume: BigInt(t3!.cost), trades: 1 },
      { wallet: b, day: f1, category: 'CRYPTO', realized: -basis3, volume: 0n, trades: 0 },
      { wallet: b, day: start, category: 'TECH', realized: 0n, volume: 6_000_000n, trades: 1 },
      { wallet: b, day: start + 1, category: 'TECH', realized: 0n, volume: 5_500_000n, trades: 1 },
    ];
    // Bob still holds 10 Yes (cost 5.5275) and 10 No (cost 6.03) at the last fill's prices 0.55 / 0.45.
    const bobOpen = 5_500_000n - 5_527_500n + (4_500_000n - 6_030_000n);
    const unrealized = new Map([
      [`${b}:TECH`, bobOpen],
      [`${b}:ALL`, bobOpen],
    ]);
    const key = await server.key('read-only', ['markets:read']);
    scenario = { days, unrealized, traders: { a, b }, start, key };

    for (const category of ['ALL', 'CRYPTO', 'TECH', 'SPORTS']) {
      for (const sort of ['PNL', 'VOLUME', 'RISK_ADJ_PNL'] as const) {
        for (const period of ['7d', '30d', 'all']) {
          const got = await board(key, `?sort=${sort}&category=${category}&period=${period}`);
          expect(ranked(got), `${sort} ${category} ${period}`).toEqual(expectedBoard(days, unrealized, sort, category, null));
          for (const e of got.entries) expect(e.trader, `${sort} ${category} ${e.walletAddress}`).toEqual(expectedTotals(days, unrealized, e.walletAddress.toLowerCase(), category, null));
        }
      }
    }
    const pnl = await board(key, '?sort=PNL&period=all');
    expect(pnl.entries.map((e) => e.agentName)).toEqual(expectedBoard(days, unrealized, 'PNL', 'ALL', null).map(([w]) => (w === a ? 'lb-alice' : 'lb-bob')));
    // The consumer surface answers the same board.
    expect(await board(key, '?sort=PNL&period=all', true)).toEqual({ ...pnl, asOf: expect.any(String) });

    // Creators: 100 per clean resolution, −300 per dispute lost, 1 per $1,000 attracted (here less than $1,000).
    const attracted = BigInt(t1!.cost) + BigInt(t2!.cost) + BigInt(t3!.cost) + 6_000_000n + 5_500_000n;
    const creators = await board(key, '?sort=CREATOR_QUALITY&period=all');
    expect(creators.entries.map((e) => [e.walletAddress.toLowerCase(), e.value, e.creator])).toEqual([
      [creator.account.address.toLowerCase(), '100', { points: '100', marketsCreated: 2, resolvedClean: 1, disputesLost: 0, volumeAttracted: attracted.toString() }],
      [disputed.account.address.toLowerCase(), '-300', { points: '-300', marketsCreated: 1, resolvedClean: 0, disputesLost: 1, volumeAttracted: '0' }],
    ]);
    // Voters: 1 per ballot, +10 agreeing with the binding verdict, −10 against it; ties by address.
    const [x, y, z] = voters.map((v) => v.account.address.toLowerCase());
    const agreeing = [x!, y!].sort();
    expect((await board(key, '?sort=VOTERS&period=7d')).entries.map((e) => [e.walletAddress.toLowerCase(), e.value, e.voter])).toEqual([
      [agreeing[0], '11', { points: '11', ballotsCast: 1, agreed: 1, disagreed: 0 }],
      [agreeing[1], '11', { points: '11', ballotsCast: 1, agreed: 1, disagreed: 0 }],
      [z, '-9', { points: '-9', ballotsCast: 1, agreed: 0, disagreed: 1 }],
    ]);

    // Pages: limit and offset over the same ranked rows.
    const second = await board(key, '?sort=VOLUME&period=all&limit=1&offset=1');
    expect(second).toMatchObject({ limit: 1, offset: 1, nextOffset: null });
    expect(ranked(second)).toEqual(expectedBoard(days, unrealized, 'VOLUME', 'ALL', null).slice(1, 2));
    expect((await board(key, '?sort=VOLUME&period=all&limit=1')).nextOffset).toBe(1);
    expect(second.entries[0]!.rank).toBe(2);

    // Alice's equity curve, day by day.
    const history = await server.call('GET', `${A}/profile/${alice.account.address}/pnl-history`, { key });
    expect(history.status).toBe(200);
    const aliceDays = new Map<number, HandDay>();
    for (const d of days.filter((d) => d.wallet === a)) {
      const s = aliceDays.get(d.day);
      aliceDays.set(d.day, s ? { ...s, realized: s.realized + d.realized, volume: s.volume + d.volume, trades: s.trades + d.trades } : { ...d });
    }
    let cum = 0n;
    expect(history.body.points).toEqual(
      [...aliceDays.values()]
        .sort((p, q) => p.day - q.day)
        .map((d) => ({ date: isoDay(d.day), realizedPnl: d.realized.toString(), cumulativeRealizedPnl: (cum += d.realized).toString(), volume: d.volume.toString(), trades: d.trades })),
    );
    const aliceAll = expectedTotals(days, unrealized, a, 'ALL', null)!;
    expect(history.body.totals).toEqual({ realizedPnl: aliceAll.realizedPnl, unrealizedPnl: '0', pnl: aliceAll.pnl, volume: aliceAll.volume, trades: aliceAll.trades, maxDrawdown: aliceAll.maxDrawdown });
    expect(history.body.agentName).toBe('lb-alice');

    await expectRebuildAgrees();

    // The same reads are MCP tools.
    const client = new Client({ name: 'leaderboard-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${await server.runtime.listen()}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const tool = (await client.callTool({ name: 'svc_discover_leaderboard', arguments: { sort: 'PNL', period: 'all' } })) as { isError?: boolean; structuredContent?: { entries: unknown[] } };
      expect(tool.isError).toBeFalsy();
      expect(tool.structuredContent!.entries).toEqual(pnl.entries);
      const curve = (await client.callTool({ name: 'svc_get_profile_pnl_history', arguments: { address: alice.account.address } })) as { isError?: boolean; structuredContent?: { points: unknown[] } };
      expect(curve.structuredContent!.points).toEqual(history.body.points);
      const refused = (await client.callTool({ name: 'svc_discover_leaderboard', arguments: { sort: 'VOTERS', category: 'TECH' } })) as { isError?: boolean };
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('maintenance', () => {
  it('a reorg that drops a trade puts the board and the curve back as they were', async () => {
    const { key } = scenario;
    const creator = await funded(server, 'lb-reorg-creator');
    const erin = await funded(server, 'lb-erin');
    const e = erin.account.address.toLowerCase();
    const { market } = await createMarket(server, creator.key, creator.account, { category: 'FUN', question: 'Will the reorged leaderboard market resolve Yes?' });
    await buyShares(server, erin, market.address, 0, 20_000_000n);
    await sync();
    await update();
    const entryOf = async (query: string) => (await board(key, query)).entries.find((x) => x.walletAddress.toLowerCase() === e);
    const curveOf = async () => (await server.call('GET', `${A}/profile/${erin.account.address}/pnl-history`, { key })).body as { points: unknown; totals: unknown };
    const before = { fun: await entryOf('?category=FUN&period=all'), all: await entryOf('?sort=VOLUME&period=30d'), curve: await curveOf() };
    expect(before.fun).toMatchObject({ rank: 1, kind: 'trader', trader: { trades: 1 } });

    await buyShares(server, erin, market.address, 1, 30_000_000n);
    await sync();
    await update();
    // Both positions are marked at the prices after the second trade (the first one's too: another trade moved it).
    const row = await db().selectFrom('markets').select('prices').where('address', '=', market.address.toLowerCase()).executeTakeFirstOrThrow();
    const trades = await db().selectFrom('market_trades').selectAll().where('market', '=', market.address.toLowerCase()).orderBy('block_number').execute();
    const paid = trades.map((t) => BigInt(t.cost) + BigInt(t.protocol_fee) + BigInt(t.creator_fee));
    const marked = (20_000_000n * BigInt(row.prices[0]!)) / 10n ** 18n - paid[0]! + (30_000_000n * BigInt(row.prices[1]!)) / 10n ** 18n - paid[1]!;
    expect((await entryOf('?category=FUN&period=all'))!.trader).toMatchObject({ trades: 2, realizedPnl: '0', unrealizedPnl: marked.toString(), pnl: marked.toString() });

    // The block with the second trade is replaced by an empty one: the indexer rolls it back, the updater takes its leg back.
    await rpc(server.runtime.rpcUrl, 'anvil_reorg', [1, []]);
    await sync();
    expect(await update()).toMatchObject({ reverted: 1 });
    expect({ fun: await entryOf('?category=FUN&period=all'), all: await entryOf('?sort=VOLUME&period=30d'), curve: await curveOf() }).toEqual(before);
    const legs = await db().selectFrom('leaderboard_legs').select('state').where('wallet', '=', e).execute();
    expect(legs.map((l) => l.state)).toEqual(['folded']);
    await expectRebuildAgrees();
  });

  it('periods: the 7d and 30d windows move with the UTC day and leave all time alone', async () => {
    const { days, unrealized, key, start } = scenario;
    const only = (b: Awaited<ReturnType<typeof board>>) => b.entries.filter((x) => [scenario.traders.a, scenario.traders.b].includes(x.walletAddress.toLowerCase()));
    const allTime = only(await board(key, '?period=all'));
    // Six days later the 7d window starts the day after the scenario began: the first day's trades are out of it.
    clock.advance(6 * DAY);
    await update();
    const week = await board(key, '?period=7d&sort=VOLUME');
    expect(week.window).toEqual({ from: isoDay(start + 1), to: isoDay(start + 7) });
    expect(ranked({ ...week, entries: only(week) })).toEqual(expectedBoard(days, unrealized, 'VOLUME', 'ALL', start + 1));
    for (const x of only(week)) expect(x.trader).toEqual(expectedTotals(days, unrealized, x.walletAddress.toLowerCase(), 'ALL', start + 1));
    expect(ranked({ ...week, entries: only(await board(key, '?period=30d&sort=VOLUME')) })).toEqual(expectedBoard(days, unrealized, 'VOLUME', 'ALL', null));
    // Forty days on, nothing is left in either window; all time is unchanged.
    clock.advance(40 * DAY);
    await update();
    for (const period of ['7d', '30d']) {
      expect(only(await board(key, `?period=${period}`)), period).toEqual([]);
      expect((await board(key, `?period=${period}&sort=VOTERS`)).entries, period).toEqual([]);
    }
    expect(only(await board(key, '?period=all'))).toEqual(allTime);
    await expectRebuildAgrees();
  });
});

describe('turns on the embedded database', () => {
  it.skipIf(onPostgres)('a placement takes the connection as a request; the updater, the reputation fold and the ledger batcher as background work', async () => {
    const [creator, trader] = [await funded(server, 'lb-turns-creator'), await funded(server, 'lb-turns-trader')];
    const book = await createOrderBookMarket(server, creator, 'Will the turns order book resolve Yes?', new Date(clock.now().getTime() + 30 * DAY));
    const seen: PGliteHold[] = [];
    const listen = (message: unknown) => void seen.push(message as PGliteHold);
    /**
     * The kinds of the turns `work` took that were asked for in `folder` (a timer's work may run meanwhile; the relayer
     * a ledger batch sends through is shared with requests, and takes its turns as they do).
     */
    const kindsOf = async (folder: string, work: () => Promise<unknown>) => {
      seen.length = 0;
      await work();
      const ours = seen.filter((h) => originOf(h.stack).includes(`(services/${folder}/`));
      expect(ours.length, folder).toBeGreaterThan(0);
      return [...new Set(ours.map((h) => h.priority))];
    };
    diagnostics.subscribe(PGLITE_HOLDS_CHANNEL, listen);
    try {
      const placed = () => post(trader.key, '/orderbook/place-order', { market: book.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' });
      expect(await kindsOf('orderbook', placed)).toEqual(['foreground']);
      expect(await kindsOf('leaderboard', () => update())).toEqual(['background']);
      expect(await kindsOf('reputation', () => server.runtime.services.reputation.foldNow())).toEqual(['background']);
      expect(await kindsOf('ledger', () => server.runtime.services.ledgerBatcher.flush({ force: true }))).toEqual(['background']);
    } finally {
      diagnostics.unsubscribe(PGLITE_HOLDS_CHANNEL, listen);
    }
  });
});

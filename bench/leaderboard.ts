/**
 * Leaderboards (docs/leaderboard.md "Benchmark"): a real runtime (embedded anvil, PGlite in memory or a fresh
 * PostgreSQL database when DATABASE_URL is set), BENCH_LB_MARKETS markets (default 10,000), BENCH_LB_WALLETS wallets
 * (default 100,000) and BENCH_LB_TRADES trades (default 1,000,000) inserted in bulk into market_trades with their legs
 * appended by the indexer's own function (enqueueTradeLegs), then folded into the boards by the updater's own steps.
 * Then:
 * - the cost of keeping the boards current: BENCH_LB_NEW (default 10,000) and twice as many new trades folded when
 *   the store holds a tenth of the trades and again when it holds all of them (ms per trade, and the mark pass that
 *   follows: the positions of the markets they traded re-valued);
 * - GET /api/v1/leaderboard for every sort and period, GET /discover/leaderboard and a category board over HTTP from a
 *   separate process, next to the listings bench's anchor: a bare Fastify route on this process serving one real
 *   board body verbatim (BENCH_SECONDS per scenario, default 5; BENCH_CONNECTIONS, default 16; BENCH_KEYS, default
 *  1024 execute-tier keys, as the listings bench, so the per-key read budget never throttles).
 * It prints and asserts nothing about timings.
 */
import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import { sql, type Insertable } from 'kysely';
import type { MarketTradesTable } from '../src/db/schema.ts';
import { ManualClock } from '../src/core/clock.ts';
import { createLogger } from '../src/runtime/logger.ts';
import type { Runtime } from '../src/runtime/runtime.ts';
import { LEADERBOARD_PERIODS, LEADERBOARD_SORTS } from '../src/core/leaderboard/boards.ts';
import { enqueueTradeLegs } from '../src/services/leaderboard/inbox.ts';
import { foldPending } from '../src/services/leaderboard/fold.ts';
import { seeded } from './market-rows.ts';
import { markDirtyMarkets } from '../src/services/leaderboard/marks.ts';
import { refreshPendingTotals } from '../src/services/leaderboard/totals.ts';
import type { LeaderboardDeps } from '../src/services/leaderboard/deps.ts';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../src/services/rate-limit/limits.ts';
import { startLoadClient } from './load.ts';
import { generateRows } from './market-rows.ts';
import { startBenchRuntime, type ScenarioResult } from './markets-listing.ts';
import { intFromEnv, listenAnchor, runIfMain, withCleanups } from './scope.ts';

export interface LeaderboardBenchOptions {
  seconds: number;
  connections: number;
  keys: number;
  markets: number;
  wallets: number;
  trades: number;
  /** New trades per cost measurement (then twice as many). */
  fresh: number;
  log: (line: string) => void;
}

export interface CostSample {
  /** Trades in the store before the new ones. */
  stored: number;
  fresh: number;
  foldMs: number;
  markMs: number;
  marketsMarked: number;
}

export interface LeaderboardBenchReport {
  setup: string[];
  costs: CostSample[];
  anchor: ScenarioResult;
  scenarios: ScenarioResult[];
}

const DAY_MS = 86_400_000;
const INSERT_CHUNK = 2_000;
const FOLD_BATCH = 2_000;
/** Wallets per transaction of the totals step (the updater's own). */
const TOTALS_BATCH = 32;
const WARMUP_MS = 1_000;

export function leaderboardOptionsFromEnv(log: (line: string) => void): LeaderboardBenchOptions {
  return {
    seconds: intFromEnv('BENCH_SECONDS', 5, 1, 600),
    connections: intFromEnv('BENCH_CONNECTIONS', 16, 1, 1_024),
    keys: intFromEnv('BENCH_KEYS', 1_024, 1, 100_000),
    markets: intFromEnv('BENCH_LB_MARKETS', 10_000, 10, 1_000_000),
    wallets: intFromEnv('BENCH_LB_WALLETS', 100_000, 10, 10_000_000),
    trades: intFromEnv('BENCH_LB_TRADES', 1_000_000, 100, 100_000_000),
    fresh: intFromEnv('BENCH_LB_NEW', 10_000, 10, 1_000_000),
    log,
  };
}


interface MarketRef {
  address: string;
  outcomes: number;
  prices: bigint[];
}

/**
 * A stream of plausible automated trades, in block order, evenly over the 59 days up to a day before `now` (`total`
 * of them): uniform wallets and markets, 70 % buys, 1..1000 shares at the market's price, 1 % protocol and 1 %
 * creator fee. `last()` is the time of the last trade made.
 */
function tradeStream(ctx: { chainId: number; now: number; total: number; wallets: string[]; markets: MarketRef[] }) {
  const r = seeded(7_301);
  let i = 0;
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const timeOf = (k: number) => ctx.now - 60 * DAY_MS + Math.floor((k / ctx.total) * 59 * DAY_MS);
  const next = (count: number): Insertable<MarketTradesTable>[] => {
    const out: Insertable<MarketTradesTable>[] = [];
    for (let k = 0; k < count; k++, i++) {
      const market = ctx.markets[Math.floor(r() * ctx.markets.length)]!;
      const wallet = ctx.wallets[Math.floor(r() * ctx.wallets.length)]!;
      const outcome = Math.floor(r() * market.outcomes);
      const shares = BigInt(1 + Math.floor(r() * 1_000)) * 1_000_000n;
      const cost = (shares * market.prices[outcome]!) / 10n ** 18n;
      const at = timeOf(i);
      out.push({
        chain_id: ctx.chainId,
        tx_hash: `0x${hex(i, 64)}`,
        log_index: 0,
        block_number: String(i + 1),
        block_hash: `0x${hex(i + 1, 64)}`,
        block_time: new Date(at),
        market: market.address,
        trader: wallet,
        recipient: wallet,
        outcome,
        is_buy: r() < 0.7,
        shares: shares.toString(),
        cost: cost.toString(),
        protocol_fee: (cost / 100n).toString(),
        creator_fee: (cost / 100n).toString(),
        prices_after: JSON.stringify(market.prices.map(String)),
      });
    }
    return out;
  };
  return { next, last: () => new Date(timeOf(i - 1)) };
}

/** Inserts `count` trades with their legs, as the indexer does (one transaction per chunk). */
async function insertTrades(runtime: Runtime, next: (n: number) => Insertable<MarketTradesTable>[], count: number, log: (line: string) => void): Promise<number> {
  const t0 = performance.now();
  for (let done = 0; done < count; done += INSERT_CHUNK) {
    const rows = next(Math.min(INSERT_CHUNK, count - done));
    await runtime.database.db.transaction().execute(async (trx) => {
      await trx.insertInto('market_trades').values(rows).execute();
      await enqueueTradeLegs(
        trx,
        rows.map((t) => ({ chainId: t.chain_id, txHash: t.tx_hash, logIndex: t.log_index, blockNumber: BigInt(t.block_number as string) })),
      );
    });
    if ((done / INSERT_CHUNK) % 50 === 49) log(`bench: ${done + rows.length}/${count} trades inserted (${Math.round(performance.now() - t0)} ms)`);
  }
  return performance.now() - t0;
}

/** Folds every pending leg (the updater's fold step, batch after batch), then brings the totals up to date (its totals step). */
async function foldAll(deps: LeaderboardDeps, log?: (line: string) => void): Promise<number> {
  const t0 = performance.now();
  let total = 0;
  for (let n = await foldPending(deps, FOLD_BATCH); n > 0; n = await foldPending(deps, FOLD_BATCH)) {
    total += n;
    if (log && total % 100_000 < FOLD_BATCH) log(`bench: ${total} legs folded (${Math.round(performance.now() - t0)} ms)`);
  }
  await totalsAll(deps);
  return performance.now() - t0;
}

/** Marks every dirty market (the updater's mark step), then the totals step takes the marks' moves. */
async function markAll(deps: LeaderboardDeps): Promise<{ ms: number; markets: number }> {
  const t0 = performance.now();
  let markets = 0;
  for (let n = await markDirtyMarkets(deps, 200); n > 0; n = await markDirtyMarkets(deps, 200)) markets += n;
  await totalsAll(deps);
  return { ms: performance.now() - t0, markets };
}

/** The totals step until no wallet has pending changes. */
async function totalsAll(deps: LeaderboardDeps): Promise<void> {
  for (let n = await refreshPendingTotals(deps, TOTALS_BATCH); n === TOTALS_BATCH; n = await refreshPendingTotals(deps, TOTALS_BATCH));
}

export async function benchLeaderboard(opts: LeaderboardBenchOptions): Promise<LeaderboardBenchReport> {
  const { log } = opts;
  return withCleanups(log, async (cleanups) => {
    // The bench runs the updater's steps itself: the runtime's own loop is stopped (and its indexer polls once a minute).
    const runtime = await startBenchRuntime({ env: { INDEXER_POLL_MS: '60000' }, log, logger: createLogger('silent') }, cleanups);
    await runtime.services.leaderboard.stop();
    // The reputation fold reads the same trades on its own timer: stopped, so it does not share the two cores.
    await runtime.services.reputation.stop();
    const { db } = runtime.database;
    const chain = runtime.services.chain;
    const usdc = chain.collateral().find((c) => c.symbol === 'USDC')!;
    // The updater's "today" while the store is built: just after its last trade, so new trades always fall in the
    // 7d and 30d windows, as live trades do.
    const today = new ManualClock();
    const deps: LeaderboardDeps = { db, clock: today, log: createLogger('silent'), chainId: runtime.config.chain.id, collateral: chain.collateral() };
    const setup: string[] = [];

    // Markets: the listings bench's rows, every one in USDC (PM markets are left out of the boards).
    const head = await chain.head();
    const generated = generateRows(opts.markets, { chainId: runtime.config.chain.id, now: runtime.clock.now(), blockNumber: head.blockNumber, collateral: chain.collateral(), factories: chain.lane().factories });
    const markets = generated.markets.map((m) => ({ ...m, collateral_token: usdc.token.toLowerCase(), collateral_symbol: 'USDC', pricing_model: 'automated' as const }));
    for (let i = 0; i < markets.length; i += 500) await db.insertInto('markets').values(markets.slice(i, i + 500)).execute();
    const refs: MarketRef[] = markets.map((m) => ({ address: m.address, outcomes: m.outcome_count, prices: (JSON.parse(m.prices as string) as string[]).map((p) => BigInt(p)) }));
    const r = seeded(99);
    const wallets = Array.from({ length: opts.wallets }, () => `0x${Array.from({ length: 40 }, () => Math.floor(r() * 16).toString(16)).join('')}`);
    const stream = tradeStream({ chainId: runtime.config.chain.id, now: runtime.clock.now().getTime(), total: opts.trades + 6 * opts.fresh, wallets, markets: refs });
    const next = (n: number) => {
      const rows = stream.next(n);
      today.set(new Date(stream.last().getTime() + 3_600_000));
      return rows;
    };

    // The store at a tenth of the trades, then at all of them: each time, new trades folded (and again twice as many).
    const costs: CostSample[] = [];
    let stored = 0;
    const measure = async () => {
      for (const fresh of [opts.fresh, 2 * opts.fresh]) {
        await insertTrades(runtime, next, fresh, () => undefined);
        const foldMs = await foldAll(deps);
        const marks = await markAll(deps);
        costs.push({ stored, fresh, foldMs, markMs: marks.ms, marketsMarked: marks.markets });
        log(`bench: ${fresh} new trades on ${stored}: fold ${Math.round(foldMs)} ms, marks ${Math.round(marks.ms)} ms (${marks.markets} markets)`);
        stored += fresh;
      }
    };
    const build = async (until: number) => {
      const count = until - stored;
      const insertMs = await insertTrades(runtime, next, count, log);
      const foldMs = await foldAll(deps, log);
      const marks = await markAll(deps);
      stored += count;
      setup.push(`${count} trades inserted in ${Math.round(insertMs / 1000)} s; folded in ${Math.round(foldMs / 1000)} s (${((foldMs * 1000) / count).toFixed(0)} µs a trade); marks ${Math.round(marks.ms)} ms (${marks.markets} markets)`);
      log(`bench: ${setup.at(-1)}`);
    };
    await build(Math.floor(opts.trades / 10));
    await measure();
    await build(opts.trades);
    await measure();
    const pass = performance.now();
    // The service's own updater, on the real clock: it moves the windows to today.
    await runtime.services.leaderboard.runOnce({ forceRoles: true });
    setup.push(`then one updater pass (settlements, marks, windows, creator and voter boards): ${Math.round(performance.now() - pass)} ms`);
    await sql`ANALYZE leaderboard_totals`.execute(db);
    await sql`ANALYZE leaderboard_roles`.execute(db);
    const counts = await sql<{ wallets: string; legs: string; positions: string }>`
      SELECT (SELECT count(*) FROM leaderboard_totals WHERE period = 'all' AND category = 'ALL')::text AS wallets,
        (SELECT count(*) FROM leaderboard_legs)::text AS legs, (SELECT count(*) FROM leaderboard_positions)::text AS positions`.execute(db);
    const c = counts.rows[0]!;
    setup.unshift(`${opts.markets} markets, ${c.wallets} ranked wallets (of ${opts.wallets}), ${stored} trades (${c.legs} legs), ${c.positions} positions`);

    const keys: string[] = [];
    for (let i = 0; i < opts.keys; i++) keys.push((await runtime.services.keys.create({ tier: 'execute', scopes: ['markets:read'], label: `bench-${i}` })).key);
    setup.push(`${opts.keys} execute-tier keys with markets:read in rotation (throttling starts above ~${Math.floor((opts.keys * RATE_LIMITS.execute.read) / (RATE_WINDOW_MS / 1000))} req/s)`);
    await runtime.listen();
    const address = runtime.http.server.address();
    if (address === null || typeof address === 'string') throw new Error('bench: the runtime is not listening on a TCP port');
    const host = '127.0.0.1';
    const base = `http://${host}:${address.port}`;
    const probe = await fetch(`${base}/api/v1/leaderboard`, { headers: { authorization: `Bearer ${keys[0]}` } });
    const body = await probe.text();
    if (probe.status !== 200) throw new Error(`bench: GET /api/v1/leaderboard answered ${probe.status}: ${body.slice(0, 300)}`);
    setup.push(`probe: default board (PNL, 7d) ${(JSON.parse(body) as { entries: unknown[] }).entries.length} entries, ${body.length} bytes`);
    const anchorPort = await listenAnchor({ method: 'GET', path: '/anchor', status: 200, body }, host, cleanups);
    const client = startLoadClient();
    cleanups.push(() => client.close());
    setup.push(`load: ${opts.connections} keep-alive connections, closed loop, ${WARMUP_MS / 1000} s warm-up + ${opts.seconds} s per scenario, separate process; ${cpus().length} CPU(s), Node ${process.version}, ${runtime.database.kind}`);
    const run = async (name: string, port: number, path: string, tokens: readonly string[]): Promise<ScenarioResult> => {
      log(`bench: running ${name}`);
      return { name, path, ...(await client.run({ host, port, path, tokens, connections: opts.connections, warmupMs: WARMUP_MS, durationMs: opts.seconds * 1000 })) };
    };
    const anchor = await run('anchor: bare Fastify, same body', anchorPort, '/anchor', []);
    // What any keyed read costs here: the same pipeline (key lookup, rate limit, validation) with a handler that
    // reads nothing. The leaderboard cannot serve faster than this.
    const scenarios: ScenarioResult[] = [await run('floor: GET /discover/fees (keyed, no read)', address.port, '/api/agent/v1/discover/fees', keys)];
    for (const sort of LEADERBOARD_SORTS) {
      for (const period of LEADERBOARD_PERIODS) scenarios.push(await run(`consumer ${sort} ${period}`, address.port, `/api/v1/leaderboard?sort=${sort}&period=${period}`, keys));
    }
    scenarios.push(await run('consumer PNL 30d CRYPTO, offset 200', address.port, '/api/v1/leaderboard?sort=PNL&period=30d&category=CRYPTO&offset=200&limit=100', keys));
    scenarios.push(await run('agent discover (default)', address.port, '/api/agent/v1/discover/leaderboard', keys));
    return { setup, costs, anchor, scenarios };
  });
}

const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');

export function formatLeaderboardReport(report: LeaderboardBenchReport): string {
  const lines = report.setup.map((l) => `# ${l}`);
  lines.push('', 'cost of keeping the boards current (new trades folded into a store of `stored` trades):');
  lines.push('stored      new  fold ms  µs/trade  marks ms  markets marked');
  for (const c of report.costs) {
    lines.push(`${String(c.stored).padStart(9)} ${String(c.fresh).padStart(7)} ${fmt(c.foldMs).padStart(8)} ${fmt((c.foldMs * 1000) / c.fresh).padStart(9)} ${fmt(c.markMs).padStart(9)} ${String(c.marketsMarked).padStart(15)}`);
  }
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'body B', 'vs anchor', 'non-200'];
  const row = (r: ScenarioResult) => {
    const failed = Object.entries(r.statuses)
      .filter(([s]) => s !== '200')
      .map(([s, n]) => `${n}×${s}`);
    if (r.errors > 0) failed.push(`${r.errors}×net`);
    return [r.name, fmt(r.rps), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1), String(r.bytesPerResponse), `${(r.rps / report.anchor.rps).toFixed(2)}×`, failed.join(' ') || '0'];
  };
  const cells = [header, ...[report.anchor, ...report.scenarios].map(row)];
  const widths = header.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  lines.push('', ...cells.map((c) => c.map((cell, i) => (i === 0 || i >= 5 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd()));
  for (const r of [report.anchor, ...report.scenarios].filter((s) => s.sample !== undefined)) lines.push(`first failure in "${r.name}": ${r.sample}`);
  return lines.join('\n');
}

runIfMain(import.meta.url, async (log) => {
  const report = await benchLeaderboard(leaderboardOptionsFromEnv(log));
  log('');
  log(formatLeaderboardReport(report));
});

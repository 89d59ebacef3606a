/**
 * Order-book matching throughput (src/core/orderbook/engine.ts) next to the hft-limit-order-book anchor on the
 * same seeded stream: GTC limit orders around a drifting mid plus ~10 % cancels. Prints, asserts nothing.
 * Run alone with `node --import ./bench/compile.mjs bench/orderbook.ts`; BENCH_ORDERBOOK_OPS sets the stream length (default 100,000).
 */
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { OrderBook as HftOrderBook, Side } from 'hft-limit-order-book';
import type { Account } from '../src/core/ledger/types.ts';
import { OrderBook } from '../src/core/orderbook/engine.ts';
import { NaiveOrderBook } from '../src/core/orderbook/naive.ts';
import type { EngineConfig, OrderInput } from '../src/core/orderbook/types.ts';
import { prng } from './prng.ts';
import { intFromEnv, runIfMain } from './scope.ts';

export interface OrderBookBenchOptions {
  /** Operations in the stream (orders and cancels). */
  ops: number;
  log: (line: string) => void;
}

export interface OrderBookScenario {
  name: string;
  ops: number;
  /** Operations per second of every measured run, in run order. */
  oursRuns: number[];
  anchorRuns: number[];
}

export interface OrderBookBenchReport {
  setup: string[];
  scenarios: OrderBookScenario[];
  checks: string[];
}

const CONFIG: EngineConfig = { tickBps: 100, minShares: 1n, takerFeeBps: 50 };
const TICKS = 10_000 / CONFIG.tickBps;
const REPEATS = 5;
const WARM_UP_OPS = 10_000;
const NAIVE_CHECK_OPS = 2_000;
const OWNERS = 65_536;


type Op = { cancel: string } | { order: OrderInput };

/** The anchor's view of one operation: a limit order on the outcome-0 axis, or a cancel. */
type AnchorOp = { cancel: string } | { limit: { id: string; side: Side; size: number; price: number } };

/**
 * The stream: each order picks bid or ask on the outcome-0 axis, a price 2 ticks through to 8 ticks away
 * from the mid (so about a fifth cross), 1..100 shares and one of 65,536 owners, then an outcome at
 * random — so bids are buys of outcome 0 or sells of outcome 1 and asks the reverse, and the crosses
 * settle as TRANSFERs, MINTs and MERGEs. The mid drifts one tick at a time. ~10 % of the operations
 * cancel one of the last 1,000 orders (which may have filled already). Bids come from even owners and
 * asks from odd ones, so no self-trade can occur and the anchor, which has no self-trade prevention,
 * faces the same matching problem (its final book must equal ours).
 */
export function orderStream(n: number, seed = 0x0b00c): { ours: Op[]; anchor: AnchorOp[] } {
  const next = prng(seed);
  const owners: Account[] = [];
  for (let i = 0; i < OWNERS; i++) owners.push(`0x${(i + 1).toString(16).padStart(40, '0')}`);
  const ours: Op[] = [];
  const anchor: AnchorOp[] = [];
  const ids: string[] = [];
  let mid = TICKS / 2;
  for (let i = 0; i < n; i++) {
    const r = next();
    if (r % 7 === 0) mid = Math.min(TICKS - 12, Math.max(12, mid + ((r >>> 3) & 1 ? 1 : -1)));
    if (next() % 10 === 0 && ids.length > 0) {
      const id = ids[ids.length - 1 - (next() % Math.min(1_000, ids.length))]!;
      ours.push({ cancel: id });
      anchor.push({ cancel: id });
      continue;
    }
    const x = next();
    const bid = (x & 1) === 0;
    const outcome = ((x >>> 1) & 1) as 0 | 1;
    const away = ((x >>> 2) % 11) - 2;
    const axisIdx = Math.min(TICKS - 1, Math.max(1, bid ? mid - away : mid + away));
    const axisBps = axisIdx * CONFIG.tickBps;
    const shares = 1 + ((x >>> 8) % 100);
    const id = `o${i}`;
    ids.push(id);
    ours.push({
      order: {
        id,
        owner: owners[((next() % (OWNERS / 2)) << 1) | (bid ? 0 : 1)]!,
        outcome,
        action: (outcome === 0) === bid ? 'buy' : 'sell',
        priceBps: outcome === 0 ? axisBps : 10_000 - axisBps,
        shares: BigInt(shares),
        tif: 'GTC',
        postOnly: false,
        seq: BigInt(i + 1),
      },
    });
    anchor.push({ limit: { id, side: bid ? Side.BUY : Side.SELL, size: shares, price: axisBps } });
  }
  return { ours, anchor };
}

interface RunStats {
  ms: number;
  /** Shares matched, counted once per fill. */
  matched: number;
  selfTrades: number;
  depth: string;
}

function runOurs(ops: readonly Op[]): RunStats {
  const book = new OrderBook(CONFIG);
  let matched = 0n;
  let selfTrades = 0;
  const t0 = performance.now();
  for (const op of ops) {
    if ('cancel' in op) {
      book.cancel(op.cancel);
      continue;
    }
    const r = book.submit(op.order);
    for (const f of r.fills) matched += f.shares;
    if (r.reason === 'SELF_TRADE_PREVENTED') selfTrades++;
  }
  const ms = performance.now() - t0;
  const d = book.depth(TICKS);
  const depth = JSON.stringify([d.bids.map((l) => [l.priceBps, Number(l.shares)]), d.asks.map((l) => [l.priceBps, Number(l.shares)])]);
  return { ms, matched: Number(matched), selfTrades, depth };
}

function runAnchor(ops: readonly AnchorOp[]): RunStats {
  const book = new HftOrderBook();
  let matched = 0;
  const t0 = performance.now();
  for (const op of ops) {
    if ('cancel' in op) {
      book.cancel(op.cancel);
      continue;
    }
    const r = book.limit(op.limit);
    matched += op.limit.size - r.quantityLeft;
  }
  const ms = performance.now() - t0;
  const [asks, bids] = book.depth();
  const depth = JSON.stringify([[...bids].sort((a, b) => b[0] - a[0]), [...asks].sort((a, b) => a[0] - b[0])]);
  return { ms, matched, selfTrades: 0, depth };
}

/** Orders through the naive reference and the engine agree on every result and on the final book. */
function naiveAgrees(ops: readonly Op[]): boolean {
  const fast = new OrderBook(CONFIG);
  const naive = new NaiveOrderBook(CONFIG);
  const same = (a: unknown, b: unknown) => JSON.stringify(a, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) === JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  for (const op of ops) {
    const ok = 'cancel' in op ? same(fast.cancel(op.cancel), naive.cancel(op.cancel)) : same(fast.submit(op.order), naive.submit(op.order));
    if (!ok) return false;
  }
  return same(fast.orders(), naive.orders());
}

export async function benchOrderBook(opts: OrderBookBenchOptions): Promise<OrderBookBenchReport> {
  const { log } = opts;
  const anchorVersion = (createRequire(import.meta.url)('hft-limit-order-book/package.json') as { version: string }).version;
  log(`bench: orderbook: generating ${opts.ops.toLocaleString('en-US')} operations`);
  const stream = orderStream(opts.ops);
  const orders = stream.ours.filter((op) => 'order' in op).length;
  const setup = [
    `${cpus().length} CPU(s), Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at start`,
    `stream (seeded): ${opts.ops.toLocaleString('en-US')} operations = ${orders.toLocaleString('en-US')} GTC limit orders + ${(opts.ops - orders).toLocaleString('en-US')} cancels of recent orders;`,
    '     prices from 2 ticks through to 8 ticks behind a drifting mid (100-bps tick), 1..100 shares, 65,536 owners (bids even, asks odd: no self-trades), both outcomes',
    'ours = OrderBook.submit / cancel (src/core/orderbook/engine.ts): bigint shares, fills with kind and taker fee, self-trade prevention',
    `anchor = hft-limit-order-book ${anchorVersion} limit({ id, side, size, price }) / cancel(id): its API has one buy/sell axis and no outcomes,`,
    '     so it gets the equivalent one-axis stream: every bid (buy 0, sell 1) is a buy and every ask (sell 0, buy 1) a sell at the outcome-0 price;',
    '     MINT/MERGE/TRANSFER are not its concepts, nor fees or self-trade prevention (it matches regardless of owner)',
    `best and median of ${REPEATS} interleaved runs on fresh books, after a ${WARM_UP_OPS.toLocaleString('en-US')}-operation warm-up of each; stream generation is not timed`,
  ];

  runOurs(stream.ours.slice(0, WARM_UP_OPS));
  runAnchor(stream.anchor.slice(0, WARM_UP_OPS));
  const scenarios: OrderBookScenario[] = [];
  const checks: string[] = [];
  const variants = [
    { name: 'orders + ~10 % cancels', ours: stream.ours, anchor: stream.anchor },
    { name: 'same orders, no cancels', ours: stream.ours.filter((op) => 'order' in op), anchor: stream.anchor.filter((op) => 'limit' in op) },
  ];
  for (const v of variants) {
    const scenario: OrderBookScenario = { name: v.name, ops: v.ours.length, oursRuns: [], anchorRuns: [] };
    let oursLast: RunStats | undefined;
    let anchorLast: RunStats | undefined;
    for (let r = 0; r < REPEATS; r++) {
      log(`bench: orderbook "${v.name}" run ${r + 1}/${REPEATS}: ours`);
      oursLast = runOurs(v.ours);
      scenario.oursRuns.push((v.ours.length * 1000) / oursLast.ms);
      log(`bench: orderbook "${v.name}" run ${r + 1}/${REPEATS}: hft-limit-order-book`);
      anchorLast = runAnchor(v.anchor);
      scenario.anchorRuns.push((v.anchor.length * 1000) / anchorLast.ms);
    }
    scenarios.push(scenario);
    const same = oursLast!.depth === anchorLast!.depth && oursLast!.matched === anchorLast!.matched;
    checks.push(
      `check "${v.name}": shares matched ours ${oursLast!.matched.toLocaleString('en-US')} / anchor ${anchorLast!.matched.toLocaleString('en-US')}, final books equal: ${same ? 'yes' : 'NO'}, self-trades prevented by ours: ${oursLast!.selfTrades}`,
    );
  }
  const naiveOps = Math.min(NAIVE_CHECK_OPS, opts.ops);
  log(`bench: orderbook: naive reference over the first ${naiveOps.toLocaleString('en-US')} operations`);
  checks.push(`check: the first ${naiveOps.toLocaleString('en-US')} operations give identical results in the naive reference (naive.ts): ${naiveAgrees(stream.ours.slice(0, naiveOps)) ? 'yes' : 'NO'}`);
  setup.push(`load average ${loadavg()[0]!.toFixed(1)} at the end`);
  return { setup, scenarios, checks };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const times = (x: number): string => `${x >= 0.1 ? x.toFixed(2) : x.toPrecision(2)}×`;

/** The report as an aligned text table. */
export function formatOrderBookReport(report: OrderBookBenchReport): string {
  const rows = [['scenario', 'engine', 'ops', 'ops/s median', 'ops/s best', 'vs anchor (median)', 'vs anchor (best)']];
  for (const sc of report.scenarios) {
    const anchorMedian = median(sc.anchorRuns);
    const anchorBest = Math.max(...sc.anchorRuns);
    const oursMedian = median(sc.oursRuns);
    const oursBest = Math.max(...sc.oursRuns);
    const ops = sc.ops.toLocaleString('en-US');
    rows.push([sc.name, 'ours', ops, fmt(oursMedian), fmt(oursBest), times(oursMedian / anchorMedian), times(oursBest / anchorBest)]);
    rows.push(['', 'hft-limit-order-book', ops, fmt(anchorMedian), fmt(anchorBest), times(1), times(1)]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  const line = (row: string[]) => row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();
  return [...report.setup.map((l) => `# ${l}`), ...report.checks.map((l) => `# ${l}`), '', line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** BENCH_ORDERBOOK_OPS from the environment: a whole number from 1,000 to 10^7, default 10^5. */
export const orderBookOpsFromEnv = (): number => intFromEnv('BENCH_ORDERBOOK_OPS', 100_000, 1_000, 10_000_000);

runIfMain(import.meta.url, async (log) => {
  const report = await benchOrderBook({ ops: orderBookOpsFromEnv(), log });
  log('');
  log(formatOrderBookReport(report));
});

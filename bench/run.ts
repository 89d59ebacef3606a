/**
 * `npm run bench`: throughput of the market listings next to a bare-Fastify anchor (bench/markets-listing.ts).
 * Prints a table and exits 0; it never asserts a timing. Tuning: BENCH_SECONDS (measured seconds per
 * scenario, default 5), BENCH_CONNECTIONS (default 16), BENCH_MARKETS (default 10000), BENCH_KEYS (default
 * 256); DATABASE_URL runs it on a fresh PostgreSQL database instead of PGlite in memory; BENCH_PGLITE_DISK=1 puts
 * PGlite in a data folder, as `svc start` opens it (every bench that starts the service).
 * Then the ledger Merkle root build next to OpenZeppelin's StandardMerkleTree and bare keccak (bench/merkle.ts);
 * BENCH_MERKLE_MAX caps its leaf count (default 1000000; OpenZeppelin takes minutes at 10^6).
 * Then order-book matching throughput next to hft-limit-order-book on one seeded stream (bench/orderbook.ts);
 * BENCH_ORDERBOOK_OPS sets the stream length (default 100000).
 * Then end-to-end POST /orderbook/place-order over HTTP with persistence next to a bare-Fastify POST anchor
 * (bench/orderbook-http.ts): one market, then BENCH_PLACE_MARKETS markets (default 4); BENCH_PLACE_SECONDS (default
 * BENCH_SECONDS), BENCH_PLACE_AGENTS (wallet agents, even, default 64), BENCH_PLACE_PROFILE (a folder for a CPU profile
 * of each scenario; BENCH_HEAP_PROFILE=1 or survivors adds an allocation profile: bench/profile.ts), BENCH_PLACE_STALLS
 * (print that many of each scenario's longest stalls with what held the embedded database, blocked the event loop or
 * collected garbage meanwhile: bench/timeline.ts), BENCH_PLACE_HOLDS=1 (list the long turns on the embedded database by
 * who took them: bench/holds.ts), BENCH_WARMUP_SECONDS (load before each scenario's measured seconds, default 1),
 * BENCH_PLACE_PROGRESS (every that many seconds of a scenario, print what its last interval placed and cost, with the
 * heap in use), BENCH_PLACE_PRIME_SECONDS (orders on a market of their own before the scenarios, unmeasured, so V8 has
 * compiled the order path; default 8, 0 for none), BENCH_PLACE_SWEEP (e.g. "4,32": the one-market stream again at each
 * number of connections after the scenarios, and an order's CPU cost told from a round's: bench/cost-model.ts),
 * BENCH_PLACE_RATE (both streams again in an open loop at that many orders a second, latency timed from when each order
 * was due; default the goal on the database, 2000 on PostgreSQL and 1000 on PGlite, 0 for none), BENCH_PLACE_RATE_CONNECTIONS (the open loop's connections at most, default 64),
 * BENCH_PLACE_DIRECT (0: not the fixed rate's streams again in the process without the HTTP edge, as it runs and with the single writers paused: bench/direct-placements.ts),
 * BENCH_REDIS_URL (the service's rate limits in that Redis, as several processes share them);
 * BENCH_CONNECTIONS and BENCH_KEYS as above. It prints each scenario's CPU time by thread where /proc can
 * be read (bench/thread-cpu.ts), a placement transaction's time by phase (src/services/orderbook/orders/round-phases.ts)
 * with how late the event loop ran what was ready (bench/loop-delay.ts), the machine's idle and stolen shares and a core's speed beside it (bench/machine-cpu.ts),
 * how long the disk took to flush a small write meanwhile (bench/disk-sync.ts),
 * and on PostgreSQL the write-ahead log an order cost (bench/server-cpu.ts). Like the listings, it runs on PGlite in memory, or on a fresh PostgreSQL database when
 * DATABASE_URL is set: run `npm run bench` once without and once with DATABASE_URL to compare the two.
 * Then a claim sweep on its own anvil: one wallet's winning positions redeemed one redeem(holder) transaction per
 * market (the anchor) next to PayoutRouter.redeemMany batches, gas per claim and wall time (bench/claims.ts);
 * BENCH_CLAIM_POSITIONS sets the positions per sweep (default 200), BENCH_CLAIM_BATCH the claims per redeemMany
 * transaction (default 100).
 * Then event fan-out: WebSocket subscribers of /api/agent/v1/events/ws receiving events appended through the outbox,
 * next to a bare `ws` broadcast of the same frames, deliveries/s and commit-to-receipt latency in a burst and paced
 * (bench/events.ts); BENCH_EVENT_SUBSCRIBERS sets the clients per transport (default 1000), BENCH_EVENT_COUNT the
 * events per burst (default 1000), BENCH_EVENT_RATE the events/s of the paced runs, 5 s each (default 20; 0 skips
 * them). PGlite in memory, or a fresh PostgreSQL database when DATABASE_URL is set.
 * Then the cold start of `svc start` on a new data folder to its first 200 of /health, the demo seed included
 * (bench/cold-start.ts); BENCH_COLD_RUNS runs (default 3), on PGlite or on a new PostgreSQL database as above.
 * Then, on PostgreSQL only (DATABASE_URL), the listing and place-order against 1, 2 and 4 `svc start` processes on one
 * database with the scaling factor against one (bench/processes.ts); BENCH_PROCESSES sets the counts (default "1,2,4"),
 * BENCH_PROCESS_SECONDS the measured seconds, BENCH_PLACE_PRIME_SECONDS the unmeasured place-orders before them.
 */
import { benchClaims, claimsOptionsFromEnv, formatClaimsReport } from './claims.ts';
import { benchColdStart, formatColdStart } from './cold-start.ts';
import { benchEvents, eventsOptionsFromEnv, formatEventsReport } from './events.ts';
import { benchMarketsListing, type ScenarioResult } from './markets-listing.ts';
import { benchMerkle, formatMerkleReport, merkleMaxFromEnv } from './merkle.ts';
import { benchOrderBook, formatOrderBookReport, orderBookOpsFromEnv } from './orderbook.ts';
import { benchOrderBookHttp, orderBookHttpOptionsFromEnv } from './orderbook-http.ts';
import { formatOrderBookHttpReport } from './orderbook-http-report.ts';
import { benchProcesses, formatProcessesReport, processesOptionsFromEnv } from './processes.ts';
import { intFromEnv, runIfMain } from './scope.ts';


const fmt = (n: number, digits: number): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');

/** scenario rps / anchor rps: two decimals, or two significant digits below 0.1 (0.0079×, not 0.01×). */
const ratio = (rps: number, anchorRps: number): string => {
  const x = anchorRps > 0 ? rps / anchorRps : 0;
  return x >= 0.1 || x === 0 ? x.toFixed(2) : x.toPrecision(2);
};

function table(anchor: ScenarioResult, rows: readonly ScenarioResult[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'body B', 'vs anchor', 'non-200'];
  const line = (r: ScenarioResult): string[] => {
    const failed = Object.entries(r.statuses)
      .filter(([status]) => status !== '200')
      .map(([status, count]) => `${count}×${status}`);
    if (r.errors > 0) failed.push(`${r.errors}×net`);
    return [r.name, fmt(r.rps, 0), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1), String(r.bytesPerResponse), `${ratio(r.rps, anchor.rps)}× bare Fastify`, failed.join(' ') || '0'];
  };
  const cells = [header, ...[anchor, ...rows].map(line)];
  const widths = header.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  const render = (row: string[]) => row.map((cell, c) => (c === 0 || c === 5 || c === 6 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();
  return [render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(render)].join('\n');
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const merkleMax = merkleMaxFromEnv();
  const orderBookOps = orderBookOpsFromEnv();
  const placeOptions = orderBookHttpOptionsFromEnv(log);
  const claimOptions = claimsOptionsFromEnv();
  const eventOptions = eventsOptionsFromEnv();
  const report = await benchMarketsListing({
    seconds: intFromEnv('BENCH_SECONDS', 5, 1, 600),
    connections: intFromEnv('BENCH_CONNECTIONS', 16, 1, 1_024),
    markets: intFromEnv('BENCH_MARKETS', 10_000, 100, 1_000_000),
    keys: intFromEnv('BENCH_KEYS', 256, 1, 100_000),
    log,
  });
  log('');
  for (const line of report.setup) log(`# ${line}`);
  log('');
  log(table(report.anchor, report.scenarios));
  const failures = [report.anchor, ...report.scenarios].filter((r) => r.sample !== undefined);
  for (const r of failures) log(`\nfirst failure in "${r.name}": ${r.sample}`);
  log('');
  const merkle = await benchMerkle({ max: merkleMax, changes: 100, log });
  log('');
  log(formatMerkleReport(merkle));
  log('');
  const orderbook = await benchOrderBook({ ops: orderBookOps, log });
  log('');
  log(formatOrderBookReport(orderbook));
  log('');
  const placement = await benchOrderBookHttp(placeOptions);
  log('');
  log(formatOrderBookHttpReport(placement));
  log('');
  const claims = await benchClaims({ ...claimOptions, log });
  log('');
  log(formatClaimsReport(claims));
  log('');
  const events = await benchEvents({ ...eventOptions, log });
  log('');
  log(formatEventsReport(events));
  log('');
  const cold = await benchColdStart(intFromEnv('BENCH_COLD_RUNS', 3, 1, 50), log);
  log('');
  for (const line of formatColdStart(cold)) log(line);
  log('');
  const processOptions = processesOptionsFromEnv(log);
  const processes = await benchProcesses(processOptions);
  if (processes) log(formatProcessesReport(processes, processOptions));
}

runIfMain(import.meta.url, main);

/**
 * Several processes on one PostgreSQL (docs/operations.md): the market listing and end-to-end place-order against 1, 2
 * and 4 `svc start` processes on one database, one external anvil and Redis for the rate limits, with the scaling
 * factor against one process. The load client spreads its connections over the processes (connection i talks to
 * process i mod n), as a round-robin balancer would; place-orders for a book another process owns are forwarded there.
 * PostgreSQL only (DATABASE_URL): PGlite is one process's database. Prints, asserts nothing. Knobs: BENCH_PROCESSES
 * (default "1,2,4"), BENCH_PROCESS_SECONDS (default BENCH_SECONDS or 5), BENCH_CONNECTIONS (16), BENCH_MARKETS (listing
 * rows, default 10000), BENCH_PLACE_AGENTS (64), BENCH_PLACE_MARKETS (4), BENCH_PLACE_PRIME_SECONDS (8: the place-order
 * stream, another seed, unmeasured, before the measured one, as bench/orderbook-http.ts primes its process). Run alone with `node --import ./bench/compile.mjs bench/processes.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_DEV_PRIVATE_KEY, freePort, startAnvil } from '../src/chain/anvil.ts';
import { deployDevTokens, devChainEnv } from '../src/chain/dev-tokens.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { createRuntime } from '../src/runtime/runtime.ts';
import { startLoadClient, type LoadResult, type ScriptedRequest } from './load.ts';
import { createBenchDatabase, insertRows } from './markets-listing.ts';
import { createMarkets, mintInventory, placeOrderScript, registerWalletAgent, registrationAddress, type Trader } from './orderbook-http.ts';
import { intFromEnv, runIfMain, withCleanups } from './scope.ts';
import { SERVICE_NODE_FLAGS } from '../bin/node-flags.mjs';

export interface ProcessesBenchOptions {
  counts: number[];
  seconds: number;
  connections: number;
  listingRows: number;
  agents: number;
  markets: number;
  /**
   * Seconds of place-orders (the same books, another seed) before the measured stream, not measured, so every process
   * has compiled its order path, as a server that has run for a while has (0: none, as before 2026-12-07: one process
   * then placed ~900 orders/s where the primed in-process bench placed ~1,600).
   */
  primeSeconds: number;
  log: (line: string) => void;
}

export interface ProcessesRow {
  processes: number;
  listing: LoadResult;
  place: LoadResult;
}

const CHAIN_ID = 8453;
const WARMUP_MS = 1_000;
const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const READY = /^svc: ready in /m;

/** One `svc start` of the deployment; resolves once it printed that it is ready. */
function startProcess(env: Record<string, string>, log: (line: string) => void): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(REPO_ROOT, 'bin/svc.mjs'), 'start'], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (READY.test(out)) resolve(child);
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    child.once('exit', (code) => {
      log(`bench: a process exited (${code}):\n${out.slice(-2000)}`);
      reject(new Error(`svc start exited with ${code} before it was ready`));
    });
  });
}

export async function benchProcesses(opts: ProcessesBenchOptions): Promise<ProcessesRow[] | null> {
  const { log } = opts;
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') {
    log('bench: several processes: skipped (set DATABASE_URL: PGlite is one process\'s database)');
    return null;
  }
  return withCleanups(log, async (cleanups) => {
    const anvil = await startAnvil({ chainId: CHAIN_ID });
    cleanups.push(() => anvil.stop());
    const tokens = await deployDevTokens({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID, deployerKey: ANVIL_DEV_PRIVATE_KEY });
    const rows: ProcessesRow[] = [];
    for (const n of opts.counts) {
      const database = await createBenchDatabase(adminUrl);
      const env: Record<string, string> = {
        ...devChainEnv({ databaseUrl: database.url, rpcUrl: anvil.rpcUrl, operatorKey: ANVIL_DEV_PRIVATE_KEY, tokens }),
        REGISTRATION_PATHS: 'wallet',
        LEDGER_SIGNUP_GRANT: (10n ** 15n).toString(),
        FILLS_FREE_PER_MONTH: '1000000000',
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        LOG_LEVEL: 'error',
        HOST: '127.0.0.1',
      };
      // The deployment's contracts, markets, agents and listing rows, made once by an in-process runtime that then stops.
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-processes-'));
      const setup = await createRuntime(loadConfig({ ...env, DATA_DIR: dataDir, PORT: '0' }), { log: createLogger('silent'), progress: () => undefined });
      const markets = await createMarkets(setup, 1 + opts.markets, log);
      const traders: Trader[] = [];
      for (let i = 0; i < opts.agents; i++) {
        const account = privateKeyToAccount(keccak256(toHex(`svc-bench-processes-agent-${n}-${i}`)));
        const { principal, key } = await registerWalletAgent(setup, account, `bench-trader-${i}`, registrationAddress(i));
        const more = await Promise.all([1, 2, 3].map((k) => setup.services.keys.create({ tier: principal.tier, scopes: principal.scopes, agentId: principal.agentId, label: `bench-${k}` })));
        traders.push({ principal, keys: [key, ...more.map((m) => m.key)] });
      }
      await mintInventory(setup, traders, markets, log);
      await insertRows(setup, opts.listingRows, log);
      await setup.close();
      rmSync(dataDir, { recursive: true, force: true });

      const ports: number[] = [];
      const children: ChildProcess[] = [];
      const dirs: string[] = [];
      try {
        for (let i = 0; i < n; i++) {
          const port = await freePort();
          const dir = mkdtempSync(path.join(tmpdir(), `svc-bench-p${i}-`));
          dirs.push(dir);
          ports.push(port);
          children.push(await startProcess({ ...env, PORT: String(port), DATA_DIR: dir }, log));
        }
        log(`bench: ${n} process(es) up on one database`);
        const client = startLoadClient();
        try {
          const tokens = traders.flatMap((t) => t.keys);
          const listing = await client.run({ host: '127.0.0.1', port: ports[0]!, ports, path: '/api/v1/markets', tokens, connections: opts.connections, warmupMs: WARMUP_MS, durationMs: opts.seconds * 1000 });
          const scriptOf = (seconds: number, seed: number) =>
            placeOrderScript(
              Math.ceil(seconds * 2_000),
              markets.slice(1),
              traders.map((t) => t.keys),
              seed,
            );
          const placeOrders = (script: ScriptedRequest[], idempotencyPrefix: string, warmupMs: number, seconds: number) =>
            client.run({
              host: '127.0.0.1',
              port: ports[0]!,
              ports,
              path: '/api/agent/v1/orderbook/place-order',
              method: 'POST',
              tokens: [],
              script,
              idempotencyPrefix,
              okStatus: 201,
              connections: opts.connections,
              warmupMs,
              durationMs: seconds * 1000,
            });
          if (opts.primeSeconds > 0) {
            const primed = await placeOrders(scriptOf(opts.primeSeconds, 0x9a1e + n), `bench-processes-prime-${n}-${Date.now()}`, 0, opts.primeSeconds);
            log(`bench: ${n} process(es) primed: ${Math.round(primed.rps)} orders/s over ${opts.primeSeconds} s, not measured`);
          }
          const place = await placeOrders(scriptOf(opts.seconds + 1, 0x5ca1e + n), `bench-processes-${n}-${Date.now()}`, WARMUP_MS, opts.seconds);
          rows.push({ processes: n, listing, place });
        } finally {
          await client.close();
        }
      } finally {
        for (const child of children) {
          child.removeAllListeners('exit');
          child.kill('SIGINT');
          await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
        }
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        await database.drop();
      }
    }
    return rows;
  });
}

export function formatProcessesReport(rows: ProcessesRow[], opts: ProcessesBenchOptions): string {
  const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '–');
  const base = rows[0];
  const lines = [
    '',
    `# ${cpus().length} CPU(s), Node ${process.version}, PostgreSQL, load average ${loadavg()[0]!.toFixed(1)}; ${opts.connections} connections spread over the processes, 1 s warm-up + ${opts.seconds} s`,
    `# listing: GET /api/v1/markets (${opts.listingRows} markets); place-order: the seeded stream of bench/orderbook-http.ts over ${opts.markets} order books, ${opts.agents} agents`,
    opts.primeSeconds > 0 ? `# primed: ${opts.primeSeconds} s of place-orders on the same books (another seed) before the measured stream, not measured` : '# not primed (BENCH_PLACE_PRIME_SECONDS=0): the measured stream pays for V8 compiling the order path',
    '',
    'processes  listing req/s  p50 ms  p99 ms  scaling  non-200   place orders/s  p50 ms  p99 ms  scaling  non-201',
    '---------  -------------  ------  ------  -------  -------   --------------  ------  ------  -------  -------',
  ];
  const others = (r: LoadResult, ok: string) => Object.entries(r.statuses).filter(([s]) => s !== ok).reduce((a, [, c]) => a + c, 0) + r.errors;
  for (const r of rows) {
    lines.push(
      [
        String(r.processes).padStart(9),
        fmt(r.listing.rps).padStart(13),
        fmt(r.listing.p50Ms, 1).padStart(6),
        fmt(r.listing.p99Ms, 1).padStart(6),
        `${(r.listing.rps / base!.listing.rps).toFixed(2)}×`.padStart(7),
        String(others(r.listing, '200')).padStart(7),
        ' ',
        fmt(r.place.rps).padStart(14),
        fmt(r.place.p50Ms, 1).padStart(6),
        fmt(r.place.p99Ms, 1).padStart(6),
        `${(r.place.rps / base!.place.rps).toFixed(2)}×`.padStart(7),
        String(others(r.place, '201')).padStart(7),
      ].join('  '),
    );
  }
  for (const r of rows) {
    for (const [what, res] of [['listing', r.listing], ['place', r.place]] as const) if (res.sample) lines.push(`# ${r.processes} process(es), ${what}: first failure ${res.sample}`);
  }
  return lines.join('\n');
}

export function processesOptionsFromEnv(log: (line: string) => void): ProcessesBenchOptions {
  const counts = (process.env.BENCH_PROCESSES ?? '1,2,4').split(',').map((s) => Number.parseInt(s.trim(), 10)).filter((n) => Number.isInteger(n) && n >= 1 && n <= 16);
  return {
    counts: counts.length > 0 ? counts : [1, 2, 4],
    seconds: intFromEnv('BENCH_PROCESS_SECONDS', intFromEnv('BENCH_SECONDS', 5, 1, 600), 1, 600),
    connections: intFromEnv('BENCH_CONNECTIONS', 16, 1, 1_024),
    listingRows: intFromEnv('BENCH_MARKETS', 10_000, 10, 1_000_000),
    agents: intFromEnv('BENCH_PLACE_AGENTS', 64, 2, 10_000) & ~1,
    markets: intFromEnv('BENCH_PLACE_MARKETS', 4, 1, 19),
    primeSeconds: intFromEnv('BENCH_PLACE_PRIME_SECONDS', 8, 0, 600),
    log,
  };
}

runIfMain(import.meta.url, async (log) => {
  const opts = processesOptionsFromEnv(log);
  const rows = await benchProcesses(opts);
  if (rows) log(formatProcessesReport(rows, opts));
});

/**
 * Market listing throughput: a real runtime (embedded anvil, PGlite in memory or a fresh PostgreSQL database
 * when DATABASE_URL is set) listening on 127.0.0.1, 10,000 markets inserted straight into the projection,
 * and GET /api/v1/markets and GET /api/agent/v1/discover/markets driven over HTTP next to an anchor: a bare
 * Fastify route on the same process serving one real listing body verbatim. The ratio to the anchor is the
 * number to compare between machines; the absolute numbers only between runs on the same one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { toCount } from '../src/db/index.ts';
import { createLogger, type Logger } from '../src/runtime/logger.ts';
import { createRuntime, type Runtime } from '../src/runtime/runtime.ts';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../src/services/rate-limit/limits.ts';
import { startLoadClient, type LoadClient, type LoadResult } from './load.ts';
import { generateRows, SEARCH_WORD } from './market-rows.ts';
import { listenAnchor, withCleanups } from './scope.ts';

export interface ListingBenchOptions {
  /** Measured seconds per scenario (after a 1 s warm-up). */
  seconds: number;
  connections: number;
  markets: number;
  /** API keys the load rotates through, so the per-key read budget does not throttle the run. */
  keys: number;
  log: (line: string) => void;
}

export interface ScenarioResult extends LoadResult {
  name: string;
  path: string;
}

export interface ListingBenchReport {
  setup: string[];
  anchor: ScenarioResult;
  scenarios: ScenarioResult[];
}

const BATCH = 500;
const WARMUP_MS = 1_000;
const KEY_TIER = 'execute' as const;

/** A new empty PostgreSQL database next to DATABASE_URL's (the bench never writes into a database it did not create). */
export async function createBenchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A runtime for a bench: embedded anvil, PGlite in memory or a fresh PostgreSQL database when DATABASE_URL is
 * set, no demo seed, on 127.0.0.1 and a free port (not listening yet); logs silent unless a `logger` is given.
 * `env` adds or overrides configuration; the teardown steps (runtime, database, data folder) go onto
 * `cleanups`, run in reverse.
 */
export async function startBenchRuntime(opts: { env?: Record<string, string>; log: (line: string) => void; logger?: Logger }, cleanups: (() => Promise<void>)[]): Promise<Runtime> {
  const { log } = opts;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const adminUrl = process.env.DATABASE_URL;
  let databaseUrl: string | undefined;
  if (adminUrl !== undefined && adminUrl !== '') {
    const created = await createBenchDatabase(adminUrl);
    cleanups.push(created.drop);
    databaseUrl = created.url;
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    ANVIL_PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_DEMO_MARKETS: 'false',
    ...opts.env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // PGlite in memory unless BENCH_PGLITE_DISK=1: then in the data folder, as `svc start` opens it.
  if (config.database.kind === 'pglite' && process.env.BENCH_PGLITE_DISK !== '1') config.database = { kind: 'pglite', dir: 'memory://' };

  const t0 = performance.now();
  const runtime = await createRuntime(config, { log: opts.logger ?? createLogger('silent'), progress: (line) => log(`bench: ${line}`) });
  cleanups.push(() => runtime.close());
  log(`bench: runtime up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return runtime;
}

export async function insertRows(runtime: Runtime, count: number, log: (line: string) => void): Promise<string[]> {
  const { db } = runtime.database;
  const chain = runtime.services.chain;
  const head = await chain.head();
  const lane = chain.lane();
  const rows = generateRows(count, {
    chainId: runtime.config.chain.id,
    now: runtime.clock.now(),
    blockNumber: head.blockNumber,
    collateral: chain.collateral(),
    factories: lane.factories,
  });
  const t0 = performance.now();
  for (let i = 0; i < rows.markets.length; i += BATCH) {
    await db.insertInto('markets').values(rows.markets.slice(i, i + BATCH)).execute();
    const done = Math.min(i + BATCH, rows.markets.length);
    if (done % 2_000 === 0 || done === rows.markets.length) log(`bench: markets ${done}/${rows.markets.length} inserted (${Math.round(performance.now() - t0)} ms)`);
  }
  const t1 = performance.now();
  for (let i = 0; i < rows.trades.length; i += BATCH) await db.insertInto('market_trades').values(rows.trades.slice(i, i + BATCH)).execute();
  log(`bench: ${rows.trades.length} trades inserted, ${rows.tradedLastDay} markets traded in the last 24 h (${Math.round(performance.now() - t1)} ms)`);
  // PostgreSQL's autovacuum would gather planner statistics soon after such a load; PGlite has none.
  await sql`ANALYZE markets`.execute(db);
  await sql`ANALYZE market_trades`.execute(db);
  const listed = await db
    .selectFrom('markets')
    .select(sql<string>`count(*)`.as('n'))
    .where('question', 'is not', null)
    .where(sql<boolean>`controls->>'policy' = 'active' AND controls->>'discovery' IN ('listed', 'graduated')`)
    .executeTakeFirstOrThrow();
  return [`${count} markets (${toCount(listed.n)} listed), ${rows.trades.length} trades, ${rows.tradedLastDay} markets traded in the last 24 h`];
}

/** GET with a key; throws unless 200. Returns the raw body and the parsed JSON. */
async function probe(base: string, pathAndQuery: string, key: string): Promise<{ text: string; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${base}${pathAndQuery}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`bench: GET ${pathAndQuery} answered ${res.status}: ${text.slice(0, 300)}`);
  return { text, json: JSON.parse(text) as Record<string, unknown>, headers: res.headers };
}

const countOf = (json: Record<string, unknown>): number => (Array.isArray(json.markets) ? json.markets.length : 0);

export async function benchMarketsListing(opts: ListingBenchOptions): Promise<ListingBenchReport> {
  const { log } = opts;
  return withCleanups(log, async (cleanups) => {
    const runtime = await startBenchRuntime({ log }, cleanups);

    const setup = await insertRows(runtime, opts.markets, log);

    // The per-key read budget (RATE_LIMITS, no config knob) would throttle one key within a second: the load rotates
    // through a pool of keys, and each scenario has a pool of its own. One pool for the whole run was spent by its
    // third scenario on a fast machine (~7,000 req/s for 5 s each), and the later scenarios measured 429s.
    const newPool = async (label: string, size = opts.keys): Promise<string[]> => {
      const pool: string[] = [];
      for (let i = 0; i < size; i++) pool.push((await runtime.services.keys.create({ tier: KEY_TIER, scopes: ['markets:read'], label: `bench-${label}-${i}` })).key);
      return pool;
    };
    const perKey = RATE_LIMITS[KEY_TIER].read;
    const scenarioMs = WARMUP_MS + opts.seconds * 1000;
    const ceiling = Math.floor((opts.keys * perKey) / (scenarioMs / 1000));
    setup.push(`${opts.keys} ${KEY_TIER} keys in rotation per scenario (${perKey} reads per ${RATE_WINDOW_MS / 1000} s each: a scenario is throttled above ~${ceiling} req/s over its ${scenarioMs / 1000} s)`);

    await runtime.listen();
    const address = runtime.http.server.address();
    if (address === null || typeof address === 'string') throw new Error('bench: the runtime is not listening on a TCP port');
    const host = '127.0.0.1';
    const base = `http://${host}:${address.port}`;
    const [key] = (await newPool('probe', 1)) as [string];

    // Sanity and the inputs of the scenarios: the anchor body, a cursor, the search and category hits.
    const page = await probe(base, '/api/v1/markets', key);
    const discover = await probe(base, '/api/agent/v1/discover/markets', key);
    const nextCursor = discover.json.nextCursor;
    if (typeof nextCursor !== 'string') throw new Error('bench: the first discover page has no nextCursor');
    const searched = await probe(base, `/api/v1/markets?search=${SEARCH_WORD}&limit=100`, key);
    const crypto = await probe(base, '/api/agent/v1/discover/markets?category=CRYPTO', key);
    const ranked = await probe(base, '/api/v1/markets?sort=volume_24h', key);
    const firstVolume = (ranked.json.markets as { volume24h?: string }[] | undefined)?.[0]?.volume24h ?? '0';
    setup.push(
      `probe: default page ${countOf(page.json)} markets, ${page.text.length} bytes; search=${SEARCH_WORD} ${countOf(searched.json)} hits (limit 100); ` +
        `category=CRYPTO ${countOf(crypto.json)} per page; top volume_24h ${firstVolume}`,
    );

    const anchorPort = await listenAnchor({ method: 'GET', path: '/anchor', status: 200, body: page.text }, host, cleanups);

    const client: LoadClient = startLoadClient();
    cleanups.push(() => client.close());
    setup.push(`load: ${opts.connections} keep-alive connections, closed loop, ${WARMUP_MS / 1000} s warm-up + ${opts.seconds} s per scenario, separate process; ${cpus().length} CPU(s), Node ${process.version}, ${runtime.database.kind}`);

    const run = async (name: string, port: number, pathAndQuery: string, tokens: readonly string[]): Promise<ScenarioResult> => {
      log(`bench: running ${name}`);
      const result = await client.run({ host, port, path: pathAndQuery, tokens, connections: opts.connections, warmupMs: WARMUP_MS, durationMs: opts.seconds * 1000 });
      return { name, path: pathAndQuery, ...result };
    };

    const anchor = await run('anchor: bare Fastify, same body', anchorPort, '/anchor', []);
    const scenarios: ScenarioResult[] = [];
    const cases: [string, string][] = [
      ['consumer list (default sort=new)', '/api/v1/markets'],
      ['consumer list sort=volume_24h', '/api/v1/markets?sort=volume_24h'],
      [`consumer list search=${SEARCH_WORD}`, `/api/v1/markets?search=${SEARCH_WORD}`],
      ['agent discover (default)', '/api/agent/v1/discover/markets'],
      ['agent discover, page 2 (cursor)', `/api/agent/v1/discover/markets?cursor=${encodeURIComponent(nextCursor)}`],
      ['agent discover category=CRYPTO', '/api/agent/v1/discover/markets?category=CRYPTO'],
    ];
    for (const [i, [name, pathAndQuery]] of cases.entries()) scenarios.push(await run(name, address.port, pathAndQuery, await newPool(String(i))));
    return { setup, anchor, scenarios };
  });
}

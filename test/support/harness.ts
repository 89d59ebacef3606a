/**
 * Starts a real svc runtime for a test suite: embedded anvil plus PGlite (in memory, or a data
 * folder for restart tests), or a fresh PostgreSQL database when DATABASE_URL is set (CI runs the
 * suites both ways). `call()` drives it over HTTP (Fastify inject) and checks every response
 * against the generated OpenAPI documents.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Clock } from '../../src/core/clock.ts';
import { TIER_DEFAULT_SCOPES, type Scope } from '../../src/core/scopes.ts';
import type { AgentTier } from '../../src/core/tiers.ts';
import type { Capability } from '../../src/api/catalog/types.ts';
import type { RelayerFaults } from '../../src/chain/relayer.ts';
import type { LedgerFaults } from '../../src/services/ledger/batcher.ts';
import type { IdempotencyFaults } from '../../src/services/idempotency/idempotency.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime.ts';
import { createLogger, type Logger } from '../../src/runtime/logger.ts';
import { checkerFor } from './openapi-check.ts';
import { migratedPGlite } from './pglite-template.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from './postgres.ts';
import { BASE_ENV, takeSharedChain, type SharedStart } from './shared-chain.ts';
import type { Database } from '../../src/db/index.ts';

export { dropPostgres, freshPostgresUrl, onPostgres } from './postgres.ts';

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw payload (bypasses JSON encoding). */
  payload?: string | Buffer;
  key?: string;
  idempotencyKey?: string;
  /** Skip the OpenAPI check (for deliberately odd requests). */
  unchecked?: boolean;
}

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  text: string;
}

export interface TestServer {
  runtime: Runtime;
  config: Config;
  dataDir: string;
  call(method: string, url: string, opts?: CallOptions): Promise<CallResult>;
  /** Issues a key of the given tier directly through the key service. */
  key(tier: AgentTier, scopes?: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  catalog?: readonly Capability[];
  relayerFaults?: RelayerFaults;
  ledgerFaults?: LedgerFaults;
  idempotencyFaults?: IdempotencyFaults;
  beforeAnvilRestart?: RuntimeOptions['beforeAnvilRestart'];
  /** Reuse a data folder (restart tests); default: a new temporary one. */
  dataDir?: string;
  /** PGlite on disk in dataDir instead of memory (restart tests). */
  persistent?: boolean;
  /** Reuse this PostgreSQL URL (restart tests on PostgreSQL). */
  databaseUrl?: string;
  env?: Record<string, string>;
  /** The runtime's logger (default: silent, or TEST_LOG_LEVEL). */
  log?: Logger;
  /** Start an anvil of its own instead of the process's shared chain (a suite that stops or restarts the node). */
  ownChain?: boolean;
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  const ownsDir = opts.dataDir === undefined;
  // A server that keeps no chain, database or folder of its own runs on the process's shared chain, from a copy of
  // the database its deployment left (PGlite in memory; on PostgreSQL a new database copied from the chain's template).
  const shared: SharedStart | null = opts.ownChain || opts.relayerFaults || opts.persistent || opts.databaseUrl !== undefined ? null : await takeSharedChain(dataDir);
  const databaseUrl = onPostgres ? (opts.databaseUrl ?? shared?.databaseUrl ?? (await freshPostgresUrl())) : undefined;
  const ownsDb = onPostgres && opts.databaseUrl === undefined;
  const config = loadConfig({
    // Suites create the markets they need; the demo seed has its own test.
    ...BASE_ENV,
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  });
  // PGlite starts from the migrated template (or the shared chain's deployed copy): in memory, or in the data folder
  // the first time a persistent one is used.
  let database: Database | undefined;
  if (config.database.kind === 'pglite' && !opts.persistent) {
    config.database = { kind: 'pglite', dir: 'memory://' };
    database = shared?.database ?? (await migratedPGlite());
  } else if (config.database.kind === 'pglite' && !existsSync(config.database.dir)) {
    database = await migratedPGlite(config.database.dir);
  }
  const runtime = await createRuntime(config, {
    database,
    anvil: shared?.anvil,
    clock: opts.clock,
    catalog: opts.catalog,
    relayerFaults: opts.relayerFaults,
    ledgerFaults: opts.ledgerFaults,
    idempotencyFaults: opts.idempotencyFaults,
    beforeAnvilRestart: opts.beforeAnvilRestart,
    log: opts.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    progress: () => undefined,
  });
  // A suite that sets MARKET_SCHEDULER_MS to its largest value drives the keepers by hand (runOnce): their own timers
  // would run a pass of theirs once a long run passes that minute, racing the suite's (docs/testing.md).
  if (opts.env?.MARKET_SCHEDULER_MS === '60000') {
    await runtime.services.resolutionKeeper.stop();
    await runtime.services.payoutKeeper.stop();
  }
  // So with INDEXER_POLL_MS and the leaderboard updater (its timer's period): one pass of its own between a reorg's sync
  // and the suite's pass took the reverted leg back first (test/leaderboard/leaderboard.test.ts, on PostgreSQL in CI).
  if (opts.env?.INDEXER_POLL_MS === '60000') await runtime.services.leaderboard.stop();
  const checker = checkerFor([runtime.documents.openApi('agent'), runtime.documents.openApi('consumer')] as never);

  return {
    runtime,
    config,
    dataDir,
    async call(method, url, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.key) headers.authorization = `Bearer ${o.key}`;
      if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
      let payload = o.payload;
      if (payload === undefined && o.body !== undefined) {
        payload = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await runtime.http.inject({ method: method as 'GET', url, headers, payload });
      const text = res.body;
      const ct = res.headers['content-type'];
      const body = typeof ct === 'string' && ct.includes('json') && text.length > 0 ? JSON.parse(text) : text;
      if (!o.unchecked) checker.check(method, url, res.statusCode, typeof ct === 'string' ? ct : undefined, body);
      return { status: res.statusCode, headers: res.headers as CallResult["headers"], body, text };
    },
    async key(tier, scopes) {
      const issued = await runtime.services.keys.create({ tier, scopes: scopes ?? [...TIER_DEFAULT_SCOPES[tier]] });
      return issued.key;
    },
    async close() {
      await runtime.close();
      shared?.release();
      if (ownsDb && databaseUrl) await dropPostgres(databaseUrl);
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

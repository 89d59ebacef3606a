/**
 * Anvils shared by the servers a test process starts (usually one, more when servers run at once). Each is built once: a
 * runtime deploys and wires every contract on it over a migrated database, then the chain is snapshotted (evm_snapshot)
 * and the database kept: dumped (PGlite), or left as a template database (PostgreSQL). Each server after that reverts
 * the chain to the snapshot (blocks and balances), re-arms the snapshot, moves the chain's clock to now with one empty
 * block (the revert took it back to the snapshot's time), and opens a copy of the deployed database: it starts on
 * exactly the chain and rows a first start would have made, in a fraction of the time. docs/testing.md.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { createRuntime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { rpc } from './anvil-rpc.ts';
import { BytesBlob, migratedPGlite, TEST_PGLITE_SETTINGS } from './pglite-template.ts';
import { freshPostgresUrl, newTemplate, onPostgres } from './postgres.ts';

interface SharedChain {
  anvil: AnvilHandle;
  /** The snapshot of the deployed chain; consumed by each revert and taken again. */
  snapshot: string;
  /** The database of the deploying runtime: PGlite's data-folder tarball, or the name of a PostgreSQL template database. */
  deployed: { kind: 'pglite'; dump: Blob } | { kind: 'postgres'; template: string };
  operatorKey: string;
  /** True while a server runs on it: a second server at the same time takes another chain of the pool. */
  busy: boolean;
}

/**
 * Settings every test server has, that the deployment depends on. A server on a data folder of its own, and every `svc`
 * process a suite starts (svcEnv), opens it with 16 MB of shared buffers, as the in-memory copies do
 * (TEST_PGLITE_SETTINGS): 128 took ~0.4 s of CPU at every open.
 */
export const BASE_ENV = { PORT: '0', ANVIL_PORT: '0', LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://svc.test', SEED_DEMO_MARKETS: 'false', PGLITE_SHARED_BUFFERS_MB: '16' };

/** The chains this process built; a server takes a free one, and only when all are in use is another built. */
const pool: Promise<SharedChain>[] = [];

async function build(): Promise<SharedChain> {
  const anvil = await startAnvil({ chainId: 8453 });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-shared-chain-'));
  const template = onPostgres ? await newTemplate() : null;
  const database = template ? undefined : await migratedPGlite();
  try {
    const config = loadConfig({ ...BASE_ENV, DATA_DIR: dataDir, ...(template ? { DATABASE_URL: template.url } : {}) });
    if (database) config.database = { kind: 'pglite', dir: 'memory://' };
    // The runtime closes the database it is given; a PGlite one is dumped first. PostgreSQL's is closed with the runtime,
    // so no session is left on the template.
    const runtime = await createRuntime(config, { database: database && { ...database, close: async () => undefined }, anvil, log: createLogger('silent'), progress: () => undefined });
    await runtime.close();
    const deployed: SharedChain['deployed'] = database
      ? { kind: 'pglite', dump: new BytesBlob(new Uint8Array(await (await database.dump!()).arrayBuffer())) }
      : { kind: 'postgres', template: template!.name };
    const snapshot = (await rpc(anvil.rpcUrl, 'evm_snapshot')) as string;
    return { anvil, snapshot, deployed, operatorKey: readFileSync(path.join(dataDir, 'operator.key'), 'utf8'), busy: false };
  } finally {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface SharedStart {
  anvil: AnvilHandle;
  /** PGlite: the copy of the deployed database, open. */
  database?: Database;
  /** PostgreSQL: a new database copied from the deployed one (the server owns it and drops it at close). */
  databaseUrl?: string;
  /** Frees the chain for the next server (call after the runtime has closed). */
  release(): void;
}

/** A built chain no server is using, marked busy; a new one when every built chain is in use. */
async function freeChain(): Promise<SharedChain> {
  for (const pending of pool) {
    const chain = await pending;
    if (!chain.busy) {
      chain.busy = true;
      return chain;
    }
  }
  const built = build().then((chain) => ({ ...chain, busy: true }));
  pool.push(built);
  return built;
}

/**
 * A chain of the process's pool, reverted to its deployed snapshot, and a copy of the deployed database; the
 * operator key is written to `dataDir` as a first start would. Servers that run at the same time (a suite with two)
 * get chains of their own from the pool, each built once per process.
 */
export async function takeSharedChain(dataDir: string): Promise<SharedStart> {
  const chain = await freeChain();
  try {
    await rpc(chain.anvil.rpcUrl, 'evm_revert', [chain.snapshot]);
    chain.snapshot = (await rpc(chain.anvil.rpcUrl, 'evm_snapshot')) as string;
    // Mining mode is not part of a snapshot: a suite that turned automine off must not leave it off.
    await rpc(chain.anvil.rpcUrl, 'evm_setAutomine', [true]);
    // The revert also took the chain's clock back to when the snapshot was taken; a new node's latest block is
    // about now, and suites that plan from chain time (a close time an hour ahead) rely on that.
    await rpc(chain.anvil.rpcUrl, 'anvil_setTime', [Math.floor(Date.now() / 1000)]);
    await rpc(chain.anvil.rpcUrl, 'evm_mine');
    const keyFile = path.join(dataDir, 'operator.key');
    writeFileSync(keyFile, chain.operatorKey);
    chmodSync(keyFile, 0o600);
    const release = () => void (chain.busy = false);
    if (chain.deployed.kind === 'postgres') return { anvil: chain.anvil, databaseUrl: await freshPostgresUrl(chain.deployed.template), release };
    const database = await openDatabase({ pgliteDir: 'memory://', pgliteDump: chain.deployed.dump, pgliteSettings: TEST_PGLITE_SETTINGS });
    return { anvil: chain.anvil, database, release };
  } catch (err) {
    chain.busy = false;
    throw err;
  }
}

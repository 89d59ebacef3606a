// A process suite (docs/testing.md "Process suites"; docs/operations.md "Several processes"): `svc start --workers 2`
// on one PostgreSQL database and an external anvil. Both workers serve the one port and join the cluster (one leads;
// the order books are spread over both); orders through the shared port land on either worker and each is placed
// once, whichever worker owns its book (a call for the other worker's book is forwarded to that worker's own port). A
// SIGKILLed worker is replaced by the supervisor and orders go on; SIGTERM stops everything cleanly. Without
// DATABASE_URL and CHAIN_RPC_URL the option is refused with one line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_PRIVATE_KEY, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { deployDevTokens, devChainEnv } from '../../src/chain/dev-tokens.ts';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { shardOf } from '../../src/services/cluster/shards.ts';
import { freePort, runSvc, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { AGENT_API, call, createOrderBook, registerAgent, type Agent } from '../crash/client.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { liveMembers, settledShards } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';

const CHAIN_ID = 8453;

describe('svc start --workers without a shared database and node', () => {
  it('is refused with one line naming what it needs', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-workers-refused-'));
    try {
      const refused = await runSvc(['start', '--workers', '2'], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(/--workers needs DATABASE_URL and CHAIN_RPC_URL/);
      const bad = await runSvc(['start', '--workers', 'many'], { DATA_DIR: dataDir });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/--workers must be a whole number from 1 to 64/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!onPostgres)('svc start --workers 2 on one PostgreSQL (skipped without DATABASE_URL)', () => {
  let anvil: AnvilHandle;
  let databaseUrl: string;
  let database: Database;
  let dataDir: string;
  let supervisor: SvcProcess;
  let base: string;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    databaseUrl = await freshPostgresUrl();
    const tokens = await deployDevTokens({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID, deployerKey: ANVIL_DEV_PRIVATE_KEY });
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-workers-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    supervisor = spawnSvc(['start', '--workers', '2'], {
      ...devChainEnv({ databaseUrl, rpcUrl: anvil.rpcUrl, operatorKey: ANVIL_DEV_PRIVATE_KEY, tokens }),
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      REGISTRATION_PATHS: 'wallet',
      TRUST_PROXY: 'true',
      LEDGER_SIGNUP_GRANT: '1000000000000000',
      FILLS_FREE_PER_MONTH: '1000000000',
      CLUSTER_TICK_MS: '200',
    });
    await supervisor.waitForLine(/^svc: ready in .*: 2 of 2 workers serve/, 240_000);
    database = await openDatabase({ databaseUrl });
  }, 300_000);

  afterAll(async () => {
    supervisor?.child.kill('SIGKILL');
    // The workers are the supervisor's children: end any left behind.
    for (const m of (await database?.db.selectFrom('cluster_members').select('pid').execute()) ?? []) {
      try {
        process.kill(m.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await database?.close();
    await anvil?.stop();
    if (databaseUrl) await dropPostgres(databaseUrl);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const members = () => liveMembers(database.db);

  it('serves one port from two workers that share the books, replaces a killed worker, and stops cleanly', async () => {
    // The first worker starts alone and owns every shard; it hands the second its preferred ones over a few ticks.
    // Markets are made once the split is done, so that they land on both.
    const workers = await settledShards(database.db, 2);
    expect(workers.map((w) => w.pid)).not.toContain(supervisor.pid);

    const agents: Agent[] = [];
    for (let i = 0; i < 2; i++) agents.push(await registerAgent(base, i + 1, `worker-trader-${i}`));
    // Markets until both workers own some of their books, so that calls are forwarded between them.
    const markets: string[] = [];
    const ownersOf = async () => {
      const rows = await database.db.selectFrom('markets').select('ledger_market_id').where('address', 'in', markets).execute();
      const shards = await database.db.selectFrom('order_shards').select(['shard', 'owner']).execute();
      return new Set(rows.map((r) => shards.find((s) => s.shard === shardOf(BigInt(r.ledger_market_id!)))?.owner));
    };
    while (markets.length < 4 || ((await ownersOf()).size < 2 && markets.length < 12)) {
      markets.push(await createOrderBook(base, anvil.rpcUrl, agents[0]!, `Will worker market ${markets.length} fill?`));
    }
    expect((await ownersOf()).size).toBe(2);

    let n = 0;
    let retried = 0;
    const place = async (market: string, agent: Agent) => {
      const key = `workers-${n++}`;
      const body = { market, outcome: n % 2, action: 'buy', price: '0.5', shares: '1000000' };
      // A 503 (a book moving between workers) is retried with the same key until the new owner answers.
      const answer = await waitFor(
        async () => {
          const a = await call(base, 'POST', `${AGENT_API}/orderbook/place-order`, { key: agent.key, idempotencyKey: key, body }).catch(() => null);
          if (a && a.status !== 503) return a;
          retried++;
          return null;
        },
        { what: `placement ${key} to be answered`, timeoutMs: 15_000, intervalMs: 100 },
      );
      return { key, answer };
    };
    const round = async () => {
      const answers = await Promise.all(markets.flatMap((m) => agents.map((a) => place(m, a))));
      for (const { answer } of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answers;
    };
    const first = await round();
    // Settled, a call for the other worker's book goes to that worker's own port at once: nothing to retry.
    expect(retried).toBe(0);

    // One worker dies: the supervisor starts another, which joins and takes shards; orders go on through the port.
    const victim = workers[0]!;
    process.kill(victim.pid, 'SIGKILL');
    await supervisor.waitForLine(new RegExp(`^svc: worker ${victim.pid} stopped \\(SIGKILL\\): starting another`), 30_000);
    await waitFor(async () => {
      const m = await members();
      return m.length === 2 && !m.some((w) => w.pid === victim.pid) && m.every((w) => w.shards > 0);
    }, { what: 'a new worker in the dead one’s place, owning shards', timeoutMs: 60_000 });
    const second = await round();

    // Each acknowledged order exists once.
    const ids = [...first, ...second].map(({ answer }) => answer.body.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    const stored = await database.db.selectFrom('orders').select('id').where('id', 'in', ids).execute();
    expect(stored).toHaveLength(ids.length);

    supervisor.child.kill('SIGTERM');
    const exit = await supervisor.exited;
    expect(exit.code).toBe(0);
    expect(supervisor.stdout()).toMatch(/^svc: workers stopped cleanly$/m);
    expect(await members()).toEqual([]);
  });
});

// A process suite (docs/testing.md "Process suites"; docs/operations.md): three real `svc start` processes on one
// PostgreSQL database and one external anvil, all of them candidates to lead. Order load goes through all three at
// once; the leader is SIGKILLed, then the owner of the busiest market. Each order a client was answered for exists once
// (every retry carried its Idempotency-Key, to whichever process was still up), none exists that nobody asked for, the
// leadership and the dead processes' shards moved to the survivors, the ledger's batches commit and `svc ledger verify`
// replays the chain, and a subscriber replaying the event stream from before the load gets each event once, in order.
// PostgreSQL only: PGlite is one process's database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ANVIL_DEV_PRIVATE_KEY, startAnvil, type AnvilHandle } from '../../src/chain/anvil.ts';
import { deployDevTokens, devChainEnv } from '../../src/chain/dev-tokens.ts';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { createVisitorService } from '../../src/services/visitors/visitors.ts';
import { waitingOperations } from '../../src/services/ledger/batch-range.ts';
import { freePort, runSvc, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { AGENT_API, call, createOrderBook, registerAgent, type Agent, type Answer } from '../crash/client.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { waitFor } from '../support/wait.ts';

const CHAIN_ID = 8453;
const AGENTS = 6;
const MARKETS = 3;

interface Proc {
  name: string;
  svc: SvcProcess;
  base: string;
  alive: boolean;
}

/** One acknowledged or refused placement: its key and the final answer. */
interface Placed {
  key: string;
  agent: Agent;
  answer: Answer;
}

describe.skipIf(!onPostgres)('three processes on one PostgreSQL (skipped without DATABASE_URL)', () => {
  let anvil: AnvilHandle;
  let databaseUrl: string;
  let database: Database;
  const dirs: string[] = [];
  const procs: Proc[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID });
    databaseUrl = await freshPostgresUrl();
    // The collateral tokens of an external chain come from the configuration: deployed here, owned by the operator.
    const tokens = await deployDevTokens({ rpcUrl: anvil.rpcUrl, chainId: CHAIN_ID, deployerKey: ANVIL_DEV_PRIVATE_KEY });
    env = {
      ...devChainEnv({ databaseUrl, rpcUrl: anvil.rpcUrl, operatorKey: ANVIL_DEV_PRIVATE_KEY, tokens }),
      LOG_LEVEL: 'warn',
      REGISTRATION_PATHS: 'wallet',
      TRUST_PROXY: 'true',
      LEDGER_SIGNUP_GRANT: '1000000000000000',
      FILLS_FREE_PER_MONTH: '1000000000',
      LEDGER_BATCH_INTERVAL_MS: '500',
      CLUSTER_TICK_MS: '200',
    };
    // Started one after another, as an operator would; each one may lead.
    for (const name of ['p1', 'p2', 'p3']) {
      const dataDir = mkdtempSync(path.join(tmpdir(), `svc-three-${name}-`));
      dirs.push(dataDir);
      const port = await freePort();
      const svc = spawnSvc(['start'], { ...env, DATA_DIR: dataDir, PORT: String(port) });
      procs.push({ name, svc, base: `http://127.0.0.1:${port}`, alive: true });
      await svc.waitForLine(/^svc: ready in /, 120_000);
    }
    database = await openDatabase({ databaseUrl });
  }, 400_000);

  afterAll(async () => {
    for (const p of procs) {
      p.svc.child.kill('SIGKILL');
      await p.svc.exited;
    }
    await database?.close();
    await anvil?.stop();
    if (databaseUrl) await dropPostgres(databaseUrl);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The member id and pid of each process, the leader's, and who owns which shard. */
  const cluster = async () => {
    const members = await database.db.selectFrom('cluster_members').select(['id', 'pid']).execute();
    const leader = await database.db.selectFrom('kv_settings').select('value').where('key', '=', 'cluster.leader').executeTakeFirst();
    const shards = await database.db.selectFrom('order_shards').select(['shard', 'owner']).execute();
    const procOf = (memberId: string | null) => procs.find((p) => members.some((m) => m.id === memberId && m.pid === p.svc.pid));
    return { members, leader: procOf((leader?.value as string | undefined) ?? null), ownerOf: (shard: number) => procOf(shards.find((s) => s.shard === shard)?.owner ?? null), shards };
  };
  const kill = async (p: Proc) => {
    p.alive = false;
    p.svc.child.kill('SIGKILL');
    await p.svc.exited;
  };

  /**
   * Places until answered for good: a 503, a 429, a 409 IDEMPOTENCY_IN_PROGRESS or a connection refused (a killed
   * process) is retried with the same key, on the next process still up.
   */
  const placeUntilAnswered = async (agent: Agent, key: string, body: Record<string, unknown>, start: number): Promise<Answer> => {
    for (let attempt = 0; ; attempt++) {
      const live = procs.filter((p) => p.alive);
      const p = live[(start + attempt) % live.length]!;
      const answer = await call(p.base, 'POST', `${AGENT_API}/orderbook/place-order`, { key: agent.key, idempotencyKey: key, body }).catch(() => null);
      const again = !answer || answer.status === 503 || answer.status === 429 || (answer.status === 409 && answer.body.code === 'IDEMPOTENCY_IN_PROGRESS');
      if (!again) return answer;
      if (attempt > 400) throw new Error(`placement ${key} never answered: ${JSON.stringify(answer?.body)}`);
      await new Promise((r) => setTimeout(r, answer?.status === 429 ? 1_000 : 50));
    }
  };

  it('keeps every order once through a leader and a book owner killed under load; the ledger verifies; events replay once', async () => {
    const first = procs[0]!;
    // Every process is a member; exactly one leads; the 64 shards are spread over the three.
    const before = await cluster();
    expect(before.members).toHaveLength(3);
    expect(before.leader).toBeDefined();
    await waitFor(async () => new Set((await cluster()).shards.map((s) => s.owner)).size === 3, { what: 'the shards spread over three processes' });

    const agents: Agent[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await registerAgent(procs[i % 3]!.base, 100 + i, `three-${i}`));
    const markets: string[] = [];
    for (let m = 0; m < MARKETS; m++) markets.push(await createOrderBook(procs[m % 3]!.base, anvil.rpcUrl, agents[m]!, `Will three processes keep market ${m}'s book?`));
    const ledgerIds = new Map<string, bigint>();
    await waitFor(async () => {
      const rows = await database.db.selectFrom('markets').select(['address', 'ledger_market_id']).where('address', 'in', markets).execute();
      for (const r of rows) if (r.ledger_market_id !== null) ledgerIds.set(r.address, BigInt(r.ledger_market_id));
      return ledgerIds.size === MARKETS;
    }, { what: 'the markets indexed' });
    // A book's depth, read through each process by a web app visitor (no key): the non-owners forward it with its
    // session, which every process verifies (the key derives from the operator key they share).
    const visitor = createVisitorService({ secret: Buffer.from(ANVIL_DEV_PRIVATE_KEY.slice(2), 'hex') }).issue();
    for (const p of procs) {
      const depth = await fetch(`${p.base}${AGENT_API}/discover/markets/${markets[0]}/depth`, { headers: { cookie: `svc_visitor=${visitor}` } });
      expect(depth.status, `depth through ${p.name}`).toBe(200);
      expect(((await depth.json()) as { kind: string }).kind).toBe('orderbook');
    }
    const head = (await database.db.selectFrom('event_sequence').select('last_seq').where('id', '=', 1).executeTakeFirstOrThrow()).last_seq;

    // The load: every agent places through all three processes in turn (most calls are forwarded to the book's owner).
    // The busiest market gets two orders of three.
    const busy = markets[0]!;
    const placed: Placed[] = [];
    let stop = false;
    let n = 0;
    const load = agents.map(async (agent, i) => {
      for (let k = 0; !stop; k++) {
        const market = k % 3 === 2 ? markets[1 + ((k >> 2) % (MARKETS - 1))]! : busy;
        const bid = (i + k) % 2 === 0;
        const body = { market, outcome: 0, action: bid ? 'buy' : 'sell', price: bid ? '0.55' : '0.45', shares: '1000000', tif: k % 5 === 0 ? 'IOC' : 'GTC' };
        // Sells need shares: an even agent buys, an odd one buys outcome 1 (the mirror of a sell of outcome 0).
        const mirrored = bid ? body : { ...body, outcome: 1, action: 'buy', price: '0.55' };
        const key = `three-${agent.name}-${k}`;
        placed.push({ key, agent, answer: await placeUntilAnswered(agent, key, mirrored, i + k + n++) });
      }
    });
    const acked = () => placed.filter((p) => p.answer.status === 201).length;

    await waitFor(() => acked() >= 40, { what: '40 orders placed through three processes', timeoutMs: 60_000 });
    const leader = (await cluster()).leader!;
    await kill(leader);
    // A survivor takes the leadership, and the dead process's shards.
    await waitFor(async () => {
      const c = await cluster();
      return c.leader !== undefined && c.leader.alive && c.shards.every((s) => c.ownerOf(s.shard)?.alive === true);
    }, { what: 'a new leader and every shard owned by a live process', timeoutMs: 30_000 });
    const mark = acked();
    await waitFor(() => acked() >= mark + 30, { what: '30 more orders after the leader died', timeoutMs: 60_000 });

    // The owner of the busy market's book: killed too (one process is left, which takes everything).
    const owner = (await cluster()).ownerOf(Number(ledgerIds.get(busy)! % 64n))!;
    expect(owner.alive).toBe(true);
    await kill(owner);
    const survivor = procs.find((p) => p.alive)!;
    await waitFor(async () => {
      const c = await cluster();
      return c.leader === survivor && c.shards.every((s) => c.ownerOf(s.shard) === survivor);
    }, { what: 'the last process leading and owning every shard', timeoutMs: 30_000 });
    const mark2 = acked();
    await waitFor(() => acked() >= mark2 + 30, { what: '30 more orders on the last process', timeoutMs: 60_000 });
    stop = true;
    await Promise.all(load);
    expect(first).toBeDefined();

    // Nothing lost, nothing doubled: every acknowledged key is one order, and every order of the run is an acknowledged one.
    const ok = placed.filter((p) => p.answer.status === 201);
    expect(placed.filter((p) => p.answer.status !== 201).map((p) => `${p.answer.status} ${JSON.stringify(p.answer.body)}`)).toEqual([]);
    const ids = ok.map((p) => p.answer.body.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    const rows = await database.db.selectFrom('orders').select(['id']).where('market', 'in', markets).execute();
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    const records = await database.db.selectFrom('idempotency_records').select(['idem_key', 'state', 'effect_ref']).where('idem_key', 'like', 'three-%').execute();
    for (const p of ok) expect(records.find((r) => r.idem_key === p.key)?.effect_ref ?? p.answer.body.id).toBe(p.answer.body.id);

    // Each fill is one ledger operation; the survivor's batcher commits them all, and the chain replays to the same root.
    await waitFor(async () => (await waitingOperations(database.db).select('seq').execute()).length === 0, {
      what: 'every ledger operation in a batch',
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await database.db.selectFrom('ledger_batches').select('status').where('status', '!=', 'confirmed').execute()).length === 0, {
      what: 'every ledger batch confirmed',
      timeoutMs: 30_000,
    });
    const proof = await call(survivor.base, 'GET', `/api/v1/ledger/proof/${agents[0]!.account.address}`);
    expect(proof.status).toBe(200);
    const verify = await runSvc(['ledger', 'verify', '--contract', proof.body.contract as string, '--rpc', anvil.rpcUrl], { ...env, DATA_DIR: dirs[0]! });
    expect(verify.code, `svc ledger verify:\n${verify.stdout}${verify.stderr}`).toBe(0);

    // A subscriber replaying from before the load receives each event meant for agent 0 once, in the outbox's order.
    const agent = agents[0]!;
    const meant = (await database.db.selectFrom('events').select(['seq', 'agent_id']).where('seq', '>', head).orderBy('seq').execute())
      .filter((r) => r.agent_id === null || r.agent_id === agent.agentId)
      .map((r) => String(r.seq));
    const got: string[] = [];
    const ws = new WebSocket(`${survivor.base.replace(/^http/, 'ws')}${AGENT_API}/events/ws`, { headers: { authorization: `Bearer ${agent.key}` } });
    ws.on('open', () => ws.send(JSON.stringify({ op: 'subscribe', fromSequence: String(head) })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { op: string; event?: { sequence: string } };
      if (m.op === 'event') got.push(m.event!.sequence);
    });
    ws.on('error', () => undefined);
    try {
      await waitFor(() => got.length >= meant.length, { what: 'the replayed events', timeoutMs: 30_000 });
      expect(got.slice(0, meant.length)).toEqual(meant);
      const reports = ok.filter((p) => p.agent === agent).length;
      expect(reports).toBeGreaterThan(0);
    } finally {
      ws.close();
    }
  }, 300_000);
});

// The crash suite (issue 15): a real `svc start` under order load from a few wallet agents, SIGKILLed — svc itself,
// or only its supervised anvil — at a seeded random moment or right after a "ledger: batch committed on chain" line.
// After every crash: start-up succeeds, every unanswered write retried with its Idempotency-Key either replays or
// runs once, every acknowledged order exists exactly once, each agent's order events are gap-free, every fill
// reaches a committed batch, and `svc ledger verify` replays the chain. PGlite by default, PostgreSQL when
// DATABASE_URL is set (each CI run checks its own backend).
//
//   npx vitest run test/crash                                  # CI: 2 svc kills + 2 anvil kills, seed 15015
//   CRASH_SEED=7 npx vitest run test/crash                     # another sample
//   CRASH_SEED=7 CRASH_ROUNDS=20 npx vitest run test/crash     # manual soak: 20 rounds, kinds drawn from the seed
//   CRASH_LOG_DIR=/tmp/crash-logs …                             # also keep every svc run's output (svc-1.log, …)
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.ts';
import { accepts, cmdlineOf, followLines, listenersOn, runSvc, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { onPostgres } from '../support/harness.ts';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';
import { waitFor } from '../support/wait.ts';
import { AGENT_API, call, createOrderBook, registerAgent, type Agent } from './client.ts';
import { Journal, type Write } from './journal.ts';
import { runAgentLoad, type LoadRound } from './load.ts';
import { prng } from './prng.ts';
import { waitingOperations } from '../../src/services/ledger/batch-range.ts';

const wholeNumber = (name: string, fallback?: number): number | undefined => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number of at least 1, not ${raw}`);
  return Number(raw);
};
const SEED = wholeNumber('CRASH_SEED', 15015)!;
const MANUAL_ROUNDS = wholeNumber('CRASH_ROUNDS');
const AGENTS = 4;
/** A round may take ~45 writes per agent: an agent with less write budget left (120 a minute) hands over to a new one. */
const MIN_WRITES_LEFT = 60;
const BACKEND = onPostgres ? 'PostgreSQL' : 'PGlite';

type Kind = 'svc-random' | 'svc-after-commit' | 'anvil-random' | 'anvil-after-commit';
const KINDS: readonly Kind[] = ['svc-random', 'svc-after-commit', 'anvil-random', 'anvil-after-commit'];
const rnd = prng(SEED);
const PLAN: Kind[] = MANUAL_ROUNDS === undefined ? ['svc-random', 'anvil-after-commit', 'svc-after-commit', 'anvil-random'] : Array.from({ length: MANUAL_ROUNDS }, () => rnd.pick(KINDS));
const COMMITTED = /"msg":"ledger: batch committed on chain"/;
const ANVIL_BACK = /"msg":"chain: anvil is back"/;

let folder: ProcessFolder;
let dataDir: string;
let databaseUrl: string | undefined;
let env: Record<string, string>;
let base = '';
let anvilPort: number;
let svc: SvcProcess;
const running = new Set<SvcProcess>();
const started: SvcProcess[] = [];
/** svc's error-level log lines, with the round they appeared in (0: the setup). */
const errorLines: { round: number; line: string }[] = [];
let currentRound = 0;
const journal = new Journal(() => base, `${SEED}`);
const stats = { kills: { svc: 0, anvil: 0 }, restarts: 0, orphanedAnvils: 0, lastVerifiedNonce: -1n, startedAt: Date.now(), rounds: [] as string[] };
/** Every agent that ever traded (all are checked), and the ones the load runs as now. */
let agents: Agent[] = [];
let active: Agent[] = [];
let market = '';
let ledgerContract = '';
let broken = false;

const rpcUrl = () => `http://127.0.0.1:${anvilPort}`;

beforeAll(async () => {
  console.log(`crash suite on ${BACKEND}: CRASH_SEED=${SEED}${MANUAL_ROUNDS === undefined ? '' : ` CRASH_ROUNDS=${MANUAL_ROUNDS}`}; plan ${PLAN.join(', ')}`);
  folder = await processFolder('svc-crash-');
  ({ dataDir, databaseUrl, anvilPort, base } = folder);
  env = {
    ...folder.env,
    LOG_LEVEL: 'info', // the batcher's commit line is at info
    REGISTRATION_PATHS: 'wallet',
    TRUST_PROXY: 'true',
    LEDGER_BATCH_INTERVAL_MS: '200',
    LEDGER_BATCH_MAX_OPS: '64',
    LEDGER_SIGNUP_GRANT: '1000000000000000',
    FILLS_FREE_PER_MONTH: '1000000000',
  };
});

afterAll(async () => {
  for (const s of running) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
  const logDir = process.env.CRASH_LOG_DIR;
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    for (const [i, s] of started.entries()) writeFileSync(path.join(logDir, `svc-${i + 1}.log`), s.output());
  }
  await folder.remove();
  const c = journal.counts;
  console.log(
    [
      `crash suite on ${BACKEND}: CRASH_SEED=${SEED} rounds=${stats.kills.svc + stats.kills.anvil}/${PLAN.length} in ${((Date.now() - stats.startedAt) / 1000).toFixed(1)} s`,
      `  writes sent ${c.sent}, acknowledged ${c.acknowledged}, refused (4xx final) ${c.refused}, still pending ${journal.pending().length}`,
      `  retried ${c.retried} sends: replayed ${c.replayed}, ran once ${c.ranOnRetry}; replay checks of acknowledged writes ${c.replayChecks}`,
      `  kills: svc ${stats.kills.svc}, anvil ${stats.kills.anvil}; restarts ${stats.restarts}; anvil orphaned by a svc kill ${stats.orphanedAnvils}; agents ${agents.length}`,
      `  seen: 503 place ${c.unavailable.place} / cancel ${c.unavailable.cancel}, IDEMPOTENCY_IN_PROGRESS ${c.inProgress}, 429 ${c.rateLimited}, no answer ${c.network}`,
      ...stats.rounds.map((r) => `  ${r}`),
      ...warnings().map((w) => `  svc logged ${w}`),
      ...errorLines.map((e) => `  round ${e.round} ERROR line: ${e.line.slice(0, 700)}`),
      ...journal.anomalies.map((a) => `  ANOMALY ${a}`),
    ].join('\n'),
  );
});

/** svc's warn and error log lines over every run, counted by level and message. */
function warnings(): string[] {
  const counts = new Map<string, number>();
  for (const s of started) {
    for (const line of s.stdout().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const { level, msg, err } = JSON.parse(line) as { level: number; msg: string; err?: { message?: string } };
        if (level < 40) continue;
        const what = `${level >= 50 ? 'ERROR' : 'warn'} "${msg}"${err?.message ? ` (${err.message.slice(0, 200)})` : ''}`;
        counts.set(what, (counts.get(what) ?? 0) + 1);
      } catch {
        // a line cut by the kill
      }
    }
  }
  return [...counts].map(([what, n]) => `${n}x ${what}`);
}

/** Starts `svc start` and waits for "ready"; a start that fails rejects with its output. */
async function startSvc(): Promise<number> {
  const s = spawnSvc(['start'], env);
  running.add(s);
  started.push(s);
  followLines(s, (line) => {
    if (/^\{"level":(5|6)[0-9],/.test(line)) errorLines.push({ round: currentRound, line });
  });
  void s.exited.then(() => running.delete(s));
  await s.waitForLine(/^svc: ready in /, 90_000);
  svc = s;
  for (const a of agents) a.writesLeft = Number.POSITIVE_INFINITY; // rate budgets live in the process
  return Date.now() - s.spawnedAt;
}

function anvilPid(): number {
  const pids = listenersOn(anvilPort).filter((pid) => path.basename(cmdlineOf(pid)?.[0] ?? '').startsWith('anvil'));
  if (pids.length !== 1) throw new Error(`expected one anvil on port ${anvilPort}, found ${JSON.stringify(pids)}`);
  return pids[0]!;
}

async function health(): Promise<{ status: string; chain: { ok: boolean } }> {
  const res = await call(base, 'GET', `${AGENT_API}/health`, { timeoutMs: 5_000 });
  return res.body;
}

const chainIsUp = async () => {
  const h = await health();
  return h.status === 'ok' && h.chain.ok;
};

/** A guard that fails a wait that never ends, instead of vitest's silent timeout. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms; svc output tail:\n${svc.output().slice(-4000)}`)), ms)));
  return Promise.race([p, guard]).finally(() => clearTimeout(timer));
}

/** Every order event of the agent, paged with `after` until hasMore is false. */
async function orderEvents(agent: Agent): Promise<{ seq: string; type: string; orderId: string; final?: boolean }[]> {
  const events: { seq: string; type: string; orderId: string; final?: boolean }[] = [];
  let after = '0';
  for (;;) {
    const page = await call(base, 'POST', `${AGENT_API}/orderbook/events`, { key: agent.key, body: { after, limit: 200 } });
    if (page.status !== 200) throw new Error(`order events of agent ${agent.index}: ${page.status} ${JSON.stringify(page.body)}`);
    events.push(...page.body.events);
    if (!page.body.hasMore) return events;
    after = page.body.nextAfter;
  }
}

/** The checks after every crash and restart (docs: the issue's list). */
async function checkAfterCrash(round: number): Promise<void> {
  await waitFor(chainIsUp, { timeoutMs: 30_000, intervalMs: 100, what: 'svc to report itself and the chain healthy' });

  // Unanswered writes, sent again with the same key: a replay (their effect happened) or a first run.
  for (const w of journal.pending()) await journal.send(w, round, 'retry');

  // Acknowledged writes, sent again: each agent's last one (the likeliest to straddle the kill) and one drawn at random.
  const sample = new Set<Write>();
  for (const a of agents) {
    const mine = journal.acked().filter((w) => w.agent === a);
    if (mine.length > 0) sample.add(mine.at(-1)!);
  }
  const all = journal.acked();
  if (all.length > 0) sample.add(rnd.fork(`sample-${round}`).pick(all));
  for (const w of sample) await journal.send(w, round, 'replay');
  expect(journal.anomalies, journal.anomalies.join('\n')).toEqual([]);

  // Every fill reaches a batch committed on chain (the batcher resumed), then the events are read as they stay.
  const lists = await waitFor(
    async () => {
      const got = await Promise.all(agents.map(orderEvents));
      return got.every((events) => events.every((e) => e.type !== 'fill' || e.final === true)) ? got : null;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: 'every fill to be final (its ledger batch committed on chain)' },
  );
  for (const [i, events] of lists.entries()) {
    const agent = agents[i]!;
    const seqs = events.map((e) => Number(e.seq));
    expect(seqs, `order event seqs of agent ${agent.index}`).toEqual(seqs.map((_, k) => k + 1));
    const accepted = events.filter((e) => e.type === 'accepted').map((e) => e.orderId);
    expect(new Set(accepted).size, `agent ${agent.index}: an order accepted twice`).toBe(accepted.length);
    const acked = journal
      .acked('/orderbook/place-order')
      .filter((w) => w.agent === agent)
      .map((w) => w.orderId!);
    expect(new Set(acked).size, `agent ${agent.index}: two keys answered with one order`).toBe(acked.length);
    expect([...accepted].sort(), `agent ${agent.index}: orders in the events vs acknowledged placements`).toEqual([...acked].sort());
    // An order is cancelled once at most, and an acknowledged cancellation shows in the events.
    const cancelled = events.filter((e) => e.type === 'cancelled').map((e) => e.orderId);
    expect(new Set(cancelled).size, `agent ${agent.index}: an order cancelled twice`).toBe(cancelled.length);
    const cancels = journal.acked('/orderbook/cancel-order').filter((w) => w.agent === agent && w.answer!.body.status === 'cancelled');
    expect(cancels.map((w) => w.orderId!).filter((id) => !cancelled.includes(id)), `agent ${agent.index}: acknowledged cancellations without a cancelled event`).toEqual([]);
  }

  const verify = await runSvc(['ledger', 'verify', '--contract', ledgerContract, '--rpc', rpcUrl()], env);
  expect(verify.code, `svc ledger verify after round ${round}:\n${verify.stdout}${verify.stderr}`).toBe(0);
  stats.lastVerifiedNonce = BigInt(/batchNonce ([0-9]+)/.exec(verify.stdout)![1]!);
}

/** After a svc SIGKILL: its anvil stops with it (parent-death signal) or stays for the next start to take over. */
async function afterSvcKill(): Promise<void> {
  const exit = await svc.exited;
  expect(exit.signal).toBe('SIGKILL');
  const stopped = await waitFor(async () => !(await accepts(anvilPort)), { timeoutMs: 10_000, what: `anvil on port ${anvilPort} to stop with svc` }).then(
    () => true,
    () => false,
  );
  if (!stopped) stats.orphanedAnvils++;
}

async function crashRound(round: number, kind: Kind): Promise<void> {
  currentRound = round;
  const started = Date.now();
  const before = structuredClone(journal.counts);
  const load: LoadRound = {
    index: round,
    market,
    stopped: false,
    maxSends: 45,
    onAck: () => undefined,
    chainUp: (() => {
      let up: Promise<unknown> | null = null;
      return async () => {
        up ??= waitFor(chainIsUp, { timeoutMs: 30_000, intervalMs: 100, what: 'the chain to be up again' }).finally(() => (up = null));
        await up;
      };
    })(),
  };
  const onSvc = kind.startsWith('svc');
  const anvil = onSvc ? 0 : anvilPid();
  const kill = (): void => {
    process.kill(onSvc ? svc.pid : anvil, 'SIGKILL');
  };
  const pick = rnd.fork(`kill-${round}`);
  let trigger = '';
  let fire!: () => void;
  const killed = new Promise<void>((resolve) => (fire = resolve));
  let stopFollowing: () => void = () => undefined;
  if (kind.endsWith('random')) {
    const acks = pick.int(3, 30);
    const jitterMs = pick.int(0, 40);
    trigger = `after ${acks} acknowledged writes + ${jitterMs} ms`;
    let seen = 0;
    load.onAck = () => {
      if (++seen !== acks) return;
      setTimeout(() => {
        kill();
        fire();
      }, jitterMs);
    };
  } else {
    let skip = pick.int(0, 2);
    trigger = `at batch commit line #${skip + 1} of the round`;
    stopFollowing = followLines(svc, (line) => {
      if (!COMMITTED.test(line) || skip-- !== 0) return;
      kill(); // synchronously, as the line arrives: right after the commit
      fire();
    });
  }
  let anvilBack: Promise<void> | undefined;
  if (!onSvc) {
    let back!: () => void;
    anvilBack = new Promise((resolve) => (back = resolve));
    const stop = followLines(svc, (line) => {
      if (ANVIL_BACK.test(line)) {
        stop();
        back();
      }
    });
  }

  for (const [slot, a] of active.entries()) {
    if (a.writesLeft >= MIN_WRITES_LEFT) continue;
    const fresh = await registerAgent(base, agents.length, `crash-agent-${agents.length}`);
    agents.push(fresh);
    active[slot] = fresh;
  }
  const workers = active.map((a) => runAgentLoad(journal, a, rnd.fork(`load-${round}-${a.index}`), load));
  const first = await within(60_000, `kill trigger (${trigger})`, Promise.race([killed.then(() => 'killed' as const), Promise.all(workers).then(() => 'load ended' as const)]));
  if (first !== 'killed') throw new Error(`round ${round}: the load ended before the kill (${trigger})`);
  stopFollowing();
  let detail: string;
  if (onSvc) {
    stats.kills.svc++;
    load.stopped = true;
    await Promise.all(workers);
    await afterSvcKill();
    const readyMs = await startSvc();
    stats.restarts++;
    detail = `restart ready in ${readyMs} ms`;
  } else {
    stats.kills.anvil++;
    await within(60_000, 'line "chain: anvil is back"', anvilBack!);
    load.stopped = true;
    await Promise.all(workers);
    detail = `anvil ${anvil} -> ${anvilPid()}`;
  }
  await checkAfterCrash(round);
  const c = journal.counts;
  const seen = `acknowledged ${c.acknowledged - before.acknowledged}, no answer ${c.network - before.network}, 503 ${c.unavailable.place - before.unavailable.place}+${c.unavailable.cancel - before.unavailable.cancel}, retries replayed ${c.replayed - before.replayed} / ran ${c.ranOnRetry - before.ranOnRetry} / in progress ${c.inProgress - before.inProgress}`;
  stats.rounds.push(`round ${round} ${kind} (${trigger}): ${detail}; ${seen}; ${Date.now() - started} ms`);
}

describe(`crash suite (${BACKEND}, CRASH_SEED=${SEED})`, () => {
  it('starts svc, registers the agents over HTTP and creates an order book', async () => {
    try {
      const readyMs = await startSvc();
      stats.rounds.push(`first start ready in ${readyMs} ms`);
      agents = [];
      for (let i = 0; i < AGENTS; i++) agents.push(await registerAgent(base, i, `crash-agent-${i}`));
      active = [...agents];
      market = await createOrderBook(base, rpcUrl(), agents[0]!, `Will the crash suite (seed ${SEED}) lose a write?`);
      // The creation is the agent's own transaction: the relayer cannot replay it, so an anvil killed before its next
      // state dump would lose the market (voided as CREATION_REORGED, docs/orderbook.md). Wait for a dump that holds it.
      const created = Date.now();
      const stateFile = path.join(dataDir, 'chain', 'state.json');
      // A dump that began after the creation (a dump in progress at `created` may have been taken before it).
      await waitFor(() => statSync(stateFile).mtimeMs > created + 1_000, { what: `anvil to dump its state to ${stateFile} after the market's creation` });
      const proof = await call(base, 'GET', `/api/v1/ledger/proof/${agents[0]!.account.address}`);
      expect(proof.status).toBe(200);
      ledgerContract = proof.body.contract;
      expect(ledgerContract).toMatch(/^0x[0-9a-fA-F]{40}$/);
    } catch (err) {
      broken = true;
      throw err;
    }
  }, 120_000);

  for (const [i, kind] of PLAN.entries()) {
    it(`round ${i + 1}: SIGKILL ${kind.startsWith('svc') ? 'of svc' : 'of its anvil only'} ${kind.endsWith('random') ? 'at a random moment under load' : 'right after a batch commit'}`, async (ctx) => {
      if (broken) return ctx.skip();
      try {
        await crashRound(i + 1, kind);
      } catch (err) {
        broken = true;
        throw err;
      }
    }, 120_000);
  }

  it('stops cleanly; the database holds every acknowledged order once, and nothing of an unanswered one', async (ctx) => {
    if (broken) return ctx.skip();
    const round = PLAN.length + 1;
    currentRound = round;
    if (MANUAL_ROUNDS !== undefined) {
      // Long mode: wait out the lease of claims the killed processes left, so every write ends answered.
      await waitFor(
        async () => {
          for (const w of journal.pending()) await journal.send(w, round, 'retry');
          return journal.pending().length === 0;
        },
        { timeoutMs: 120_000, intervalMs: 3_000, what: 'every unanswered write to be answered by a retry' },
      );
      await checkAfterCrash(round);
    }
    expect(journal.anomalies, journal.anomalies.join('\n')).toEqual([]);

    svc.child.kill('SIGINT');
    const exit = await within(30_000, 'exit after SIGINT', svc.exited);
    expect(exit, svc.output().slice(-4000)).toEqual({ code: 0, signal: null });

    const database = await openDatabase(databaseUrl ? { databaseUrl } : { pgliteDir: path.join(dataDir, 'pg') });
    try {
      const db = database.db;
      const orders = await db.selectFrom('orders').select(['id', 'agent_id']).where('market', '=', market).execute();
      for (const agent of agents) {
        const stored = orders.filter((o) => o.agent_id === agent.agentId).map((o) => o.id);
        const acked = journal
          .acked('/orderbook/place-order')
          .filter((w) => w.agent === agent)
          .map((w) => w.orderId!);
        expect([...stored].sort(), `agent ${agent.index}: order rows vs acknowledged placements`).toEqual([...acked].sort());
      }
      // A write still unanswered (its claim's lease has not run out yet) made nothing: its claim is open, with no effect.
      for (const w of journal.pending()) {
        const record = await db
          .selectFrom('idempotency_records')
          .select(['state', 'effect_ref'])
          .where('principal', '=', `key:${w.agent.keyId}`)
          .where('idem_key', '=', w.key)
          .executeTakeFirst();
        expect(record ?? { state: 'absent', effect_ref: null }, `idempotency record of unanswered ${w.key}`).toMatchObject({ effect_ref: null });
        expect(['in_progress', 'absent']).toContain(record?.state ?? 'absent');
      }
      // Each fill is one ledger operation, and every operation is in a confirmed batch the chain verified.
      const fills = await db.selectFrom('order_fills').select('ledger_seq').where('market', '=', market).execute();
      const seqs = fills.map((f) => String(f.ledger_seq));
      expect(new Set(seqs).size).toBe(seqs.length);
      const ops = await db.selectFrom('ledger_operations').select('seq').orderBy('seq').execute();
      const opSeqs = new Set(ops.map((o) => String(o.seq)));
      expect(seqs.filter((s) => !opSeqs.has(s))).toEqual([]);
      expect(await waitingOperations(db).select('seq').execute()).toEqual([]);
      const batches = await db.selectFrom('ledger_batches').select(['nonce', 'status', 'first_seq', 'last_seq', 'op_count']).orderBy('nonce').execute();
      expect(batches.map((b) => `${b.nonce}:${b.status}`)).toEqual(batches.map((_, k) => `${k + 1}:confirmed`));
      // The batches' ranges hold every operation once, in seq order: each batch the operations after the one before it.
      let at = 0;
      for (const b of batches) {
        const held = ops.slice(at, at + b.op_count).map((o) => String(o.seq));
        expect([held[0], held[held.length - 1]], `batch ${b.nonce}'s range`).toEqual([String(b.first_seq), String(b.last_seq)]);
        at += b.op_count;
      }
      expect(at).toBe(ops.length);
      expect(BigInt(batches.length)).toBe(stats.lastVerifiedNonce);
    } finally {
      await database.close();
    }
  }, MANUAL_ROUNDS === undefined ? 60_000 : 240_000);
});

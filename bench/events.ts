/**
 * Event fan-out (issue 18): N WebSocket subscribers of /api/agent/v1/events/ws on a real runtime (embedded anvil,
 * PGlite in memory or a fresh PostgreSQL database when DATABASE_URL is set), M public events appended through the
 * outbox, one transaction each, the bus nudged after each commit; next to an anchor: a bare `ws` server on this
 * process broadcasting the same envelope, serialized once per event, to as many clients. Measured: deliveries per
 * second across all clients from the first commit to the last receipt, and latency from commit to receipt, in a burst
 * (the writer as fast as it commits: throughput) and paced at BENCH_EVENT_RATE (latency under a steady load). The
 * clients run in a forked process (this file, started with CLIENT_ARG) so their parsing never shares the server's event
 * loop. Prints, asserts no timing, but throws unless every client received every event exactly once, in order.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import { WS_PATH } from '../src/api/events/transports.ts';
import { envelopeOf } from '../src/core/events/envelope.ts';
import { TIER_DEFAULT_SCOPES } from '../src/core/scopes.ts';
import { appendEvent } from '../src/services/events/outbox.ts';
import { startBenchRuntime } from './markets-listing.ts';
import { intFromEnv, runIfMain, withCleanups } from './scope.ts';
import { percentile } from './open-loop.ts';

export interface EventsBenchOptions {
  /** WebSocket clients of each transport (svc and anchor), all open at once. */
  subscribers: number;
  /** Events per run. */
  events: number;
  /** Events per second of the paced runs; 0 skips them. */
  rate: number;
  log: (line: string) => void;
}

export interface FanoutRun {
  name: string;
  transport: 'svc' | 'anchor';
  mode: 'burst' | 'paced';
  subscribers: number;
  events: number;
  /** Events received, summed over the clients: subscribers × events when the check passed. */
  deliveries: number;
  /** Deliveries per second from the first commit to the last receipt. */
  deliveriesPerSec: number;
  /** Events per second the writer committed (or the anchor was asked to send), first to last. */
  commitRate: number;
  /** Paced runs: how late the commits (anchor: the asks) were against their schedule, p99, ms; NaN in a burst. */
  writerLagP99Ms: number;
  /** Commit (anchor: the ask to send) to receipt by a client, milliseconds, over every delivery. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU time over wall time, percent of one core: this process (runtime, PGlite, anchor) and the client process. */
  serverCpu: number;
  clientCpu: number;
  /** This process's CPU time per delivery, microseconds: less sensitive than wall time to other load on the machine. */
  serverUsPerDelivery: number;
}

export interface EventsBenchReport {
  setup: string[];
  subscribers: number;
  rate: number;
  burst: { anchor: FanoutRun; svc: FanoutRun };
  paced: { anchor: FanoutRun; svc: FanoutRun } | null;
}

const CLIENT_ARG = 'events-client';
const KIND = 'bench.tick';
const MARKET = '0x00000000000000000000000000000000000be4c4';
/** Clients opening at once (the listen backlog is 511). */
const CONNECT_CONCURRENCY = 100;
/** A run fails when no client received anything for this long after the last commit (the bus polls every 500 ms). */
const STALL_MS = 5_000;
/** A paced run lasts this long: BENCH_EVENT_RATE × this many events. */
const PACED_SECONDS = 5;
/** Client CPU (% of a core) from which the client process, not the server, is taken to bound a run. */
const CLIENT_SATURATED = 90;
const TARGET_P99_MS = 50;
const TARGET_THROUGHPUT = 0.5;

const fmt = (x: number, digits: number): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');

/** Milliseconds since the epoch with sub-millisecond resolution, comparable across the two processes. */
const wall = (): number => performance.timeOrigin + performance.now();

/** The payload of event `i` of run `run`: close to a market event's size (the envelope adds ~230 bytes). */
const payloadOf = (run: string, i: number) => ({ bench: run, i, question: `Will the subscribers of this bench receive event ${i} within ${TARGET_P99_MS} ms?` });

// ---- the client process ------------------------------------------------------------------------------------------

type ToClient =
  | { id: number; op: 'open'; set: string; url: string; n: number; key?: string }
  | { id: number; op: 'clock' }
  | { id: number; op: 'arm'; set: string; run: string; m: number }
  | { id: number; op: 'finish'; commits: number[] };
/** A message without its id (the id is added when it is sent). */
type Request = ToClient extends infer T ? (T extends unknown ? Omit<T, 'id'> : never) : never;

interface ClientResult {
  deliveries: number;
  /** Client clock (epoch ms). */
  lastReceipt: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  cpu: number;
  frameBytes: number;
  /** Empty when every client received every event once, in order. */
  problems: string[];
}

type FromClient = { id: number; ok: true; now?: number; ms?: number; result?: ClientResult } | { id: number; ok: false; error: string };

function clientProcess(): void {
  const sets = new Map<string, WebSocket[]>();
  interface Armed {
    set: string;
    run: string;
    m: number;
    /** Per client: the index of the next event it should receive. */
    next: Int32Array;
    /** performance.now() of client c's receipt of event i at c·m + i. */
    receipts: Float64Array;
    received: number;
    lastProgress: number;
    duplicates: number;
    gaps: number;
    frameBytes: number;
    cpu: NodeJS.CpuUsage;
    started: number;
  }
  let armed: Armed | null = null;
  const closedEarly: string[] = [];

  const open = async (set: string, url: string, n: number, key?: string): Promise<void> => {
    const sockets: WebSocket[] = new Array<WebSocket>(n);
    sets.set(set, sockets);
    const one = (c: number) =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(url, { perMessageDeflate: false, headers: key ? { authorization: `Bearer ${key}` } : {} });
        sockets[c] = ws;
        let subscribed = false;
        ws.once('open', () => ws.send(JSON.stringify({ op: 'subscribe' })));
        ws.on('error', (err) => {
          if (!subscribed) reject(err);
        });
        ws.on('close', (code, reason) => {
          if (!subscribed) reject(new Error(`${set} client ${c} closed before it subscribed (${code} ${reason.toString()})`));
          else closedEarly.push(`${set} client ${c}: ${code} ${reason.toString()}`);
        });
        ws.on('message', (raw: Buffer) => {
          const at = performance.now();
          const msg = JSON.parse(raw.toString('utf8')) as { op: string; event?: { data?: { bench?: string; i?: number } } };
          if (msg.op === 'subscribed') {
            subscribed = true;
            return resolve();
          }
          if (msg.op !== 'event') return;
          const a = armed;
          const data = msg.event?.data;
          // Another run's events (or heartbeats) are not this run's deliveries.
          if (a === null || a.set !== set || data?.bench !== a.run || typeof data.i !== 'number') return;
          const expected = a.next[c]!;
          if (data.i < expected) return void a.duplicates++;
          if (data.i > expected) a.gaps++;
          a.receipts[c * a.m + data.i] = at;
          a.next[c] = data.i + 1;
          a.received++;
          a.lastProgress = at;
          if (a.frameBytes === 0) a.frameBytes = raw.length;
        });
      });
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONNECT_CONCURRENCY, n) }, async () => {
        while (next < n) await one(next++);
      }),
    );
  };

  const finish = async (commits: number[]): Promise<ClientResult> => {
    const a = armed;
    if (a === null) throw new Error('finish before arm');
    const total = a.next.length * a.m;
    const asked = performance.now();
    while (a.received < total && performance.now() - Math.max(a.lastProgress, asked) < STALL_MS) await new Promise((r) => setTimeout(r, 20));
    const cpu = process.cpuUsage(a.cpu);
    const cpuWall = Math.max(a.lastProgress, a.started) - a.started;
    armed = null;
    const latencies = new Float64Array(a.received);
    let k = 0;
    let lastReceipt = 0;
    for (let c = 0; c < a.next.length; c++) {
      for (let i = 0; i < a.m; i++) {
        const at = a.receipts[c * a.m + i]!;
        if (at === 0 || k >= latencies.length) continue;
        latencies[k++] = performance.timeOrigin + at - commits[i]!;
        if (at > lastReceipt) lastReceipt = at;
      }
    }
    latencies.sort();
    const problems: string[] = [];
    const short = Array.from(a.next).filter((x) => x < a.m).length;
    if (short > 0) problems.push(`${short} of ${a.next.length} clients missed events (${total - a.received} deliveries missing after ${STALL_MS} ms without progress)`);
    if (a.gaps > 0) problems.push(`${a.gaps} times a client received an event before an earlier one (missed or reordered)`);
    if (a.duplicates > 0) problems.push(`${a.duplicates} events arrived twice`);
    if (closedEarly.length > 0) problems.push(`${closedEarly.length} connections closed, first: ${closedEarly[0]}`);
    return {
      deliveries: a.received,
      lastReceipt: performance.timeOrigin + lastReceipt,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.length === 0 ? Number.NaN : latencies[latencies.length - 1]!,
      cpu: cpuWall > 0 ? ((cpu.user + cpu.system) / 1000 / cpuWall) * 100 : 0,
      frameBytes: a.frameBytes,
      problems,
    };
  };

  process.on('message', (msg: ToClient) => {
    const reply = (r: FromClient) => process.send?.(r);
    const handle = async (): Promise<Omit<FromClient & { ok: true }, 'id' | 'ok'>> => {
      switch (msg.op) {
        case 'open': {
          const t0 = performance.now();
          await open(msg.set, msg.url, msg.n, msg.key);
          return { ms: performance.now() - t0 };
        }
        case 'clock':
          return { now: wall() };
        case 'arm': {
          const sockets = sets.get(msg.set);
          if (!sockets) throw new Error(`no client set ${msg.set}`);
          const n = sockets.length;
          armed = { set: msg.set, run: msg.run, m: msg.m, next: new Int32Array(n), receipts: new Float64Array(n * msg.m), received: 0, lastProgress: 0, duplicates: 0, gaps: 0, frameBytes: 0, cpu: process.cpuUsage(), started: performance.now() };
          return {};
        }
        case 'finish':
          return { result: await finish(msg.commits) };
      }
    };
    handle().then(
      (r) => reply({ id: msg.id, ok: true, ...r }),
      (err: unknown) => reply({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
  // The bench is over (or gone): the sockets close with the process.
  process.on('disconnect', () => process.exit(0));
}

// ---- the server side -----------------------------------------------------------------------------------------------

interface Clients {
  call(msg: Request): Promise<Extract<FromClient, { ok: true }>>;
  close(): Promise<void>;
}

/** Forks this file as the client process; it inherits this process's flags, so tsx's loader runs it too. */
function startClients(): Clients {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [CLIENT_ARG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (r: Extract<FromClient, { ok: true }>) => void; reject: (e: Error) => void }>();
  let seq = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (msg: FromClient) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg);
    else waiter.reject(new Error(`events client: ${msg.error}`));
  });
  child.once('exit', (code) => {
    for (const w of pending.values()) w.reject(new Error(`events client exited (code ${code})`));
    pending.clear();
  });
  return {
    call(msg) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ ...msg, id });
      });
    },
    async close() {
      if (child.connected) child.disconnect();
      if (child.exitCode === null && child.signalCode === null) await exited;
    },
  };
}

/** The client clock minus this one's (ms), from the exchange with the shortest round trip of 20. */
async function clockOffset(clients: Clients): Promise<{ offset: number; rtt: number }> {
  let best = { offset: 0, rtt: Number.POSITIVE_INFINITY };
  for (let k = 0; k < 20; k++) {
    const t0 = wall();
    const { now } = await clients.call({ op: 'clock' });
    const t1 = wall();
    if (t1 - t0 < best.rtt) best = { offset: now! - (t0 + t1) / 2, rtt: t1 - t0 };
  }
  return best;
}

/** The anchor: a bare `ws` server answering a subscribe with `subscribed`, and broadcasting each frame to every client. */
async function listenWsAnchor(cleanups: (() => Promise<void>)[]): Promise<{ url: string; broadcast(frame: Buffer): void }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => wss.once('listening', resolve).once('error', reject));
  wss.on('connection', (ws) => ws.on('message', () => ws.send(JSON.stringify({ op: 'subscribed' }))));
  cleanups.push(async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  const address = wss.address();
  if (address === null || typeof address === 'string') throw new Error('bench: the ws anchor is not listening on a TCP port');
  return {
    url: `ws://127.0.0.1:${address.port}/`,
    broadcast(frame) {
      for (const ws of wss.clients) ws.send(frame, { binary: false });
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function benchEvents(opts: EventsBenchOptions): Promise<EventsBenchReport> {
  const { log, subscribers: n, events: m, rate } = opts;
  return withCleanups(log, async (cleanups) => {
    const runtime = await startBenchRuntime({ log }, cleanups);
    await runtime.listen();
    const address = runtime.http.server.address();
    if (address === null || typeof address === 'string') throw new Error('bench: the runtime is not listening on a TCP port');
    const anchor = await listenWsAnchor(cleanups);
    const clients = startClients();
    cleanups.push(() => clients.close());
    const clock = await clockOffset(clients);

    log(`bench: events: opening ${n} subscribers to svc (${WS_PATH}) and ${n} to the ws anchor`);
    // With a key: keyless subscribers are capped per client address (docs/events.md), and these all come from one.
    const { key } = await runtime.services.keys.create({ tier: 'read-only', scopes: [...TIER_DEFAULT_SCOPES['read-only']] });
    const svcOpen = await clients.call({ op: 'open', set: 'svc', url: `ws://127.0.0.1:${address.port}${WS_PATH}`, n, key });
    const anchorOpen = await clients.call({ op: 'open', set: 'anchor', url: anchor.url, n });

    const { db } = runtime.database;
    const bus = runtime.services.events;
    const chainId = runtime.config.chain.id;
    let anchorSeq = 0n;
    const publish: Record<FanoutRun['transport'], (run: string, i: number) => Promise<number>> = {
      // A commit, then the nudge every writer in src/ sends after its transaction.
      svc: async (run, i) => {
        await db.transaction().execute((trx) => appendEvent(trx, runtime.clock, { type: KIND, chainId, marketAddress: MARKET, payload: payloadOf(run, i) }));
        const committed = wall();
        bus.notify();
        return committed;
      },
      // Serialized once, sent to every client; then the event loop turns, as between two commits of the writer.
      anchor: async (run, i) => {
        const asked = wall();
        const event = envelopeOf({ seq: ++anchorSeq, type: KIND, chainId, marketAddress: MARKET, agentId: null, payload: payloadOf(run, i), createdAt: new Date() });
        anchor.broadcast(Buffer.from(JSON.stringify({ op: 'event', event })));
        await new Promise((resolve) => setImmediate(resolve));
        return asked;
      },
    };

    const fanout = async (transport: FanoutRun['transport'], mode: FanoutRun['mode']): Promise<FanoutRun & { frameBytes: number }> => {
      const name = `${transport === 'svc' ? 'svc: outbox → bus → WebSocket' : 'anchor: bare ws broadcast'}, ${mode === 'burst' ? 'burst' : `${rate} ev/s`}`;
      const count = mode === 'burst' ? m : Math.max(1, Math.round(rate * PACED_SECONDS));
      log(`bench: events: ${name}, ${count} events to ${n} subscribers`);
      const run = `${transport}-${mode}`;
      await clients.call({ op: 'arm', set: transport, run, m: count });
      const commits = new Float64Array(count);
      const lags = new Float64Array(count);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < count; i++) {
        // Paced: event i is due i/rate seconds after the start; a burst sends each as soon as the last is out.
        const due = mode === 'paced' ? t0 + (i * 1000) / rate : performance.now();
        if (due - performance.now() >= 1) await sleep(due - performance.now());
        commits[i] = await publish[transport](run, i);
        lags[i] = commits[i]! - (performance.timeOrigin + due);
      }
      const { result } = await clients.call({ op: 'finish', commits: Array.from(commits, (t) => t + clock.offset) });
      const cpu = process.cpuUsage(cpu0);
      const r = result!;
      if (r.problems.length > 0) throw new Error(`bench: events: ${name}: not every client received every event exactly once, in order: ${r.problems.join('; ')}`);
      const last = r.lastReceipt - clock.offset;
      return {
        name,
        transport,
        mode,
        subscribers: n,
        events: count,
        deliveries: r.deliveries,
        deliveriesPerSec: (r.deliveries / (last - commits[0]!)) * 1000,
        commitRate: count > 1 ? ((count - 1) / (commits[count - 1]! - commits[0]!)) * 1000 : Number.NaN,
        writerLagP99Ms: mode === 'paced' ? percentile(lags.sort(), 99) : Number.NaN,
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        maxMs: r.maxMs,
        serverCpu: ((cpu.user + cpu.system) / 1000 / (last - (performance.timeOrigin + t0))) * 100,
        clientCpu: r.cpu,
        serverUsPerDelivery: (cpu.user + cpu.system) / r.deliveries,
        frameBytes: r.frameBytes,
      };
    };

    const burstAnchor = await fanout('anchor', 'burst');
    const burstSvc = await fanout('svc', 'burst');
    const paced = rate > 0 ? { anchor: await fanout('anchor', 'paced'), svc: await fanout('svc', 'paced') } : null;

    const setup = [
      `${cpus().length} CPU(s), Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} (other processes on this machine skew the numbers), ${runtime.database.kind}`,
      `${n} anonymous WebSocket subscribers per transport ({op:'subscribe'}, no filter), all open at once in one forked client process: ` +
        `svc's opened and subscribed in ${(svcOpen.ms! / 1000).toFixed(1)} s, the anchor's in ${(anchorOpen.ms! / 1000).toFixed(1)} s`,
      'svc: each event one transaction (appendEvent), then events.notify(); latency from the writer seeing its commit to a receipt',
      'anchor: a bare ws server on this process, the same envelope serialized once per event and sent to every client; latency from the ask',
      `frames: svc ${burstSvc.frameBytes} B, anchor ${burstAnchor.frameBytes} B; burst: the writer as fast as it goes (svc committed ${fmt(burstSvc.commitRate, 0)} ev/s, ` +
        `the anchor was asked ${fmt(burstAnchor.commitRate, 0)} ev/s)`,
      paced
        ? `paced: ${rate} ev/s for ${PACED_SECONDS} s; commits behind schedule, p99: svc ${fmt(paced.svc.writerLagP99Ms, 1)} ms, anchor ${fmt(paced.anchor.writerLagP99Ms, 1)} ms (the writer shares the event loop with the fan-out)`
        : 'paced: skipped (BENCH_EVENT_RATE=0)',
      `clocks: the client process's offset ${clock.offset.toFixed(3)} ms (round trip ${clock.rtt.toFixed(3)} ms), corrected; CPU % is of one core, ${cpus().length} shared by server and clients`,
      'check: every client received every event of every run exactly once, in order',
    ];
    // One process receives every frame: when it runs out of CPU first, the anchor measures the clients, not ws.
    if (burstAnchor.clientCpu >= CLIENT_SATURATED) {
      setup.push(
        `caveat: the client process was saturated in the anchor's burst (${fmt(burstAnchor.clientCpu, 0)} % of a core): that row is a floor of a bare ws server's deliveries/s, so svc's share is an upper bound`,
      );
    }
    return { setup, subscribers: n, rate, burst: { anchor: burstAnchor, svc: burstSvc }, paced };
  });
}

const times = (x: number): string => `${x >= 0.1 ? x.toFixed(2) : x.toPrecision(2)}×`;

/** The report as an aligned text table, with the issue's targets. */
export function formatEventsReport(report: EventsBenchReport): string {
  const header = ['scenario', 'subscribers', 'events', 'deliveries/s', 'p50 ms', 'p99 ms', 'max ms', 'server CPU', 'µs/delivery', 'client CPU', 'vs anchor'];
  const line = (r: FanoutRun, anchor: FanoutRun): string[] => [
    r.name,
    fmt(r.subscribers, 0),
    fmt(r.events, 0),
    fmt(r.deliveriesPerSec, 0),
    fmt(r.p50Ms, 1),
    fmt(r.p99Ms, 1),
    fmt(r.maxMs, 1),
    `${fmt(r.serverCpu, 0)} %`,
    fmt(r.serverUsPerDelivery, 1),
    `${fmt(r.clientCpu, 0)} %`,
    // A burst compares throughput; a paced run asks both for the same deliveries/s, so it compares latency.
    r === anchor ? '' : r.mode === 'burst' ? `${times(r.deliveriesPerSec / anchor.deliveriesPerSec)} deliveries/s` : `${times(r.p99Ms / anchor.p99Ms)} p99`,
  ];
  const pairs = [report.burst, ...(report.paced ? [report.paced] : [])];
  const cells = [header, ...pairs.flatMap((p) => [line(p.anchor, p.anchor), line(p.svc, p.anchor)])];
  const widths = header.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  const render = (row: string[]) => row.map((cell, c) => (c === 0 || c === 10 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();

  const at = report.subscribers === 1_000 ? 'at 1,000 subscribers' : `at ${fmt(report.subscribers, 0)} subscribers (the target is stated at 1,000)`;
  const share = report.burst.svc.deliveriesPerSec / report.burst.anchor.deliveriesPerSec;
  const latency = report.paced?.svc ?? report.burst.svc;
  const targets = [
    `target (issue 18): p99 under ${TARGET_P99_MS} ms ${at}, ${report.paced ? `paced at ${report.rate} ev/s` : 'burst'}: ${latency.p99Ms < TARGET_P99_MS ? 'met' : 'NOT met'} (${fmt(latency.p99Ms, 1)} ms${report.paced ? `; burst ${fmt(report.burst.svc.p99Ms, 1)} ms` : ''})`,
    `target (issue 18): at least ${TARGET_THROUGHPUT * 100} % of the anchor's deliveries/s, burst: ${share >= TARGET_THROUGHPUT ? 'met' : 'NOT met'} (${fmt(share * 100, 1)} %)`,
  ];
  return [...report.setup.map((l) => `# ${l}`), '', render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(render), '', ...targets].join('\n');
}

/**
 * BENCH_EVENT_SUBSCRIBERS (1..10,000, default 1000), BENCH_EVENT_COUNT (events per burst, 1..100,000, default 1000: at
 * 2,000 the two bursts are 4 M frames and the bench takes over a minute on 2 cores) and BENCH_EVENT_RATE (events/s of
 * the paced runs, 0..1,000, default 20; 0 skips them).
 */
export const eventsOptionsFromEnv = (): { subscribers: number; events: number; rate: number } => ({
  subscribers: intFromEnv('BENCH_EVENT_SUBSCRIBERS', 1_000, 1, 10_000),
  events: intFromEnv('BENCH_EVENT_COUNT', 1_000, 1, 100_000),
  rate: intFromEnv('BENCH_EVENT_RATE', 20, 0, 1_000),
});

if (process.argv[2] === CLIENT_ARG && process.send !== undefined) {
  clientProcess();
} else {
  runIfMain(import.meta.url, async (log) => {
    const report = await benchEvents({ ...eventsOptionsFromEnv(), log });
    log('');
    log(formatEventsReport(report));
  });
}

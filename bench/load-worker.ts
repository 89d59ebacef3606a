// The load generator's process (forked by load.ts, so the client never competes with the server for its
// event loop): a closed loop of N keep-alive connections, each sending its next request (a GET, or the next
// POST of a script) when the last answer ended; or, with a rate, an open loop sending each request when it is due.
import { performance } from 'node:perf_hooks';
import { Http1Connection, type Answer, type Outgoing } from './http1.ts';
import type { LoadJob, LoadResult, WorkerReply, WorkerRequest } from './load.ts';
import { latencySummary, openLoop as scheduleOpenLoop, percentile, unansweredAfterWindow } from './open-loop.ts';

/**
 * Up to `max` keep-alive connections to one server, each lent to one request at a time; a request that finds them all
 * busy waits, first come first served, for one to be handed back.
 */
class ConnectionPool {
  readonly #idle: Http1Connection[] = [];
  readonly #all: Http1Connection[] = [];
  readonly #waiting: ((c: Http1Connection) => void)[] = [];
  readonly #open: () => Http1Connection;
  readonly #max: number;

  /** `open` makes a connection to the pool's server, up to `max` of them. */
  constructor(open: () => Http1Connection, max: number) {
    this.#open = open;
    this.#max = max;
  }

  /** A free connection; `queued` is called if there is none yet, and what it answers once one is handed over. */
  acquire(queued?: () => () => void): Promise<Http1Connection> | Http1Connection {
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#all.length < this.#max) {
      const made = this.#open();
      this.#all.push(made);
      return made;
    }
    const served = queued?.();
    return new Promise((resolve) =>
      this.#waiting.push((c) => {
        served?.();
        resolve(c);
      }),
    );
  }

  release(c: Http1Connection): void {
    const next = this.#waiting.shift();
    if (next) next(c);
    else this.#idle.push(c);
  }

  close(): void {
    for (const c of this.#all) c.close();
  }
}

/** The request `out` describes, as the job sends it. */
function outgoing(job: LoadJob, token: string | undefined, body: string | undefined, idempotencyKey: string | undefined): Outgoing {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method: job.method ?? 'GET', path: job.path, headers, ...(body === undefined ? {} : { body }) };
}

/** One request over a connection of the pool; the answer's body is kept only when `keepBody`, for a sample of a failure. */
async function send(pool: ConnectionPool, out: Outgoing, keepBody: boolean, queued?: () => () => void): Promise<Answer> {
  const lent = pool.acquire(queued);
  const connection = lent instanceof Http1Connection ? lent : await lent;
  try {
    return await connection.request(out, keepBody);
  } finally {
    pool.release(connection);
  }
}

async function runJob(job: LoadJob): Promise<LoadResult> {
  // A pool a server, each of up to job.connections (as node's http.Agent held that many sockets an origin).
  const pools = new Map<number, ConnectionPool>();
  const poolOf = (port: number): ConnectionPool => {
    let pool = pools.get(port);
    if (!pool) pools.set(port, (pool = new ConnectionPool(() => new Http1Connection(job.host, port), job.connections)));
    return pool;
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  const measureFrom = start + job.warmupMs;
  const end = measureFrom + job.durationMs;
  const latencies: number[] = [];
  const slow: [number, number][] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let bytes = 0;
  let errors = 0;
  let sample: string | undefined;
  let next = 0;
  const okStatus = job.okStatus ?? 200;
  const request = (n: number): Outgoing => {
    const scripted = job.script === undefined || job.script.length === 0 ? undefined : job.script[n % job.script.length]!;
    const token = scripted ? scripted.token : job.tokens.length === 0 ? undefined : job.tokens[n % job.tokens.length];
    return outgoing(job, token, scripted?.body, job.idempotencyPrefix === undefined ? undefined : `${job.idempotencyPrefix}-${n}`);
  };

  /** The port of connection (closed loop) or request (open loop) `i`: the ports in turn, as a round-robin balancer. */
  const portOf = (i: number): number => (job.ports && job.ports.length > 0 ? job.ports[i % job.ports.length]! : job.port);

  /** Counts an answer in the window, its latency from `from` (when it was sent, or due). */
  const tally = (answer: Answer, from: number): void => {
    const latency = performance.now() - from;
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status === okStatus) {
      ok++;
      bytes += answer.bytes;
      latencies.push(latency);
      // The wall clock, which the service's process shares (their monotonic clocks start at different moments).
      if (job.slowMs !== undefined && latency > job.slowMs) slow.push([Date.now() - latency, latency]);
    } else {
      sample ??= `${answer.status} ${(answer.body ?? '').slice(0, 300)}`;
    }
  };

  const connection = async (index: number): Promise<void> => {
    const port = portOf(index);
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      const out = request(next++);
      try {
        const answer = await send(poolOf(port), out, sample === undefined);
        // Only answers that both started and ended inside the window count.
        if (t0 < measureFrom || performance.now() > end) continue;
        tally(answer, t0);
      } catch (err) {
        errors++;
        sample ??= `network error: ${(err as Error).message}`;
        // A refused connection fails at once: do not spin.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };

  /**
   * Open loop: request n is due at start + n / rate, sent then whatever is still in flight (its pool queues it while
   * every connection is busy), and timed from when it was due. Counted when it was due inside the window; the run waits
   * for those up to UNANSWERED_AFTER_MS past the window's end, and counts the rest as unanswered.
   */
  let unanswered = 0;
  /** Open loop: the requests counted, those of them that found every connection busy, and how long those waited for one. */
  let countedDue = 0;
  let queuedDue = 0;
  const waits: number[] = [];
  const openLoop = async (rate: number): Promise<void> => {
    const inFlight = new Set<Promise<void>>();
    const one = async (due: number, n: number): Promise<void> => {
      const out = request(n);
      const port = portOf(n);
      const counted = due >= measureFrom && due < end;
      if (counted) countedDue++;
      const queued = counted
        ? () => {
            queuedDue++;
            return () => void waits.push(performance.now() - due);
          }
        : undefined;
      try {
        const answer = await send(poolOf(port), out, sample === undefined, queued);
        if (counted) tally(answer, due);
      } catch (err) {
        if (!counted) return;
        errors++;
        sample ??= `network error: ${(err as Error).message}`;
      }
    };
    next = await scheduleOpenLoop(rate, start, end, (due, n) => {
      const p = one(due, n);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    });
    unanswered = await unansweredAfterWindow(inFlight);
  };

  if (job.ratePerSecond !== undefined) await openLoop(job.ratePerSecond);
  else await Promise.all(Array.from({ length: job.connections }, (_, i) => connection(i)));
  for (const pool of pools.values()) pool.close();
  const used = process.cpuUsage(cpu);
  const waited = Float64Array.from(waits).sort();
  return {
    ok,
    rps: ok / (job.durationMs / 1000),
    sent: next,
    ...latencySummary(latencies),
    statuses,
    errors,
    bytesPerResponse: ok === 0 ? 0 : Math.round(bytes / ok),
    clientCpuUs: used.user + used.system,
    ...(job.ratePerSecond === undefined
      ? {}
      : { unanswered, clientWait: { queued: queuedDue, of: countedDue, p50Ms: percentile(waited, 50), p99Ms: percentile(waited, 99), maxMs: waited.at(-1) ?? Number.NaN } }),
    ...(sample === undefined ? {} : { sample }),
    ...(job.slowMs === undefined ? {} : { slow }),
  };
}

process.on('message', (msg: WorkerRequest) => {
  const reply = (r: WorkerReply) => process.send?.(r);
  runJob(msg.job).then(
    (result) => reply({ id: msg.id, result }),
    (err: unknown) => reply({ id: msg.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});

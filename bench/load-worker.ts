// The load generator's process (forked by load.ts, so the client never competes with the server for its
// event loop): a closed loop of N keep-alive connections, each sending its next request (a GET, or the next
// POST of a script) when the last answer ended; or, with a rate, an open loop sending each request when it is due.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { LoadJob, LoadResult, WorkerReply, WorkerRequest } from './load.ts';

interface Answer {
  status: number;
  bytes: number;
  body: string | null;
}

interface Outgoing {
  token: string | undefined;
  /** JSON text of a POST. */
  body: string | undefined;
  idempotencyKey: string | undefined;
}

/**
 * One request; the answer's body is read to the end (and kept only when `keepBody`, for a sample of a failure).
 * `queued`: called if the request finds every connection of the agent busy; what it answers is called when one frees.
 */
function send(agent: http.Agent, job: LoadJob, port: number, out: Outgoing, keepBody: boolean, queued?: () => () => void): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (out.token !== undefined) headers.authorization = `Bearer ${out.token}`;
    if (out.idempotencyKey !== undefined) headers['idempotency-key'] = out.idempotencyKey;
    if (out.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(out.body));
    }
    const req = http.request({ agent, host: job.host, port, path: job.path, method: job.method ?? 'GET', headers }, (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (keepBody) chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, body: keepBody ? Buffer.concat(chunks).toString('utf8') : null }));
      res.on('error', reject);
    });
    req.on('error', reject);
    // The agent appends a request it has no connection for to its origin's queue until one frees: the last entry, as
    // this request was just made (looking through the whole queue would cost the client more the further behind it is).
    if (queued && Object.values(agent.requests).some((waiting) => waiting?.at(-1) === req)) req.once('socket', queued());
    req.end(out.body);
  });
}

/** Open loop: how long after its window a run waits for the answers of requests due inside it. */
const UNANSWERED_AFTER_MS = 5_000;

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

async function runJob(job: LoadJob): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections, maxFreeSockets: job.connections });
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
  const outgoing = (n: number): Outgoing => {
    const scripted = job.script === undefined || job.script.length === 0 ? undefined : job.script[n % job.script.length]!;
    const token = scripted ? scripted.token : job.tokens.length === 0 ? undefined : job.tokens[n % job.tokens.length];
    return { token, body: scripted?.body, idempotencyKey: job.idempotencyPrefix === undefined ? undefined : `${job.idempotencyPrefix}-${n}` };
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
      const out = outgoing(next++);
      try {
        const answer = await send(agent, job, port, out, sample === undefined);
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
   * Open loop: request n is due at start + n / rate, sent then whatever is still in flight (the agent queues it while
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
      const out = outgoing(n);
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
        const answer = await send(agent, job, port, out, sample === undefined, queued);
        if (counted) tally(answer, due);
      } catch (err) {
        if (!counted) return;
        errors++;
        sample ??= `network error: ${(err as Error).message}`;
      }
    };
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        for (;;) {
          const due = start + (next * 1000) / rate;
          if (due >= end) return resolve();
          if (due > now) break;
          const p = one(due, next++);
          inFlight.add(p);
          void p.finally(() => inFlight.delete(p));
        }
        setTimeout(tick, Math.max(0, start + (next * 1000) / rate - performance.now()));
      };
      tick();
    });
    const gaveUp = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), UNANSWERED_AFTER_MS).unref());
    if ((await Promise.race([Promise.all(inFlight), gaveUp])) === 'late') unanswered = inFlight.size;
  };

  if (job.ratePerSecond !== undefined) await openLoop(job.ratePerSecond);
  else await Promise.all(Array.from({ length: job.connections }, (_, i) => connection(i)));
  agent.destroy();
  const used = process.cpuUsage(cpu);
  const sorted = Float64Array.from(latencies).sort();
  const waited = Float64Array.from(waits).sort();
  return {
    ok,
    rps: ok / (job.durationMs / 1000),
    sent: next,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    meanMs: sorted.length === 0 ? Number.NaN : sorted.reduce((a, b) => a + b, 0) / sorted.length,
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

// A small HTTP load client, closed loop or at a fixed rate (open loop). It runs in a forked process (load-worker.ts) so that its own CPU
// use does not slow the server under test, which shares this process's event loop with the anchor.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** One request of a scripted POST stream: its JSON body and the Bearer token that sends it. */
export interface ScriptedRequest {
  body: string;
  token?: string;
}

export interface LoadJob {
  host: string;
  port: number;
  /** Several servers behind no balancer: connection i talks to ports[i mod n] (`port` is then unused). */
  ports?: readonly number[];
  /** Path and query string. */
  path: string;
  /** Bearer tokens used in turn, one per request; empty: no Authorization header. Not used with `script`. */
  tokens: readonly string[];
  connections: number;
  /** Requests before the window are sent but not counted. */
  warmupMs: number;
  durationMs: number;
  /** GET (the default) or POST. */
  method?: 'GET' | 'POST';
  /** POST: the bodies and tokens sent in turn across all connections, starting over after the last. */
  script?: readonly ScriptedRequest[];
  /** Each request carries `Idempotency-Key: <prefix>-<n>`, n counting every request of the job. */
  idempotencyPrefix?: string;
  /** The status that counts as success (default 200). */
  okStatus?: number;
  /** Report each successful answer slower than this (LoadResult.slow). */
  slowMs?: number;
  /**
   * Open loop: requests leave at this fixed rate (requests a second), each at its scheduled moment whatever the answers
   * before it, over at most `connections` keep-alive connections; one that finds them all busy waits for one. Latency
   * counts from the scheduled moment, so a server that falls behind shows it in the percentiles (no coordinated
   * omission). Unset: a closed loop, each connection sending its next request when its last answer ended.
   */
  ratePerSecond?: number;
}

export interface LoadResult {
  /** Successful answers (okStatus, default 200) that started and ended inside the measured window. */
  ok: number;
  /** ok per second of the window. */
  rps: number;
  /** Requests sent, warm-up and the window's unfinished tail included (a script starts over after this many of its entries). */
  sent: number;
  /** Latency percentiles of the successful answers, milliseconds (NaN without any). */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** The mean latency: with a closed loop of N connections, rps is about N / meanMs, so the tail above p50 costs rate too. */
  meanMs: number;
  /** Answers in the window by HTTP status. */
  statuses: Record<string, number>;
  /** Requests that failed below HTTP (refused, reset). */
  errors: number;
  /** Open loop: requests scheduled in the window that had no answer by the time the run gave up on them (5 s after it). */
  unanswered?: number;
  /**
   * Open loop: of the `of` requests due in the window, the `queued` ones found every connection of the client busy with an
   * earlier request and waited for one to free; the times are how long, from when they were due, for those that got one
   * (ms, NaN with none). That part of their latency is the client's cap on connections, not the server's.
   */
  clientWait?: { queued: number; of: number; p50Ms: number; p99Ms: number; maxMs: number };
  bytesPerResponse: number;
  /**
   * The load process's CPU time over the whole job (warm-up and the wait for the last answers included), µs: what the
   * client took of a machine it shares with the server under test.
   */
  clientCpuUs: number;
  /** The first failure seen (status and the start of its body), to tell throttling from a bug. */
  sample?: string;
  /** With `slowMs`: each answer slower than that, as [when it was sent (epoch ms), its latency ms]. */
  slow?: [number, number][];
}

export interface WorkerRequest {
  id: number;
  job: LoadJob;
}

export type WorkerReply = { id: number; result: LoadResult } | { id: number; error: string };

export interface LoadClient {
  run(job: LoadJob): Promise<LoadResult>;
  close(): Promise<void>;
}

/** Forks the load process; it inherits this process's flags, so it runs compiled as the bench does (bench/compile.mjs). */
export function startLoadClient(): LoadClient {
  const child: ChildProcess = fork(fileURLToPath(new URL('./load-worker.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  let seq = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (msg: WorkerReply) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if ('error' in msg) waiter.reject(new Error(`load client: ${msg.error}`));
    else waiter.resolve(msg.result);
  });
  child.once('exit', (code) => {
    for (const w of pending.values()) w.reject(new Error(`load client exited (code ${code}) during a run`));
    pending.clear();
  });
  return {
    run(job) {
      const id = ++seq;
      return new Promise<LoadResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, job } satisfies WorkerRequest);
      });
    },
    async close() {
      if (child.connected) child.disconnect();
      if (child.exitCode === null && child.signalCode === null) await exited;
    },
  };
}

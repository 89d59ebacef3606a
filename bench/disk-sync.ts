/**
 * How long the disk takes to make a small write durable while a scenario runs: every `everyMs` an 8 KB write and an
 * `fdatasync` of a file in `dir`, timed, on a thread of its own (so the service's event loop neither delays nor pays
 * for it). Every placement round ends in a COMMIT that waits for the write-ahead log's flush, one round after
 * another, so a disk whose flush stalls under load puts its stalls into the order loop's tail (docs/orderbook.md,
 * session 33: p99 0.7 ms idle against p99 7.3 ms and up to 60 ms under the order bench on one VM). The file should
 * be on the database's disk; with a PostgreSQL server on another machine this measures the wrong disk, and says so
 * only by its numbers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { latencySummary } from './open-loop.ts';

/** Flushes of this long or more are counted apart. */
export const SLOW_SYNC_MS = 10;

export interface DiskSync {
  /** Flushes timed. */
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Flushes of SLOW_SYNC_MS or more. */
  slow: number;
}

/** A summary of flush times (ms); null without any. */
export function diskSyncOf(times: readonly number[]): DiskSync | null {
  if (times.length === 0) return null;
  const { p50Ms, p99Ms } = latencySummary(times);
  return { count: times.length, p50Ms, p99Ms, maxMs: Math.max(...times), slow: times.filter((t) => t >= SLOW_SYNC_MS).length };
}

/** The worker's code: flush, time, report each time, sleep (Atomics.wait: the thread has nothing else to do). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const fd = fs.openSync(workerData.file, 'w');
const page = Buffer.alloc(8192, 120);
const nap = new Int32Array(new SharedArrayBuffer(4));
const stop = new Int32Array(workerData.stop);
while (Atomics.load(stop, 0) === 0) {
  const t0 = performance.now();
  fs.writeSync(fd, page, 0, page.length, 0);
  fs.fdatasyncSync(fd);
  parentPort.postMessage(performance.now() - t0);
  Atomics.wait(nap, 0, 0, workerData.everyMs);
}
fs.closeSync(fd);
`;

/**
 * Starts timing flushes in `dir` (a fresh folder under the system's temporary one by default); `stop()` ends the thread,
 * removes the file and answers what it measured (null if nothing was timed).
 */
export function watchDiskSync(opts: { everyMs?: number; dir?: string; onSample?: (ms: number) => void } = {}): { stop(): Promise<DiskSync | null> } {
  const dir = mkdtempSync(join(opts.dir ?? tmpdir(), 'svc-bench-sync-'));
  const stopFlag = new SharedArrayBuffer(4);
  const times: number[] = [];
  const worker = new Worker(WORKER, { eval: true, workerData: { file: join(dir, 'probe'), everyMs: opts.everyMs ?? 20, stop: stopFlag } });
  worker.on('message', (ms: number) => {
    times.push(ms);
    opts.onSample?.(ms);
  });
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined);
  return {
    async stop() {
      Atomics.store(new Int32Array(stopFlag), 0, 1);
      await ended;
      rmSync(dir, { recursive: true, force: true });
      return diskSyncOf(times);
    },
  };
}

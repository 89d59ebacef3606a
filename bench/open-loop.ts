/**
 * An open loop's schedule and its percentiles, shared by the HTTP load client (load-worker.ts) and the order path
 * placed in the service's own process (direct-placements.ts): request n is due at start + n / rate whatever is still
 * in flight, and is timed from when it was due, so a server that falls behind shows it (no coordinated omission).
 */
import { performance } from 'node:perf_hooks';

/** The p-th percentile of ascending `sorted` by nearest rank (NaN when empty). */
export const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** Latency percentiles and the mean of `latencies` (ms; NaN without any), as a load result reports them. */
export function latencySummary(latencies: readonly number[]): { p50Ms: number; p90Ms: number; p99Ms: number; meanMs: number } {
  const sorted = Float64Array.from(latencies).sort();
  return {
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    meanMs: sorted.length === 0 ? Number.NaN : sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** How long after its window an open loop waits for the answers of requests due inside it. */
export const UNANSWERED_AFTER_MS = 5_000;

/** Waits for what is in flight to settle, UNANSWERED_AFTER_MS at most; answers how many had not by then. */
export async function unansweredAfterWindow(inFlight: Iterable<Promise<unknown>>): Promise<number> {
  const all = [...inFlight];
  let settled = 0;
  const each = all.map((p) => p.then(() => void settled++, () => void settled++));
  const gaveUp = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), UNANSWERED_AFTER_MS).unref());
  return (await Promise.race([Promise.all(each), gaveUp])) === 'late' ? all.length - settled : 0;
}

export interface OpenLoopClock {
  now(): number;
  /** Calls `run` once `ms` have passed (a timer). */
  after(ms: number, run: () => void): void;
}

const realClock: OpenLoopClock = { now: () => performance.now(), after: (ms, run) => void setTimeout(run, ms) };

/**
 * Calls `fire(due, n)` for n = first, first + 1, … at `start + n * 1000 / rate` (each as soon as a timer finds it due,
 * several in one turn when the loop ran late), until the next would be due at or after `end`; answers then, with the
 * number of the next request (what was sent). What `fire` starts is the caller's to await.
 */
export function openLoop(rate: number, start: number, end: number, fire: (due: number, n: number) => void, { first = 0, clock = realClock }: { first?: number; clock?: OpenLoopClock } = {}): Promise<number> {
  if (!(rate > 0)) throw new RangeError(`open loop: the rate must be above 0; got ${rate}`);
  let next = first;
  const dueOf = (n: number) => start + (n * 1000) / rate;
  return new Promise((resolve) => {
    const tick = () => {
      const now = clock.now();
      for (;;) {
        const due = dueOf(next);
        if (due >= end) return resolve(next);
        if (due > now) break;
        fire(due, next++);
      }
      clock.after(Math.max(0, dueOf(next) - clock.now()), tick);
    };
    tick();
  });
}

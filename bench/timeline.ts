/**
 * What the slowest placements waited for (BENCH_PLACE_STALLS): the load client reports each answer slower than a
 * threshold with the wall-clock moment it was sent (load.ts `slowMs`), and this records, in the service's process and
 * on the same clock, every turn on the embedded database's connection (with its kind and who asked), every block of
 * the event loop and every pause of the garbage collector. Answers slow together are one stall (the connections
 * waited for the same thing); the longest stalls are printed with what happened during each. Wall-clock time on both
 * sides, since the two processes' monotonic clocks start at different moments.
 */
import diagnostics from 'node:diagnostics_channel';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { PGLITE_HOLDS_CHANNEL, type PGliteHold } from '../src/db/pglite-dialect.ts';
import { originOf } from './holds.ts';

/** A moment of the service: when it began (epoch ms), how long it lasted, what it was. */
type Happening = [at: number, ms: number, what: string];

/** Blocks of the event loop shorter than this are not recorded (a 1 ms timer measures them). */
const LOOP_BLOCK_MS = 8;
/** Turns on the connection and collections shorter than this are left out of a stall's account. */
const SHORT_MS = 2;
/** Slow answers sent within this of each other belong to one stall. */
const SAME_STALL_MS = 5;

/** Wall-clock now with the monotonic clock's fraction of a millisecond. */
const now = (): number => Date.now() + (performance.now() % 1);

export interface Timeline {
  /** Stops recording; answers lines on the `top` longest stalls among `slow` answers ([sent at, latency ms]). */
  stop(slow: readonly (readonly [number, number])[], top: number): string[];
}

export function startTimeline(): Timeline {
  const seen: Happening[] = [];
  const onHold = (message: unknown) => {
    const { stack, heldMs, waitedMs, priority } = message as PGliteHold;
    if (heldMs >= SHORT_MS) seen.push([now() - heldMs, heldMs, `${priority} turn: ${originOf(stack)}, after waiting ${waitedMs.toFixed(1)} ms`]);
  };
  diagnostics.subscribe(PGLITE_HOLDS_CHANNEL, onHold);
  let last = now();
  let lastCpu = process.cpuUsage();
  const ticks = setInterval(() => {
    const t = now();
    const cpu = process.cpuUsage();
    // The process's CPU time over the gap (all its threads): near the gap, its own work blocked the loop; well under it,
    // the machine ran something else meanwhile (another process had the core).
    if (t - last >= LOOP_BLOCK_MS) seen.push([last, t - last, `event loop blocked (${((cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000).toFixed(1)} ms on CPU)`]);
    last = t;
    lastCpu = cpu;
  }, 1);
  const collections = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration >= SHORT_MS) seen.push([now() - (performance.now() - e.startTime), e.duration, `garbage collection (${e.name}, kind ${(e as { detail?: { kind?: number } }).detail?.kind ?? '?'})`]);
  });
  collections.observe({ entryTypes: ['gc'] });
  return {
    stop(slow, top) {
      clearInterval(ticks);
      collections.disconnect();
      diagnostics.unsubscribe(PGLITE_HOLDS_CHANNEL, onHold);
      const stalls: { at: number; ms: number; answers: number }[] = [];
      for (const [at, ms] of [...slow].sort((a, b) => a[0] - b[0])) {
        const current = stalls[stalls.length - 1];
        if (current && at - current.at < SAME_STALL_MS) {
          current.answers++;
          current.ms = Math.max(current.ms, ms);
        } else stalls.push({ at, ms, answers: 1 });
      }
      const lines: string[] = [];
      seen.sort((a, b) => a[0] - b[0]);
      for (const stall of stalls.sort((a, b) => b.ms - a.ms).slice(0, top)) {
        lines.push(`${stall.answers} placement(s) sent together waited up to ${stall.ms.toFixed(0)} ms; meanwhile (ms from their sending):`);
        for (const [at, ms, what] of seen) {
          if (at + ms >= stall.at - SAME_STALL_MS && at <= stall.at + stall.ms) lines.push(`  ${(at - stall.at).toFixed(0).padStart(5)} +${ms.toFixed(1).padStart(5)}  ${what}`);
        }
      }
      return lines;
    },
  };
}

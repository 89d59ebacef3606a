/**
 * How late the service's event loop ran what was ready while a scenario ran: a timer every millisecond, and how much
 * later than that it fired (node's monitorEventLoopDelay, less its own millisecond). A placement transaction's phases
 * "in the database" (round-phases.ts) end when the event loop reads the answers, so on PostgreSQL this lateness is in
 * them too: on a loop busy with the HTTP edge, part of a phase is waiting for the loop, not for the database. PGlite
 * runs on the event loop itself, so there the lateness is mostly the embedded database's own work.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 1;

export interface LoopDelay {
  meanMs: number;
  p99Ms: number;
}

/** Starts sampling; `stop()` answers the lateness since, in milliseconds. */
export function watchLoopDelay(): { stop(): LoopDelay } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  return {
    stop: () => {
      histogram.disable();
      return { meanMs: late(histogram.mean), p99Ms: late(histogram.percentile(99)) };
    },
  };
}

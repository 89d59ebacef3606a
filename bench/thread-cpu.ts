/**
 * The service's CPU time split by thread (Linux, /proc/self/task): its event loop (the main thread) and the others —
 * V8's helpers (TurboFan compiling hot functions in the background, the garbage collector's parallel and concurrent
 * work) and libuv's pool. process.cpuUsage() sums them all; on two cores the helpers share the second core with the
 * database (docs/orderbook.md, session 25). Where there is no /proc there is nothing to split.
 */
import { readdirSync } from 'node:fs';
import { statAt, TICKS_PER_SECOND } from '../src/chain/anvil-pidfile.ts';

/** CPU time (µs) so far of each live thread of this process, by thread id; null without /proc. */
function threadCpuUs(): Map<string, number> | null {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const out = new Map<string, number>();
  for (const tid of tids) {
    const stat = statAt(`/proc/self/task/${tid}/stat`);
    if (stat) out.set(tid, (stat.cpuTicks * 1_000_000) / TICKS_PER_SECOND);
  }
  return out;
}

export interface ThreadCpu {
  /** The event loop's thread. */
  mainUs: number;
  /** Every other thread (ones that ended meanwhile leave theirs out). */
  othersUs: number;
}

/** Starts counting; `stop()` answers the CPU time each side used since. Null where /proc cannot be read. */
export function watchThreadCpu(): { stop(): ThreadCpu } | null {
  const start = threadCpuUs();
  if (!start) return null;
  const main = String(process.pid);
  return {
    stop: () => {
      const used: ThreadCpu = { mainUs: 0, othersUs: 0 };
      for (const [tid, us] of threadCpuUs() ?? new Map<string, number>()) {
        const since = us - (start.get(tid) ?? 0);
        if (tid === main) used.mainUs += since;
        else used.othersUs += since;
      }
      return used;
    },
  };
}

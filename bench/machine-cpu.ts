/**
 * The whole machine's CPU while a scenario runs (Linux, the first line of /proc/stat): how much of it was idle, and how
 * much the hypervisor gave to other guests while this one wanted it (steal). The order bench's rates move by ±30 % from
 * run to run on the same code (docs/orderbook.md, session 28); a scenario with much steal, or with no idle left, says
 * why one run is off. Elsewhere there is nothing to read. And how fast a core computes right now (`coreSpeedMs`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The aggregate line's counters (ticks): user, nice, system, idle, iowait, irq, softirq, steal, …; null without /proc. */
function cpuTicks(): number[] | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    if (!line.startsWith('cpu ')) return null;
    return line.trim().split(/\s+/).slice(1, 9).map(Number);
  } catch {
    return null;
  }
}

export interface MachineCpu {
  /** Shares of the machine's CPU time over the span, in per cent. */
  idlePct: number;
  stealPct: number;
}

/** Starts counting; `stop()` answers the shares since (null without /proc). */
export function watchMachineCpu(): { stop(): MachineCpu | null } {
  const start = cpuTicks();
  return {
    stop: () => {
      const end = cpuTicks();
      if (!start || !end) return null;
      const d = end.map((v, i) => v - start[i]!);
      const total = d.reduce((a, b) => a + b, 0);
      if (total <= 0) return null;
      // idle + iowait is time no task wanted the CPU; steal is time this guest wanted it and the host ran another.
      return { idlePct: (100 * (d[3]! + d[4]!)) / total, stealPct: (100 * d[7]!) / total };
    },
  };
}

const CALIBRATION = Buffer.alloc(1 << 20, 0x5a);

/**
 * Milliseconds to hash 20 MB with SHA-256 on this thread (~12 ms on this 2-core machine when it is quiet; ~27 % more
 * while the other core is busy too): a fixed piece of work, timed between scenarios, that shows when the machine itself
 * runs slower (a run whose service spent twice the CPU an order on the same code ran beside such a phase).
 */
export function coreSpeedMs(): number {
  const start = performance.now();
  for (let i = 0; i < 20; i++) createHash('sha256').update(CALIBRATION).digest();
  return performance.now() - start;
}

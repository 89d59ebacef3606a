// When the indexer runs: one run at a time, every pollMs while started, and soon after a kick.
import type { Logger } from '../../../core/logger.ts';
import type { MarketIndexer } from './types.ts';

export type PollLoop = Pick<MarketIndexer, 'syncNow' | 'kick' | 'start' | 'stop'>;

/**
 * One run at a time; a caller arriving during a run waits for it and then runs once more, so it sees everything
 * mined before it called. `current` is the run under way, if any.
 */
function oneRunAtATime(run: () => Promise<void>): { syncNow: () => Promise<void>; current: () => Promise<void> | null } {
  let running: Promise<void> | null = null;
  const syncNow = (): Promise<void> => {
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(run);
    const tracked = next.finally(() => {
      if (running === tracked) running = null;
    });
    running = tracked;
    return tracked;
  };
  return { syncNow, current: () => running };
}

export function createPollLoop(o: { pollMs: number; log: Logger; run: () => Promise<void> }): PollLoop {
  const { syncNow, current } = oneRunAtATime(o.run);
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;

  const schedule = (delay: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      syncNow()
        .catch((err: unknown) => o.log.warn({ err }, 'indexer: batch failed; retrying'))
        .finally(() => schedule(o.pollMs));
    }, delay);
    timer.unref();
  };

  return {
    syncNow,
    kick: () => schedule(0),
    start() {
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current()?.catch(() => undefined);
    },
  };
}

// The loop of a keeper (resolution, payouts): one pass every interval while the chain is live, never two at once; a
// failed pass is logged and the next tick tries again. stop() waits for the pass in flight.
import type { Logger } from '../core/logger.ts';

export interface KeeperLoop {
  start(): void;
  stop(): Promise<void>;
}

export function keeperLoop(opts: { name: string; pass: () => Promise<unknown>; log: Logger; intervalMs: number; chainLive?: () => boolean }): KeeperLoop {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  return {
    start() {
      timer = setInterval(() => {
        if (running || (opts.chainLive && !opts.chainLive())) return;
        running = opts
          .pass()
          .catch((err: unknown) => opts.log.error({ err }, `${opts.name}: pass failed; retrying on the next tick`))
          .finally(() => {
            running = null;
          });
      }, opts.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}

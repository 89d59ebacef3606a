// The payout keeper (docs/money-out.md "Bonds"): every interval while the chain is live, settles the bonds of markets
// that resolved against their creator and pays the binding vote's voters their part (settle-bonds.ts). One pass at a
// time; a failed pass is logged and retried on the next.
import type { Logger } from '../../core/logger.ts';
import type { ClaimService } from './claims.ts';

export interface PayoutKeeper {
  /** One pass; returns the steps it sent ("settleBond 0x…", "distributeVoterRewards 0x…"). */
  runOnce(): Promise<string[]>;
  start(): void;
  stop(): Promise<void>;
}

export function createPayoutKeeper(deps: { claims: Pick<ClaimService, 'settleBonds'>; log: Logger; intervalMs: number; chainLive?: () => boolean }): PayoutKeeper {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  return {
    runOnce: () => deps.claims.settleBonds(),
    start() {
      timer = setInterval(() => {
        if (running || (deps.chainLive && !deps.chainLive())) return;
        running = deps.claims
          .settleBonds()
          .catch((err: unknown) => deps.log.error({ err }, 'payout keeper: pass failed; retrying on the next tick'))
          .finally(() => {
            running = null;
          });
      }, deps.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}

// The payout keeper (docs/money-out.md "Bonds", "Order books"): every interval while the chain is live, settles the
// bonds of markets that resolved against their creator and pays the binding vote's voters their part
// (settle-bonds.ts), and pays resolved order books' holders as ledger credits (orderbook-payouts.ts). One pass at a
// time; a failed pass is logged and retried on the next.
import type { Logger } from '../../core/logger.ts';
import type { ClaimService } from './claims.ts';

export interface PayoutKeeper {
  /** One pass; returns the steps it sent ("settleBond 0x…", "distributeVoterRewards 0x…"). */
  runOnce(): Promise<string[]>;
  start(): void;
  stop(): Promise<void>;
}

export function createPayoutKeeper(deps: { claims: Pick<ClaimService, 'settleBonds' | 'payOrderBooks'>; log: Logger; intervalMs: number; chainLive?: () => boolean }): PayoutKeeper {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  const runOnce = async (): Promise<string[]> => [...(await deps.claims.settleBonds()), ...(await deps.claims.payOrderBooks())];
  return {
    runOnce,
    start() {
      timer = setInterval(() => {
        if (running || (deps.chainLive && !deps.chainLive())) return;
        running = runOnce()
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

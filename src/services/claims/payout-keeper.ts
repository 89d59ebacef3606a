// The payout keeper (docs/money-out.md "Bonds", "Order books"): every interval while the chain is live, pays out the
// challenge bonds of challenged markets, settles the bonds of markets that resolved against their creator and pays
// the binding vote's voters their part (settle-challenge-bonds.ts, settle-bonds.ts), and pays resolved order books'
// holders as ledger credits (orderbook-payouts.ts).
import type { Logger } from '../../core/logger.ts';
import { keeperLoop, type KeeperLoop } from '../keeper-loop.ts';
import type { ClaimService } from './claims.ts';

export interface PayoutKeeper extends KeeperLoop {
  /** One pass; returns the steps it sent ("settleBond 0x…", "payout 0x…"…). */
  runOnce(): Promise<string[]>;
}

export function createPayoutKeeper(deps: { claims: Pick<ClaimService, 'settleBonds' | 'payOrderBooks'>; log: Logger; intervalMs: number; chainLive?: () => boolean }): PayoutKeeper {
  const runOnce = async (): Promise<string[]> => [...(await deps.claims.settleBonds()), ...(await deps.claims.payOrderBooks())];
  return { runOnce, ...keeperLoop({ name: 'payout keeper', pass: runOnce, log: deps.log, intervalMs: deps.intervalMs, chainLive: deps.chainLive }) };
}

// POST /claims/simulate: the batch's plan without sending anything (no calldata): what each named market would pay the
// wallet now, read on chain (docs/money-out.md "Claims").
import { planBatch, type ClaimMarketRef } from './batch.ts';
import type { ClaimDeps } from './deps.ts';

export async function simulateClaims(deps: ClaimDeps, wallet: string, refs: readonly ClaimMarketRef[]) {
  const plan = await planBatch(deps, wallet, refs);
  const items = plan.items.map(({ send, skippedReason, ...i }) => ({ ...i, amountSource: 'chain' as const, chainReadAt: plan.chainReadAt, status: (i.claimed ? 'claimed' : 'claimable') as 'claimed' | 'claimable', wouldSettle: send, ...(skippedReason ? { skippedReason } : {}) }));
  const sends = plan.items.filter((i) => i.send);
  return {
    requested: refs.length,
    wallet,
    claimable: sends.length,
    totalAmountWei: plan.items.filter((i) => !i.claimed).reduce((a, i) => a + BigInt(i.amount), 0n).toString(),
    totalEligibleAmountWei: sends.reduce((a, i) => a + BigInt(i.amount), 0n).toString(),
    items,
  };
}

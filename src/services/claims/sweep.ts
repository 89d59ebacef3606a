/**
 * POST /claims/sweep (docs/money-out.md "Claims"): claims a page of the wallet's payouts (cursor, limit) in one
 * transaction at the protocol's gas — those paying now, and with includeIneligible those that will (skipped as
 * NOT_CLAIMABLE_YET, so the caller sees them) — with the page's totals, read on chain.
 */
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ClaimDeps } from './deps.ts';
import { payoutCandidates, readPayouts } from './payout-read.ts';
import { valueTotalsOf } from './payout-items.ts';
import { executePlan, planned } from './settle.ts';

export async function claimSweep(deps: ClaimDeps, wallet: string, p: { cursor?: string; limit: number; includeIneligible: boolean }, recordEffect?: EffectRecorder) {
  const rows = await payoutCandidates(deps, wallet, { after: p.cursor, limit: p.limit + 1 });
  const page = rows.slice(0, p.limit);
  const { reads, chainReadAt } = await readPayouts(deps, wallet, page);
  const paying = reads.filter((r) => r.amount > 0n);
  const eligible = paying.filter((r) => r.eligibleNow);
  const ineligible = paying.filter((r) => !r.eligibleNow);
  const items = [...eligible, ...(p.includeIneligible ? ineligible : [])].map((r) => planned(deps.chainId, r));
  const summary = {
    wallet,
    totalClaimable: eligible.length,
    totalAmount: paying.reduce((a, r) => a + r.amount, 0n).toString(),
    totalEligibleAmount: eligible.reduce((a, r) => a + r.amount, 0n).toString(),
    excludedIneligibleCount: p.includeIneligible ? 0 : ineligible.length,
    totalCount: (await payoutCandidates(deps, wallet, { limit: 10_000 })).length,
    valueTotals: valueTotalsOf(deps, paying),
    unattributedPayoutCount: 0,
    valueAttributionComplete: true,
    hasMore: rows.length > p.limit,
    nextCursor: rows.length > p.limit ? page.at(-1)!.address : null,
  };
  const { settlements } = await executePlan(deps, { wallet, chainReadAt: chainReadAt.toISOString(), items, summary }, recordEffect);
  return { ...summary, claims: settlements };
}

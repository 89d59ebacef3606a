/**
 * GET /claims/available (docs/money-out.md "Claims"): the wallet's payouts of automated markets, a page at a time by
 * market address, each amount read from the chain at one block (`chainReadAt`): claimable (resolved and paying, or
 * proposed and paying if the proposal stands: eligibleNow false, eligibleAt the end of its challenge window) or
 * claimed (the wallet redeemed here: the amount it was paid). Totals are of this page.
 */
import type { ProjectionT } from '../../wire/markets.ts';
import type { ClaimDeps } from './deps.ts';
import { orderBookPayoutItems } from './orderbook-items.ts';
import { payoutCandidates, readPayouts } from './payout-read.ts';
import { payoutItemOf, valueTotalsOf, type ClaimValueTotal, type PayoutItem } from './payout-items.ts';

export interface ClaimAvailable {
  wallet: string;
  payouts: PayoutItem[];
  totalClaimable: string;
  totalEligibleNow: string;
  count: number;
  totalCount: number;
  valueTotals: ClaimValueTotal[];
  unattributedPayoutCount: number;
  valueAttributionComplete: boolean;
  hasMore: boolean;
  nextCursor: string | null;
  projection: ProjectionT;
}

export async function availableClaims(deps: ClaimDeps, wallet: string, p: { cursor?: string; limit: number }): Promise<ClaimAvailable> {
  const rows = await payoutCandidates(deps, wallet, { after: p.cursor, limit: p.limit + 1 });
  const page = rows.slice(0, p.limit);
  const { reads, chainReadAt } = await readPayouts(deps, wallet, page);
  // Order books pay by ledger credits, already in the wallet's balance: listed (claimed) on the first page.
  const automated = reads.flatMap((r) => payoutItemOf(deps, wallet, r, chainReadAt) ?? []);
  const books = p.cursor ? [] : (await orderBookPayoutItems(deps, wallet)).slice(0, Math.max(0, p.limit - automated.length));
  const payouts = [...automated, ...books];
  const claimable = reads.filter((r) => r.amount > 0n);
  const totalCount = (await countCandidates(deps, wallet)) + books.length;
  return {
    wallet,
    payouts,
    totalClaimable: claimable.reduce((a, r) => a + r.amount, 0n).toString(),
    totalEligibleNow: claimable.filter((r) => r.eligibleNow).reduce((a, r) => a + r.amount, 0n).toString(),
    count: payouts.length,
    totalCount,
    valueTotals: valueTotalsOf(deps, claimable),
    // Every payout is an automated market's, in a collateral we know: nothing is left unpriced.
    unattributedPayoutCount: 0,
    valueAttributionComplete: true,
    hasMore: rows.length > p.limit,
    nextCursor: rows.length > p.limit ? page.at(-1)!.address : null,
    projection: await deps.projection(),
  };
}

/** The wallet's candidate markets in all (an upper bound of its payouts: a losing position is not one). */
async function countCandidates(deps: ClaimDeps, wallet: string): Promise<number> {
  return (await payoutCandidates(deps, wallet, { limit: 10_000 })).length;
}

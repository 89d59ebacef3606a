// The spec's PayoutItem and ClaimValueTotal from chain reads (payout-read.ts): one item per market that pays, or paid,
// the wallet; totals per collateral token of what is claimable.
import { formatUnits } from 'viem';
import type { ClaimDeps } from './deps.ts';
import type { PayoutRead } from './payout-read.ts';

/** What PayoutItem and ClaimSettlement share: one market's payout to one wallet, read on chain. */
export interface PayoutFields {
  chainId: number;
  marketAddress: string;
  amount: string;
  eligibleNow: boolean;
  eligibleAt: string | null;
  amountSource: 'chain';
  winningShares: string;
  isResolved: boolean;
  claimed: boolean;
  chainReadAt: string;
}

export interface PayoutItem extends PayoutFields {
  id: string;
  status: 'claimable' | 'claimed';
  createdAt: string;
}

export interface ClaimValueTotal {
  chainId: number;
  collateralToken: string;
  symbol: string;
  decimals: number;
  totalWei: string;
  totalFormatted: string;
}

/** A read that pays now or later, or was paid; null for shares that pay nothing (a losing outcome). */
export function payoutItemOf(deps: Pick<ClaimDeps, 'chainId'>, wallet: string, r: PayoutRead, chainReadAt: Date): PayoutItem | null {
  const claimed = r.amount === 0n && r.redeemed > 0n;
  if (r.amount === 0n && !claimed) return null;
  return {
    id: `${deps.chainId}:${r.market}:${wallet}`,
    chainId: deps.chainId,
    marketAddress: r.market,
    amount: (claimed ? r.redeemed : r.amount).toString(),
    status: claimed ? 'claimed' : 'claimable',
    // When the payout came to be: the resolution, or (proposed only) now, never a future instant.
    createdAt: (r.isResolved && r.eligibleAt ? r.eligibleAt : chainReadAt).toISOString(),
    eligibleNow: r.eligibleNow,
    eligibleAt: r.eligibleAt?.toISOString() ?? null,
    amountSource: 'chain',
    winningShares: r.winningShares.toString(),
    isResolved: r.isResolved,
    claimed,
    chainReadAt: chainReadAt.toISOString(),
  };
}

/** What the claimable reads are worth, per collateral token. */
export function valueTotalsOf(deps: Pick<ClaimDeps, 'chainId' | 'collateral'>, reads: readonly PayoutRead[]): ClaimValueTotal[] {
  const totals = new Map<string, bigint>();
  for (const r of reads) if (r.amount > 0n) totals.set(r.collateralToken, (totals.get(r.collateralToken) ?? 0n) + r.amount);
  return [...totals].map(([token, total]) => {
    const c = deps.collateral.find((x) => x.token.toLowerCase() === token.toLowerCase());
    const decimals = c?.decimals ?? 18;
    return { chainId: deps.chainId, collateralToken: token, symbol: c?.symbol ?? 'UNKNOWN', decimals, totalWei: total.toString(), totalFormatted: formatUnits(total, decimals) };
  });
}

// An order book's payout as /claims/available shows it: the PAYOUT credits the payout keeper appended for the wallet
// (orderbook-payouts.ts) — already paid into its ledger balance, so `claimed` — with the collateral they paid and the
// winning shares they retired. Committed on chain with the ledger's batches (GET /api/v1/ledger/proof/{account}).
import { sql } from 'kysely';
import { COLLATERAL_ASSET, parseAsset } from '../../core/ledger/types.ts';
import { rowToOp } from '../ledger/rows.ts';
import type { ClaimDeps } from './deps.ts';
import type { PayoutItem } from './payout-items.ts';
import { baseUnitsOfShares } from '../../core/orderbook/units.ts';

/** At most this many order-book payouts are listed (they are already paid: a history, not a to-do). */
const LIMIT = 100;

export async function orderBookPayoutItems(deps: Pick<ClaimDeps, 'db' | 'chainId'>, wallet: string): Promise<PayoutItem[]> {
  const prefix = `payout:${deps.chainId}:`;
  const ops = await deps.db
    .selectFrom('ledger_operations')
    .select(['source', 'op', 'created_at'])
    .where('kind', '=', 'credit')
    .where('source', 'like', `${prefix}%`)
    .where(sql<boolean>`op->>'account' = ${wallet}`)
    .orderBy('seq')
    .limit(LIMIT * 4)
    .execute();
  const byMarket = new Map<string, { paid: bigint; retired: bigint; at: Date }>();
  for (const o of ops) {
    const market = o.source!.slice(prefix.length).split('#')[0]!;
    const credit = rowToOp({ kind: 'credit', op: o.op });
    if (credit.type !== 'credit') continue;
    const entry = byMarket.get(market) ?? { paid: 0n, retired: 0n, at: o.created_at };
    const { id, delta } = credit.credit;
    if (id === COLLATERAL_ASSET) entry.paid += delta;
    else if (parseAsset(id)) entry.retired += -delta;
    byMarket.set(market, entry);
  }
  return [...byMarket]
    .filter(([, e]) => e.paid > 0n)
    .slice(0, LIMIT)
    .map(([market, e]) => ({
      id: `${deps.chainId}:${market}:${wallet}`,
      chainId: deps.chainId,
      marketAddress: market,
      amount: e.paid.toString(),
      status: 'claimed' as const,
      createdAt: e.at.toISOString(),
      eligibleNow: true,
      eligibleAt: e.at.toISOString(),
      amountSource: 'chain' as const,
      // Base units on the wire, like every share count (docs/units.md); the ledger retired whole shares.
      winningShares: baseUnitsOfShares(e.retired).toString(),
      isResolved: true,
      claimed: true,
      chainReadAt: e.at.toISOString(),
    }));
}

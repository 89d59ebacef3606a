/**
 * Order-book payouts (docs/money-out.md "Order books"): a play-money market's shares live in the ledger, so once it
 * resolves (its outcome projected at the confirmation depth, market_resolutions) every holder's shares are retired and
 * paid in collateral by PAYOUT credits — a winning share SHARE_VALUE, a share of a void market half of it (the equal
 * split of a binary market), a losing share nothing — appended once per market (ledger source
 * `payout:<chain>:<market>`) and committed on chain with the next batches, so `svc ledger verify` rebuilds them.
 * Nobody claims: the payout keeper credits them.
 */
import { sql } from 'kysely';
import { COLLATERAL_ASSET, CREDIT_REASONS, outcomeAsset, SHARE_VALUE, type Account, type LedgerOperation } from '../../core/ledger/types.ts';
import type { LedgerService } from '../ledger/ledger.ts';
import type { ClaimDeps } from './deps.ts';

/** Markets one pass pays. */
const PER_PASS = 20;

/** The payout credits of one resolved order book: per holder, its shares retired and the collateral they pay. */
export function payoutCredits(marketId: bigint, finalOutcome: number, holdings: readonly { account: string; side: 0 | 1; shares: bigint }[]): LedgerOperation[] {
  const ops: LedgerOperation[] = [];
  const paid = new Map<string, bigint>();
  for (const h of holdings) {
    if (h.shares <= 0n) continue;
    ops.push({ type: 'credit', credit: { account: h.account as Account, id: outcomeAsset(marketId, h.side), delta: -h.shares, reason: CREDIT_REASONS.PAYOUT } });
    const value = finalOutcome === 0 ? (h.shares * SHARE_VALUE) / 2n : h.side === finalOutcome - 1 ? h.shares * SHARE_VALUE : 0n;
    if (value > 0n) paid.set(h.account, (paid.get(h.account) ?? 0n) + value);
  }
  for (const [account, delta] of [...paid].sort(([a], [b]) => (a < b ? -1 : 1))) {
    ops.push({ type: 'credit', credit: { account: account as Account, id: COLLATERAL_ASSET, delta, reason: CREDIT_REASONS.PAYOUT } });
  }
  return ops;
}

export const payoutSource = (chainId: number, market: string): string => `payout:${chainId}:${market}`;

export async function payOrderBooks(deps: ClaimDeps & { ledger: Pick<LedgerService, 'submit'> }): Promise<string[]> {
  const due = await deps.db
    .selectFrom('markets as m')
    .innerJoin('market_resolutions as r', (j) => j.onRef('r.chain_id', '=', 'm.chain_id').onRef('r.market', '=', 'm.address'))
    .select(['m.address', 'm.ledger_market_id', 'r.final_outcome'])
    .where('m.chain_id', '=', deps.chainId)
    .where('m.pricing_model', '=', 'ORDERBOOK')
    .where('r.phase', '=', 'resolved')
    .where('m.ledger_market_id', 'is not', null)
    .where('r.final_outcome', 'is not', null)
    .where(sql<boolean>`NOT EXISTS (SELECT 1 FROM ledger_operations o WHERE o.source LIKE ${'payout:' + deps.chainId + ':'} || m.address || '#%')`)
    .orderBy('m.address')
    .limit(PER_PASS)
    .execute();
  const done: string[] = [];
  for (const m of due) {
    const marketId = BigInt(m.ledger_market_id!);
    const assets = [outcomeAsset(marketId, 0), outcomeAsset(marketId, 1)];
    const rows = await deps.db.selectFrom('ledger_balances').select(['account', 'asset_id', 'balance']).where('asset_id', 'in', assets.map(String)).where('account', '<>', '0x0000000000000000000000000000000000000000').execute();
    const holdings = rows.map((r) => ({ account: r.account, side: (BigInt(r.asset_id) === assets[0] ? 0 : 1) as 0 | 1, shares: BigInt(r.balance) })).filter((h) => h.shares > 0n);
    if (holdings.length === 0) continue;
    // Balances cannot move any more: the book stopped trading at the proposal and only these credits touch it.
    const ops = payoutCredits(marketId, m.final_outcome!, holdings);
    const r = await deps.ledger.submit(ops, { source: payoutSource(deps.chainId, m.address) });
    if (r.appended) done.push(`payout ${m.address}`);
  }
  return done;
}

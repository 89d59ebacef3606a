/**
 * POST /claims/batch and its dry run POST /claims/simulate (docs/money-out.md "Claims"): for each named market, what
 * the wallet is paid — read on chain — and, for the batch, the redemptions sent in one transaction at the protocol's
 * gas. A market of another chain, one we did not register, or one whose creation a reorg took away is
 * MARKET_NOT_FOUND; an order book's payout is a ledger credit, not a claim here (ROUTER_UNAVAILABLE); one not paying
 * now is NOT_CLAIMABLE_YET (also after it was claimed: claimed is true then).
 */
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { ClaimDeps } from './deps.ts';
import { readPayouts } from './payout-read.ts';
import { executePlan, planned, skipped, type ClaimPlan, type ClaimSettlement } from './settle.ts';

export interface ClaimMarketRef {
  chainId: number;
  marketAddress: string;
}

/** The plan for the named markets, in the order named (each market once). */
export async function planBatch(deps: ClaimDeps, wallet: string, refs: readonly ClaimMarketRef[]): Promise<ClaimPlan> {
  const seen = new Set<string>();
  const unique = refs.filter((r) => {
    const k = `${r.chainId}:${r.marketAddress.toLowerCase()}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const ours = unique.filter((r) => r.chainId === deps.chainId).map((r) => r.marketAddress.toLowerCase());
  const rows = ours.length === 0 ? [] : await deps.db.selectFrom('markets').select(['address', 'outcome_count', 'collateral_token', 'collateral_symbol', 'pricing_model', 'cancel_reason']).where('chain_id', '=', deps.chainId).where('address', 'in', ours).execute();
  const automated = rows.filter((r) => r.pricing_model === 'automated' && r.cancel_reason === null);
  const { reads, chainReadAt } = await readPayouts(deps, wallet, automated);
  const items = unique.map((ref) => {
    const address = ref.marketAddress.toLowerCase();
    const row = ref.chainId === deps.chainId ? rows.find((r) => r.address === address) : undefined;
    if (!row || row.cancel_reason !== null) return skipped(ref.chainId, address, 'MARKET_NOT_FOUND');
    if (row.pricing_model !== 'automated') return skipped(ref.chainId, address, 'ROUTER_UNAVAILABLE');
    const read = reads.find((r) => r.market === address);
    return read ? planned(deps.chainId, read) : skipped(ref.chainId, address, 'MARKET_NOT_FOUND');
  });
  return { wallet, chainReadAt: chainReadAt.toISOString(), items };
}

export async function claimBatch(deps: ClaimDeps, wallet: string, refs: readonly ClaimMarketRef[], recordEffect?: EffectRecorder): Promise<{ requested: number; wallet: string; claimable: number; claims: ClaimSettlement[] }> {
  const plan = await planBatch(deps, wallet, refs);
  const summary = { requested: refs.length, wallet, claimable: plan.items.filter((i) => i.send).length };
  const { settlements } = await executePlan(deps, { ...plan, summary }, recordEffect);
  return { ...summary, claims: settlements };
}

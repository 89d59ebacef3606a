/**
 * Creator funds (spec "Creator funds"): per market a creator made, its marketBalance (the creator
 * fees the market holds) and its creation bond, with a status each, and the totals. Read from the
 * projection; docs/markets.md "Creator funds" gives the status rules.
 */
import type { Kysely } from 'kysely';
import { formatUnits } from 'viem';
import type { MarketState } from '../../core/markets/states.ts';
import { resolutionRecordFromJson } from '../../core/resolution/record.ts';
import type { DB } from '../../db/schema.ts';
import type { CollateralToken } from '../chain/chain-service.ts';

/** The bond is always held in PM (18 decimals). */
const BOND_SYMBOL = 'PM';
const BOND_DECIMALS = 18;

export type MarketBalanceStatus = 'claimable' | 'pending_resolution' | 'challenge_window' | 'too_early' | 'zero' | 'collected' | 'unknown';

export interface CreatorFundsMarket {
  chainId: number;
  marketAddress: string;
  marketTitle: string;
  marketBalance: { status: MarketBalanceStatus; amount: string; amountFormatted: string; tokenAddress: string | null; symbol: string; decimals: number; reason?: string };
  bond: {
    status: 'returnable' | 'pending' | 'returned' | 'unavailable' | 'none' | 'unknown';
    displayStatus: 'ready' | 'pending' | 'returned' | 'unavailable' | 'none' | 'syncing';
    reasonCode: 'action_available' | 'settled' | 'unavailable' | 'not_created' | 'indexing_pending' | 'unknown';
    amountWei: string;
    amountFormatted: string;
    symbol: 'PM';
    reason?: string;
  };
}

export interface CreatorFunds {
  walletAddress: string;
  chainId: number | null;
  creatorFunds: {
    markets: CreatorFundsMarket[];
    summary: {
      marketBalanceByToken: { chainId: number; tokenAddress: string; symbol: string; decimals: number; totalWei: string; totalFormatted: string }[];
      bondReturnableWei: string;
      bondReturnedWei: string;
      collectableCount: number;
    };
  };
  workflow: { fundsLabel: 'creator_funds'; marketBalanceSemantics: string; creationBondSemantics: string; execution: string };
}

interface MarketRow {
  chainId: number;
  address: string;
  question: string | null;
  state: MarketState;
  collateralToken: string;
  collateralSymbol: string;
  creatorFees: bigint;
  bond: bigint;
  confirmed: boolean;
  /** What the chain logged for this market's creator funds (market_payouts). */
  feesCollected: bigint;
  bondReturned: boolean;
  bondSlashed: boolean;
  /** The resolver ruled against the creator (its record's creatorSlashed); null before resolution. */
  creatorSlashed: boolean | null;
}

const AWAITING_RESOLUTION: readonly MarketState[] = ['closed', 'challenge', 'human_voting', 'council_review'];
const RESOLVED: readonly MarketState[] = ['resolved', 'void'];

/** The marketBalance status of one market (pure; docs/money-out.md "Creator funds"). */
export function marketBalanceStatus(state: MarketState, amount: bigint, collected = 0n): { status: MarketBalanceStatus; reason?: string } {
  if (amount === 0n) return collected > 0n ? { status: 'collected' } : { status: 'zero' };
  // A void market resolved too (outcome 0): its fees are the creator's like any resolved market's.
  if (RESOLVED.includes(state)) return { status: 'claimable' };
  if (state === 'creator_proposal') return { status: 'challenge_window', reason: 'collectable once the proposal\'s challenge window closes without a dispute' };
  if (AWAITING_RESOLUTION.includes(state)) return { status: 'pending_resolution', reason: 'collectable once the market resolves' };
  return { status: 'too_early', reason: 'the market is still open; fees accrue with every trade and are collectable after resolution' };
}

/** The bond status of one market (pure). */
export function bondStatus(
  state: MarketState,
  amount: bigint,
  confirmed: boolean,
  settled: { returned?: boolean; slashed?: boolean; creatorSlashed?: boolean | null } = {},
): Pick<CreatorFundsMarket['bond'], 'status' | 'displayStatus' | 'reasonCode' | 'reason'> {
  if (amount === 0n) return { status: 'none', displayStatus: 'none', reasonCode: 'not_created' };
  if (!confirmed) return { status: 'unknown', displayStatus: 'syncing', reasonCode: 'indexing_pending', reason: 'the indexer has not confirmed the creation yet' };
  if (settled.returned) return { status: 'returned', displayStatus: 'returned', reasonCode: 'settled' };
  if (settled.slashed || (RESOLVED.includes(state) && settled.creatorSlashed)) {
    return { status: 'unavailable', displayStatus: 'unavailable', reasonCode: 'unavailable', reason: 'slashed: a dispute ended on another outcome than the proposal, or no proposal came by resolveBy (5% keeper, 20% voters, 75% treasury)' };
  }
  if (RESOLVED.includes(state)) return { status: 'returnable', displayStatus: 'ready', reasonCode: 'action_available' };
  return { status: 'pending', displayStatus: 'pending', reasonCode: 'unavailable', reason: 'the bond is returned (or slashed) when the market resolves' };
}

export async function readCreatorFunds(
  db: Kysely<DB>,
  collaterals: readonly CollateralToken[],
  query: { walletAddress: string; chainId: number | undefined; servedChainId: number },
): Promise<CreatorFunds> {
  const wallet = query.walletAddress.toLowerCase();
  // chainId omitted: every chain this service trades on (one today).
  let q = db
    .selectFrom('markets as m')
    .leftJoin('market_resolutions as r', (j) => j.onRef('r.chain_id', '=', 'm.chain_id').onRef('r.market', '=', 'm.address'))
    .select(['m.chain_id', 'm.address', 'm.question', 'm.state', 'm.collateral_token', 'm.collateral_symbol', 'm.creator_fees', 'm.bond', 'm.confirmed', 'r.record', 'm.created_at'])
    .where('m.creator', '=', wallet)
    .where('m.pricing_model', '=', 'automated')
    .where('m.cancel_reason', 'is', null);
  if (query.chainId !== undefined) q = q.where('m.chain_id', '=', query.chainId);
  const found = await q.orderBy('m.created_at').orderBy('m.address').execute();
  const payouts = found.length === 0 ? [] : await db.selectFrom('market_payouts').select(['chain_id', 'market', 'kind', 'amount']).where('market', 'in', found.map((r) => r.address)).where('kind', 'in', ['creator_fees', 'bond_returned', 'bond_slashed']).execute();
  const rows: MarketRow[] = found.map((r) => {
    const mine = payouts.filter((p) => p.market === r.address && p.chain_id === r.chain_id);
    const record = r.record ? resolutionRecordFromJson(r.record) : null;
    return {
    chainId: r.chain_id,
    address: r.address,
    question: r.question,
    state: r.state as MarketState,
    collateralToken: r.collateral_token,
    collateralSymbol: r.collateral_symbol,
    creatorFees: BigInt(r.creator_fees),
    bond: BigInt(r.bond),
    confirmed: r.confirmed,
    feesCollected: mine.filter((p) => p.kind === 'creator_fees').reduce((a, p) => a + BigInt(p.amount), 0n),
    bondReturned: mine.some((p) => p.kind === 'bond_returned'),
    bondSlashed: mine.some((p) => p.kind === 'bond_slashed'),
    creatorSlashed: record?.phase === 'resolved' ? record.creatorSlashed : null,
    };
  });

  const decimalsOf = (token: string): number => collaterals.find((c) => c.token.toLowerCase() === token)?.decimals ?? 18;
  const totals = new Map<string, { chainId: number; tokenAddress: string; symbol: string; decimals: number; total: bigint }>();
  let bondReturnable = 0n;
  let bondReturned = 0n;
  let collectable = 0;

  const markets = rows.map((m): CreatorFundsMarket => {
    const decimals = decimalsOf(m.collateralToken);
    const balance = marketBalanceStatus(m.state, m.creatorFees, m.feesCollected);
    const bond = bondStatus(m.state, m.bond, m.confirmed, { returned: m.bondReturned, slashed: m.bondSlashed, creatorSlashed: m.creatorSlashed });
    if (bond.status === 'returned') bondReturned += m.bond;
    const key = `${m.chainId}:${m.collateralToken}`;
    const t = totals.get(key) ?? { chainId: m.chainId, tokenAddress: m.collateralToken, symbol: m.collateralSymbol, decimals, total: 0n };
    t.total += m.creatorFees;
    totals.set(key, t);
    // A market counts once, whether its fees, its bond or both wait for collection.
    if (balance.status === 'claimable' || bond.status === 'returnable') collectable++;
    if (bond.status === 'returnable') bondReturnable += m.bond;
    return {
      chainId: m.chainId,
      marketAddress: m.address,
      marketTitle: m.question ?? m.address,
      marketBalance: {
        status: balance.status,
        amount: m.creatorFees.toString(),
        amountFormatted: formatUnits(m.creatorFees, decimals),
        tokenAddress: m.collateralToken,
        symbol: m.collateralSymbol,
        decimals,
        ...(balance.reason ? { reason: balance.reason } : {}),
      },
      bond: { ...bond, amountWei: m.bond.toString(), amountFormatted: formatUnits(m.bond, BOND_DECIMALS), symbol: BOND_SYMBOL },
    };
  });

  return {
    walletAddress: wallet,
    chainId: query.chainId ?? null,
    creatorFunds: {
      markets,
      summary: {
        marketBalanceByToken: [...totals.values()].map((t) => ({
          chainId: t.chainId,
          tokenAddress: t.tokenAddress,
          symbol: t.symbol,
          decimals: t.decimals,
          totalWei: t.total.toString(),
          totalFormatted: formatUnits(t.total, t.decimals),
        })),
        bondReturnableWei: bondReturnable.toString(),
        bondReturnedWei: bondReturned.toString(),
        collectableCount: collectable,
      },
    },
    workflow: {
      fundsLabel: 'creator_funds',
      marketBalanceSemantics: 'marketBalance is the creator fee each trade pays into its market (creatorFeeBps of the trade cost), held by the market contract until the market resolves; then only the creator wallet can collect it.',
      creationBondSemantics: 'The creation bond (PM) is held by the market and returned to the creator when it resolves without a dispute going against them (a void resolution included); slashed 5/20/75 keeper/voters/treasury when a dispute ends on another outcome or the creator proposed nothing by resolveBy (GET /discover/rules).',
      execution: 'Collection is submitted and paid for by the protocol and is bound to the creator wallet only; amounts are base-unit decimal strings (amountFormatted is for display).',
    },
  };
}

/**
 * Creator funds (spec "Creator funds"): per market a creator made, its marketBalance (the creator
 * fees the market holds) and its creation bond, with a status each, and the totals. Read from the
 * projection; docs/markets.md "Creator funds" gives the status rules.
 */
import type { Kysely } from 'kysely';
import { formatUnits } from 'viem';
import type { MarketState } from '../../core/markets/states.ts';
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
}

const AWAITING_RESOLUTION: readonly MarketState[] = ['closed', 'creator_proposal', 'human_voting', 'council_review'];

/** The marketBalance status of one market (pure; docs/markets.md "Creator funds"). */
export function marketBalanceStatus(state: MarketState, amount: bigint): { status: MarketBalanceStatus; reason?: string } {
  if (state === 'void') return { status: 'unknown', reason: 'the market was voided; its fees follow the void rules (GET /discover/rules)' };
  if (amount === 0n) return { status: 'zero' };
  if (state === 'resolved') return { status: 'claimable' };
  if (state === 'challenge') return { status: 'challenge_window', reason: 'collectable once the challenge window closes without a dispute' };
  if (AWAITING_RESOLUTION.includes(state)) return { status: 'pending_resolution', reason: 'collectable once the market resolves' };
  return { status: 'too_early', reason: 'the market is still open; fees accrue with every trade and are collectable after resolution' };
}

/** The bond status of one market (pure). */
export function bondStatus(state: MarketState, amount: bigint, confirmed: boolean): Pick<CreatorFundsMarket['bond'], 'status' | 'displayStatus' | 'reasonCode' | 'reason'> {
  if (amount === 0n) return { status: 'none', displayStatus: 'none', reasonCode: 'not_created' };
  if (!confirmed) return { status: 'unknown', displayStatus: 'syncing', reasonCode: 'indexing_pending', reason: 'the indexer has not confirmed the creation yet' };
  if (state === 'resolved') return { status: 'returnable', displayStatus: 'ready', reasonCode: 'action_available' };
  if (state === 'void') return { status: 'unavailable', displayStatus: 'unavailable', reasonCode: 'unavailable', reason: 'a voided market settles its bond under the void rules' };
  return { status: 'pending', displayStatus: 'pending', reasonCode: 'unavailable', reason: 'the bond is returned (or slashed) when the market resolves' };
}

export async function readCreatorFunds(
  db: Kysely<DB>,
  collaterals: readonly CollateralToken[],
  query: { walletAddress: string; chainId: number | undefined; servedChainId: number },
): Promise<CreatorFunds> {
  const wallet = query.walletAddress.toLowerCase();
  const rows: MarketRow[] = (
    await db
      .selectFrom('markets')
      .select(['chain_id', 'address', 'question', 'state', 'collateral_token', 'collateral_symbol', 'creator_fees', 'bond', 'confirmed'])
      .where('creator', '=', wallet)
      .where('chain_id', '=', query.chainId ?? query.servedChainId)
      .where('cancel_reason', 'is', null)
      .orderBy('id')
      .execute()
  ).map((r) => ({
    chainId: r.chain_id,
    address: r.address,
    question: r.question,
    state: r.state as MarketState,
    collateralToken: r.collateral_token,
    collateralSymbol: r.collateral_symbol,
    creatorFees: BigInt(r.creator_fees),
    bond: BigInt(r.bond),
    confirmed: r.confirmed,
  }));

  const decimalsOf = (token: string): number => collaterals.find((c) => c.token.toLowerCase() === token)?.decimals ?? 18;
  const totals = new Map<string, { chainId: number; tokenAddress: string; symbol: string; decimals: number; total: bigint }>();
  let bondReturnable = 0n;
  let collectable = 0;

  const markets = rows.map((m): CreatorFundsMarket => {
    const decimals = decimalsOf(m.collateralToken);
    const balance = marketBalanceStatus(m.state, m.creatorFees);
    const bond = bondStatus(m.state, m.bond, m.confirmed);
    const key = `${m.chainId}:${m.collateralToken}`;
    const t = totals.get(key) ?? { chainId: m.chainId, tokenAddress: m.collateralToken, symbol: m.collateralSymbol, decimals, total: 0n };
    t.total += m.creatorFees;
    totals.set(key, t);
    if (balance.status === 'claimable') collectable++;
    if (bond.status === 'returnable') {
      collectable++;
      bondReturnable += m.bond;
    }
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
        bondReturnedWei: '0',
        collectableCount: collectable,
      },
    },
    workflow: {
      fundsLabel: 'creator_funds',
      marketBalanceSemantics: 'marketBalance is the creator fee each trade pays into its market (creatorFeeBps of the trade cost), held by the market contract until the market resolves; then only the creator wallet can collect it.',
      creationBondSemantics: 'The creation bond (PM) is held by the market and returned to the creator when the market resolves cleanly; a disputed or voided market settles it under GET /discover/rules.',
      execution: 'Collection is submitted and paid for by the protocol and is bound to the creator wallet only; amounts are base-unit decimal strings (amountFormatted is for display).',
    },
  };
}

// What the leaderboards need of a market to count a leg or mark a position: its category, creator, outcome count,
// latest prices, the USD rule of its collateral, and whether it was settled (docs/leaderboard.md).
import { sql } from 'kysely';
import type { Executor } from '../../db/index.ts';
import { usdRuleOf, type UsdRule } from '../../core/leaderboard/money.ts';
import type { LeaderboardDeps } from './deps.ts';

/** The ledger's play money: order books' collateral, 6 decimals (docs/ledger.md). */
const PLAY_DECIMALS = 6;

export interface MarketFacts {
  chainId: number;
  address: string;
  category: string;
  creator: string;
  outcomeCount: number;
  /** 1e18-scaled, one per outcome. */
  prices: bigint[];
  /** null: the collateral is left out (PM). */
  rule: UsdRule | null;
  /** The final outcome its positions were settled at (1-based, 0 void), or null. */
  settledOutcome: number | null;
}

export const marketKey = (chainId: number, market: string): string => `${chainId}:${market}`;

/** The facts of the named markets, by marketKey; unknown markets are absent. */
export async function loadMarketFacts(db: Executor, deps: Pick<LeaderboardDeps, 'collateral'>, markets: readonly { chainId: number; market: string }[]): Promise<Map<string, MarketFacts>> {
  const out = new Map<string, MarketFacts>();
  const addresses = [...new Set(markets.map((m) => m.market))];
  if (addresses.length === 0) return out;
  const decimals = new Map(deps.collateral.map((c) => [c.token.toLowerCase(), c.decimals]));
  const { rows } = await sql<{
    chain_id: number;
    address: string;
    category: string;
    creator: string;
    outcome_count: number;
    prices: string[];
    collateral_symbol: string;
    collateral_token: string;
    settled_outcome: number | null;
  }>`SELECT m.chain_id, m.address, m.category, m.creator, m.outcome_count, m.prices, m.collateral_symbol, m.collateral_token, k.settled_outcome
     FROM markets m LEFT JOIN leaderboard_markets k ON k.chain_id = m.chain_id AND k.market = m.address
     WHERE m.chain_id = ANY(${[...new Set(markets.map((m) => m.chainId))]}::int[]) AND m.address = ANY(${addresses}::text[])`.execute(db);
  for (const r of rows) {
    const d = r.collateral_symbol === 'PLAY' ? PLAY_DECIMALS : decimals.get(r.collateral_token.toLowerCase());
    out.set(marketKey(r.chain_id, r.address), {
      chainId: r.chain_id,
      address: r.address,
      category: r.category,
      creator: r.creator.toLowerCase(),
      outcomeCount: r.outcome_count,
      prices: r.prices.map((p) => BigInt(p)),
      rule: d === undefined ? null : usdRuleOf(r.collateral_symbol, d),
      settledOutcome: r.settled_outcome,
    });
  }
  return out;
}

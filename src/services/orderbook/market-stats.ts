/**
 * The market row of an ORDERBOOK market kept in step with its fills (docs/orderbook.md "Market reads"), so the
 * MarketRecord every read returns means the same as for an LMSR market: `prices` are the last fill's
 * (outcome 0 at the fill's price on the outcome-0 axis, outcome 1 its complement, 1e18-scaled), `outstanding`
 * the shares in existence per outcome in collateral base units (a MINT adds a complete set, a MERGE removes
 * one), `volume` Σ fill cost, `trade_count` the fills, `last_trade_at` the last fill's time. Runs inside the
 * transaction that records the fills; placements on one market run one at a time.
 */
import { fillCostOf, outcome0PriceOf } from '../../core/orderbook/engine.ts';
import type { Fill } from '../../core/orderbook/types.ts';
import { BPS, MATCH_KINDS, SHARE_VALUE } from '../../core/ledger/types.ts';
import { WAD } from '../../core/markets/price.ts';
import type { Step } from '../../db/pipeline.ts';
import { fixedStatement } from '../../db/statement.ts';

/** 1e18-scaled prices of both outcomes when outcome 0 trades at `bps`. */
export const orderBookPrices = (outcome0Bps: number): [string, string] => [
  ((WAD * BigInt(outcome0Bps)) / BPS).toString(),
  ((WAD * (BPS - BigInt(outcome0Bps))) / BPS).toString(),
];

// Both outcomes always hold the same number of shares: complete sets ($2 more of each).
const APPLY_FILLS = fixedStatement(`UPDATE markets SET prices = $1,
  outstanding = jsonb_build_array(((outstanding->>0)::numeric + $2::numeric)::text, ((outstanding->>0)::numeric + $2::numeric)::text),
  volume = volume + $3::numeric, trade_count = trade_count + $4, last_trade_at = $5, updated_at = $5
  WHERE chain_id = $6 AND address = $7`);

/** The statement that applies the fills to the market row (null: no fill). */
export function applyFillsToMarket(market: { chainId: number; address: string }, fills: readonly Fill[], at: Date): Step<void> | null {
  if (fills.length === 0) return null;
  let setDelta = 0n;
  let volume = 0n;
  for (const f of fills) {
    if (f.kind === MATCH_KINDS.MINT) setDelta += f.shares * SHARE_VALUE;
    if (f.kind === MATCH_KINDS.MERGE) setDelta -= f.shares * SHARE_VALUE;
    volume += fillCostOf(f.kind, f.priceBps, f.shares);
  }
  const last = fills[fills.length - 1]!;
  const query = APPLY_FILLS(JSON.stringify(orderBookPrices(outcome0PriceOf(last.side, last.priceBps))), setDelta.toString(), volume.toString(), fills.length, at, market.chainId, market.address);
  return { query, read: () => undefined };
}

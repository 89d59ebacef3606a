// Turns a projected market row into the wire MarketRecord every market read returns.
import { getAddress, type Address } from 'viem';
import type { Selectable } from 'kysely';
import { WAD, wadToDecimal } from '../../core/markets/price.ts';
import { isTradeable, type Controls, type MarketState } from '../../core/markets/states.ts';
import type { MarketsTable } from '../../db/schema.ts';
import type { MarketRecordT } from '../../wire/markets.ts';

export type MarketRow = Selectable<MarketsTable>;

export interface RecordContext {
  now: Date;
  /** Decimals of a collateral token (lowercase address); 18 when unknown. */
  decimalsOf(token: string): number;
  /** Σ cost of the market's trades in the last 24 hours, base units. */
  volume24h?: string;
}

/** Σ q_i · p_i / 1e18, rounded down: the mark-to-market value of every outstanding share. */
export function openInterestOf(outstanding: readonly string[], prices: readonly string[]): bigint {
  return outstanding.reduce((sum, q, i) => sum + BigInt(q) * BigInt(prices[i] ?? '0'), 0n) / WAD;
}

export function toMarketRecord(row: MarketRow, ctx: RecordContext): MarketRecordT {
  const outcomes = row.outcomes;
  const controls = row.controls as unknown as Controls;
  return {
    address: getAddress(row.address),
    chainId: row.chain_id,
    pricingModel: row.pricing_model,
    factory: getAddress(row.factory),
    creator: getAddress(row.creator),
    collateral: { symbol: row.collateral_symbol, token: getAddress(row.collateral_token), decimals: ctx.decimalsOf(row.collateral_token) },
    question: row.question ?? `Unregistered market ${row.address}`,
    description: row.description,
    category: row.category,
    outcomeCount: row.outcome_count,
    outcomes: Array.from({ length: row.outcome_count }, (_, i) => ({
      index: i,
      outcome: i + 1,
      label: outcomes[i] ?? `Outcome ${i + 1}`,
      price: wadToDecimal(row.prices[i] ?? '0'),
      outstandingShares: row.outstanding[i] ?? '0',
    })),
    resolutionSource: row.resolution_source,
    externalId: row.external_id,
    questionHash: row.question_hash as Address,
    state: row.state as MarketState,
    isTradeable: isTradeable(row.state as MarketState, controls, row.close_time, ctx.now),
    controls,
    cancelReason: row.cancel_reason,
    closeTime: row.close_time.toISOString(),
    resolveFrom: row.created_at.toISOString(),
    resolveBy: row.resolve_by.toISOString(),
    createdAt: row.created_at.toISOString(),
    liquidity: row.liquidity,
    subsidy: row.subsidy,
    bond: row.bond,
    fees: { protocolFeeBps: row.protocol_fee_bps, creatorFeeBps: row.creator_fee_bps },
    volume: row.volume,
    volume24h: ctx.volume24h ?? '0',
    tradeCount: row.trade_count,
    openInterest: openInterestOf(row.outstanding, row.prices).toString(),
    creatorMarketBalance: row.creator_fees,
    lastTradeAt: row.last_trade_at?.toISOString() ?? null,
    creation: { txHash: row.created_tx, blockNumber: row.created_block, blockHash: row.created_block_hash },
  };
}

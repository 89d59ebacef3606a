/**
 * Market reads of an ORDERBOOK market that differ from an LMSR market's (docs/orderbook.md "Market reads"):
 * its trades are its fills, told from the taker's side, and its holders are the ledger's live balances of its
 * two outcome assets. Shares are reported in collateral base units like every market read (docs/units.md: a whole
 * share is SHARE_VALUE = 1_000_000); the chart and the volume read the market_trade_events view, which covers fills.
 */
import { getAddress } from 'viem';
import { sql, type Kysely } from 'kysely';
import { fillCostOf, takerPriceOf } from '../../core/orderbook/engine.ts';
import { BPS, MATCH_KIND_NAMES, outcomeAsset, SUPPLY_ACCOUNT, type MatchKind } from '../../core/ledger/types.ts';
import { wadToDecimal } from '../../core/markets/price.ts';
import { baseUnitsOfShares, priceOfBps } from '../../core/orderbook/units.ts';
import { toCount, type DB } from '../../db/index.ts';
import type { MarketHoldersT, OrderbookTradeT } from '../../wire/market-reads.ts';
import { openInterestOf, type MarketRow } from '../markets/records.ts';
import { TOP_HOLDERS } from '../markets/reads/market-holders.ts';
import { batchHolding } from '../ledger/batch-range.ts';
import { orderBookPrices } from './market-stats.ts';

const marketIdOf = (m: MarketRow): bigint => {
  if (m.ledger_market_id === null) throw new Error(`market ${m.address} has no ledger market id`);
  return BigInt(m.ledger_market_id);
};

/** The market's latest fills, newest first. */
export async function orderBookTrades(db: Kysely<DB>, m: MarketRow, p: { limit: number }): Promise<OrderbookTradeT[]> {
  const rows = await db
    .selectFrom('order_fills as f')
    .innerJoin('orders as t', 't.id', 'f.taker_order')
    .leftJoinLateral(batchHolding(db, sql.ref('f.ledger_seq')), (join) => join.onTrue())
    .select(['f.id', 'f.created_at', 'f.maker', 'f.taker', 'f.side', 'f.kind', 'f.price_bps', 'f.shares', 'f.taker_fee', 'f.ledger_seq', 't.outcome', 't.action', 'b.nonce as batch_nonce', 'b.status as batch_status'])
    .where('f.market_id', '=', marketIdOf(m).toString())
    .where('f.market', '=', m.address)
    .orderBy('f.id', 'desc')
    .limit(p.limit)
    .execute();
  return rows.map((f) => {
    const kind = f.kind as MatchKind;
    const shares = BigInt(f.shares);
    const outcome0 = f.side === 0 ? f.price_bps : Number(BPS) - f.price_bps;
    return {
      kind: 'orderbook' as const,
      fillId: String(f.id),
      timestamp: f.created_at.toISOString(),
      taker: getAddress(f.taker),
      maker: getAddress(f.maker),
      outcome: Number(f.outcome),
      side: f.action as 'buy' | 'sell',
      match: MATCH_KIND_NAMES[kind],
      price: priceOfBps(takerPriceOf(kind, f.price_bps)),
      shares: baseUnitsOfShares(shares).toString(),
      cost: fillCostOf(kind, f.price_bps, shares).toString(),
      takerFee: f.taker_fee,
      pricesAfter: orderBookPrices(outcome0).map((w) => wadToDecimal(w)),
      ledgerSeq: String(f.ledger_seq),
      final: f.batch_status === 'confirmed',
      batchNonce: f.batch_nonce === null ? null : String(f.batch_nonce),
    };
  });
}

/** Who holds the market's outcome shares in the ledger (every accepted operation, committed or not). */
export async function orderBookHolders(db: Kysely<DB>, m: MarketRow): Promise<MarketHoldersT> {
  const marketId = marketIdOf(m);
  const assets = [outcomeAsset(marketId, 0).toString(), outcomeAsset(marketId, 1).toString()];
  // Live positions: a positive balance of either outcome asset, the supply account aside.
  const held = sql`asset_id IN (${sql.join(assets.map((a) => sql`${a}::numeric`))}) AND balance > 0 AND account <> ${SUPPLY_ACCOUNT}`;
  const top = await sql<{ asset_id: string; account: string; balance: string }>`
    SELECT asset_id::text AS asset_id, account, balance::text AS balance FROM (
      SELECT asset_id, account, balance, row_number() OVER (PARTITION BY asset_id ORDER BY balance DESC, account) AS rank FROM ledger_balances WHERE ${held}
    ) h
    WHERE rank <= ${TOP_HOLDERS}
    ORDER BY asset_id, rank`.execute(db);
  const totals = await sql<{ asset_id: string; holders: string; shares: string }>`
    SELECT asset_id::text AS asset_id, count(*) AS holders, sum(balance)::text AS shares FROM ledger_balances WHERE ${held} GROUP BY asset_id`.execute(db);
  const distinct = await sql<{ n: string }>`SELECT count(DISTINCT account) AS n FROM ledger_balances WHERE ${held}`.execute(db);
  const outstanding = assets.map((a) => baseUnitsOfShares(totals.rows.find((r) => r.asset_id === a)?.shares ?? '0').toString());
  return {
    market: getAddress(m.address),
    chainId: m.chain_id,
    holders: assets.map((asset, i) => ({
      index: i,
      label: m.outcomes[i] ?? `Outcome ${i + 1}`,
      outstandingShares: outstanding[i]!,
      holderCount: toCount(totals.rows.find((r) => r.asset_id === asset)?.holders ?? 0),
      top: top.rows.filter((r) => r.asset_id === asset).map((r) => ({ address: getAddress(r.account), shares: baseUnitsOfShares(r.balance).toString() })),
    })),
    holderCount: toCount(distinct.rows[0]?.n ?? 0),
    openInterest: openInterestOf(outstanding, m.prices).toString(),
  };
}

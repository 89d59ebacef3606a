/** GET /markets/{address}/trades: a market's latest trades. */
import { getAddress } from 'viem';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/index.ts';
import type { MarketTradeT } from '../../../wire/market-reads.ts';
import type { MarketRow } from '../records.ts';
import { toPrices } from './prices.ts';

/** The market's most recent trades, newest first. */
export async function marketTrades(db: Kysely<DB>, m: MarketRow, p: { limit: number }): Promise<MarketTradeT[]> {
  const rows = await db
    .selectFrom('market_trades')
    .selectAll()
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .orderBy('block_number', 'desc')
    .orderBy('log_index', 'desc')
    .limit(p.limit)
    .execute();
  return rows.map((t) => ({
    kind: 'lmsr' as const,
    txHash: t.tx_hash,
    logIndex: t.log_index,
    blockNumber: t.block_number,
    timestamp: t.block_time.toISOString(),
    trader: getAddress(t.trader),
    recipient: getAddress(t.recipient),
    outcome: t.outcome,
    side: t.is_buy ? ('buy' as const) : ('sell' as const),
    shares: t.shares,
    cost: t.cost,
    protocolFee: t.protocol_fee,
    creatorFee: t.creator_fee,
    pricesAfter: toPrices(t.prices_after),
  }));
}

// The market projection (docs/markets.md): a Trade log recorded and folded into its market's aggregates. Keyed by
// its log (chain, tx, log index), so applying it twice changes nothing.
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../../core/clock.ts';
import type { TradeFacts } from '../../../core/leaderboard/legs.ts';
import type { DB } from '../../../db/schema.ts';
// Leaderboards: every projected trade appends its leg (docs/leaderboard.md).
import { enqueueTradeLegs } from '../../leaderboard/inbox.ts';

/** A Trade log as the indexer read it: the trade's facts (the leaderboards' too), where it happened, and what it left. */
export interface TradeLog extends TradeFacts {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  blockTime: Date;
  market: string;
  recipient: string;
  pricesAfter: readonly bigint[];
}

/** Records a Trade log and folds it into the market's aggregates (once). */
export async function applyTrade(trx: Transaction<DB>, clock: Clock, t: TradeLog): Promise<boolean> {
  if (!(await insertTrade(trx, t))) return false;
  await foldTrade(trx, clock, t);
  await enqueueTradeLegs(trx, [t]);
  return true;
}

/** False when the log was recorded before. */
async function insertTrade(trx: Transaction<DB>, t: TradeLog): Promise<boolean> {
  const inserted = await trx
    .insertInto('market_trades')
    .values({
      chain_id: t.chainId,
      tx_hash: t.txHash,
      log_index: t.logIndex,
      block_number: t.blockNumber.toString(),
      block_hash: t.blockHash,
      block_time: t.blockTime,
      market: t.market.toLowerCase(),
      trader: t.trader.toLowerCase(),
      recipient: t.recipient.toLowerCase(),
      outcome: t.outcome,
      is_buy: t.isBuy,
      shares: t.shares,
      cost: t.cost,
      protocol_fee: t.protocolFee,
      creator_fee: t.creatorFee,
      prices_after: JSON.stringify(t.pricesAfter.map(String)),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('log_index')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The market's prices, outstanding shares, volume, trade count and creator fees after the trade. */
async function foldTrade(trx: Transaction<DB>, clock: Clock, t: TradeLog): Promise<void> {
  const market = t.market.toLowerCase();
  const row = await trx.selectFrom('markets').select(['outstanding']).where('chain_id', '=', t.chainId).where('address', '=', market).forUpdate().executeTakeFirst();
  if (!row) return;
  const outstanding = row.outstanding.map((q, i) => (i === t.outcome ? (t.isBuy ? BigInt(q) + t.shares : BigInt(q) - t.shares) : BigInt(q)).toString());
  await trx
    .updateTable('markets')
    .set({
      prices: JSON.stringify(t.pricesAfter.map(String)),
      outstanding: JSON.stringify(outstanding),
      volume: sql`volume + ${t.cost.toString()}::numeric`,
      trade_count: sql`trade_count + 1`,
      creator_fees: sql`creator_fees + ${t.creatorFee.toString()}::numeric`,
      last_trade_at: t.blockTime,
      updated_at: clock.now(),
    })
    .where('chain_id', '=', t.chainId)
    .where('address', '=', market)
    .execute();
}

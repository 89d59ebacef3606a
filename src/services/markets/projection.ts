/**
 * Writes the market projection: markets, trades, outcome-token transfers and positions. The indexer and
 * commit-deploy both call it inside their transactions; every write is keyed by its log (chain, tx, log index),
 * so applying the same log twice changes nothing — a retried or resumed batch never double counts.
 * Registering a market (both lanes) is register-market.ts, re-exported here.
 */
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { DB, MarketPayoutKind } from '../../db/schema.ts';
// Leaderboards: every projected trade appends its leg, and a reorg takes the legs back (docs/leaderboard.md).
import { enqueueTradeLegs, revertTradeLegsAbove } from '../leaderboard/inbox.ts';

export { createdMarketOf, type CreatedMarket, type MarketCreatedArgs } from './created-market.ts';
export { metadataFor, placeholderOutcomes, placeholderQuestion, type Metadata } from './market-metadata.ts';
export { registerMarket, type MarketCreation, type RegisterOptions, type RegisterResult } from './register-market.ts';

export interface TradeLog {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  blockTime: Date;
  market: string;
  trader: string;
  recipient: string;
  outcome: number;
  isBuy: boolean;
  shares: bigint;
  cost: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
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

/** A creator collected accrued fees: the marketBalance drops by the amount (once per log). */
export async function applyCreatorFeesCollected(trx: Transaction<DB>, clock: Clock, c: { chainId: number; market: string; amount: bigint }): Promise<void> {
  await trx
    .updateTable('markets')
    .set({ creator_fees: sql`greatest(creator_fees - ${c.amount.toString()}::numeric, 0)`, updated_at: clock.now() })
    .where('chain_id', '=', c.chainId)
    .where('address', '=', c.market.toLowerCase())
    .execute();
}

/** A money-out log of a market (migration 0019). */
export interface PayoutLog {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockTime: Date;
  market: string;
  kind: MarketPayoutKind;
  recipient: string | null;
  amount: bigint;
  shares: bigint | null;
}

/** Keeps a money-out log once (a batch applied twice counts nothing twice). */
export async function applyPayout(trx: Transaction<DB>, p: PayoutLog): Promise<void> {
  await trx
    .insertInto('market_payouts')
    .values({
      chain_id: p.chainId,
      tx_hash: p.txHash,
      log_index: p.logIndex,
      block_number: p.blockNumber.toString(),
      block_time: p.blockTime,
      market: p.market,
      kind: p.kind,
      recipient: p.recipient?.toLowerCase() ?? null,
      amount: p.amount.toString(),
      shares: p.shares?.toString() ?? null,
    })
    .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
    .execute();
}

export interface TransferLog {
  chainId: number;
  txHash: string;
  logIndex: number;
  batchIndex: number;
  blockNumber: bigint;
  market: string;
  outcome: number;
  from: string;
  to: string;
  amount: bigint;
}

const ZERO = '0x0000000000000000000000000000000000000000';

/** Records an outcome-token transfer (mint, burn or move) and updates both holders' positions (once). */
export async function applyTransfer(trx: Transaction<DB>, t: TransferLog): Promise<boolean> {
  const market = t.market.toLowerCase();
  const inserted = await trx
    .insertInto('outcome_transfers')
    .values({
      chain_id: t.chainId,
      tx_hash: t.txHash,
      log_index: t.logIndex,
      batch_index: t.batchIndex,
      block_number: t.blockNumber.toString(),
      market,
      outcome: t.outcome,
      from_address: t.from.toLowerCase(),
      to_address: t.to.toLowerCase(),
      amount: t.amount,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('log_index')
    .executeTakeFirst();
  if (!inserted || t.amount === 0n) return Boolean(inserted);
  // Update first: PostgreSQL checks CHECK (shares >= 0) on the proposed row of an upsert, so a negative delta
  // cannot go through INSERT … ON CONFLICT.
  const move = async (holder: string, delta: bigint) => {
    const updated = await trx
      .updateTable('market_positions')
      .set({ shares: sql`shares + ${delta.toString()}::numeric` })
      .where('chain_id', '=', t.chainId)
      .where('market', '=', market)
      .where('holder', '=', holder)
      .where('outcome', '=', t.outcome)
      .returning('shares')
      .executeTakeFirst();
    if (!updated) await trx.insertInto('market_positions').values({ chain_id: t.chainId, market, holder, outcome: t.outcome, shares: delta }).execute();
  };
  if (t.from.toLowerCase() !== ZERO) await move(t.from.toLowerCase(), -t.amount);
  if (t.to.toLowerCase() !== ZERO) await move(t.to.toLowerCase(), t.amount);
  await trx.deleteFrom('market_positions').where('chain_id', '=', t.chainId).where('market', '=', market).where('shares', '=', '0').execute();
  return true;
}

/**
 * Undoes everything above `ancestor` (a reorg): trades and transfers are deleted, and the touched markets'
 * positions and trade aggregates are recomputed from what remains. Returns the markets touched; the caller
 * refreshes their chain-read state (prices, outstanding shares, creator fees) as of the ancestor block.
 */
export async function rollbackAbove(trx: Transaction<DB>, chainId: number, ancestor: bigint): Promise<string[]> {
  const above = ancestor.toString();
  await revertTradeLegsAbove(trx, chainId, ancestor);
  const tradeMarkets = await trx.deleteFrom('market_trades').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const transferMarkets = await trx.deleteFrom('outcome_transfers').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const payoutMarkets = await trx.deleteFrom('market_payouts').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const touched = [...new Set([...tradeMarkets, ...transferMarkets, ...payoutMarkets].map((r) => r.market))];
  for (const market of touched) {
    await trx.deleteFrom('market_positions').where('chain_id', '=', chainId).where('market', '=', market).execute();
    await sql`
      INSERT INTO market_positions (chain_id, market, holder, outcome, shares)
      SELECT ${chainId}, ${market}, holder, outcome, sum(delta) FROM (
        SELECT to_address AS holder, outcome, amount AS delta FROM outcome_transfers WHERE chain_id = ${chainId} AND market = ${market} AND to_address <> ${ZERO}
        UNION ALL
        SELECT from_address AS holder, outcome, -amount AS delta FROM outcome_transfers WHERE chain_id = ${chainId} AND market = ${market} AND from_address <> ${ZERO}
      ) moves GROUP BY holder, outcome HAVING sum(delta) <> 0`.execute(trx);
    await sql`
      UPDATE markets SET
        volume = coalesce((SELECT sum(cost) FROM market_trades t WHERE t.chain_id = ${chainId} AND t.market = ${market}), 0),
        trade_count = (SELECT count(*) FROM market_trades t WHERE t.chain_id = ${chainId} AND t.market = ${market}),
        last_trade_at = (SELECT max(block_time) FROM market_trades t WHERE t.chain_id = ${chainId} AND t.market = ${market})
      WHERE chain_id = ${chainId} AND address = ${market}`.execute(trx);
  }
  await trx.deleteFrom('indexed_blocks').where('chain_id', '=', chainId).where('block_number', '>', above).execute();
  return touched;
}

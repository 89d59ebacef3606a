/**
 * Writes the market projection: markets, trades, outcome-token transfers and positions. The indexer and
 * commit-deploy both call it inside their transactions; every write is keyed by its log (chain, tx, log index),
 * so applying the same log twice changes nothing — a retried or resumed batch never double counts.
 */
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { DEFAULT_CONTROLS } from '../../core/markets/states.ts';
import type { DB } from '../../db/schema.ts';
import { appendEvent } from '../events/outbox.ts';

export interface CreatedMarket {
  chainId: number;
  address: string;
  factory: string;
  creator: string;
  collateralToken: string;
  collateralSymbol: string;
  outcomeCount: number;
  questionHash: string;
  closeTime: Date;
  resolutionWindowSeconds: number;
  liquidity: bigint;
  bond: bigint;
  subsidy: bigint;
  protocolFeeBps: number;
  creatorFeeBps: number;
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  blockTime: Date;
  /** Prices and outstanding shares right after creation (read from the chain at the creation block). */
  prices: string[];
  outstanding: string[];
}

/** The args of a factory's MarketCreated log (viem-decoded). */
export interface MarketCreatedArgs {
  market: string;
  creator: string;
  collateral: string;
  outcomeCount: number;
  questionHash: string;
  closeTime: bigint;
  resolutionWindow: number;
  liquidity: bigint;
  bond: bigint;
  subsidy: bigint;
  protocolFeeBps: number;
  creatorFeeBps: number;
}

/** A CreatedMarket from a MarketCreated log, its block and the market's state read at that block. */
export function createdMarketOf(
  a: MarketCreatedArgs,
  at: { chainId: number; factory: string; collateralSymbol: string; blockNumber: bigint; blockHash: string; txHash: string; blockTime: Date },
  state: { prices: string[]; outstanding: string[] },
): CreatedMarket {
  return {
    ...at,
    address: a.market,
    creator: a.creator,
    collateralToken: a.collateral,
    outcomeCount: a.outcomeCount,
    questionHash: a.questionHash,
    closeTime: new Date(Number(a.closeTime) * 1000),
    resolutionWindowSeconds: a.resolutionWindow,
    liquidity: a.liquidity,
    bond: a.bond,
    subsidy: a.subsidy,
    protocolFeeBps: a.protocolFeeBps,
    creatorFeeBps: a.creatorFeeBps,
    prices: state.prices,
    outstanding: state.outstanding,
  };
}

export interface RegisterResult {
  /** First registration: market.created and market.live were appended. */
  inserted: boolean;
}

/** A market's text, from the negotiation of the create loop it went through. */
export interface Metadata {
  negotiationId: string;
  question: string;
  description: string | null;
  category: string;
  outcomes: string[];
  resolutionSource: string | null;
  externalId: string | null;
}

/**
 * The terms the creator negotiated for this question hash, if the market went through the create loop (or at
 * least its propose and accept steps); null for a creation sent outside it. `negotiationId` pins the negotiation
 * when the caller knows it (commit-deploy).
 */
export async function metadataFor(trx: Transaction<DB>, creator: string, questionHash: string, chainId: number, negotiationId?: string): Promise<Metadata | null> {
  let q = trx
    .selectFrom('negotiations')
    .select(['id', 'terms'])
    .where('creator', '=', creator)
    .where('question_hash', '=', questionHash)
    .where('chain_id', '=', chainId)
    .where('status', 'in', ['accepted', 'deployed']);
  if (negotiationId !== undefined) q = q.where('id', '=', negotiationId);
  const row = await q.orderBy('created_at', 'desc').executeTakeFirst();
  if (!row) return null;
  const t = row.terms as { question: string; description?: string | null; category: string; outcomes: string[]; resolutionSource?: string | null; externalId?: string | null };
  return {
    negotiationId: row.id,
    question: t.question,
    description: t.description ?? null,
    category: t.category,
    outcomes: t.outcomes,
    resolutionSource: t.resolutionSource ?? null,
    externalId: t.externalId ?? null,
  };
}

/** Outcome names of a market created without a negotiation: its question is null, so it is never listed. */
export const placeholderOutcomes = (count: number): string[] => Array.from({ length: count }, (_, i) => `Outcome ${i + 1}`);

/** The question events carry for a market without a negotiation (records.ts reads it the same way). */
export const placeholderQuestion = (address: string): string => `Unregistered market ${address}`;

/**
 * Registers a market from its creation log. The first registration (by commit-deploy or the indexer, whichever
 * comes first) inserts the row and appends market.created and market.live; a later one only confirms it.
 */
export async function registerMarket(trx: Transaction<DB>, clock: Clock, m: CreatedMarket, opts: { confirmed: boolean }): Promise<RegisterResult> {
  const address = m.address.toLowerCase();
  const creator = m.creator.toLowerCase();
  // The receipt (commit-deploy) and the indexer (logs) may register the same market at once: the
  // loser of the insert race waits for the winner's commit and then takes the update path.
  const touchExisting = async (): Promise<RegisterResult> => {
    await trx
      .updateTable('markets')
      .set({
        created_block: m.blockNumber.toString(),
        created_block_hash: m.blockHash,
        created_tx: m.txHash,
        created_at: m.blockTime,
        ...(opts.confirmed ? { confirmed: true } : {}),
        updated_at: clock.now(),
      })
      .where('chain_id', '=', m.chainId)
      .where('address', '=', address)
      .execute();
    return { inserted: false };
  };
  const existing = await trx.selectFrom('markets').select('address').where('chain_id', '=', m.chainId).where('address', '=', address).forUpdate().executeTakeFirst();
  if (existing) return touchExisting();
  const meta = await metadataFor(trx, creator, m.questionHash.toLowerCase(), m.chainId);
  const inserted = await trx
    .insertInto('markets')
    .values({
      chain_id: m.chainId,
      address,
      pricing_model: 'automated',
      factory: m.factory.toLowerCase(),
      creator,
      collateral_token: m.collateralToken.toLowerCase(),
      collateral_symbol: m.collateralSymbol,
      outcome_count: m.outcomeCount,
      question: meta?.question ?? null,
      description: meta?.description ?? null,
      category: meta?.category ?? 'OTHER',
      outcomes: JSON.stringify(meta?.outcomes ?? placeholderOutcomes(m.outcomeCount)),
      resolution_source: meta?.resolutionSource ?? null,
      external_id: meta?.externalId ?? null,
      question_hash: m.questionHash.toLowerCase(),
      negotiation_id: meta?.negotiationId ?? null,
      close_time: m.closeTime,
      resolve_by: new Date(m.closeTime.getTime() + m.resolutionWindowSeconds * 1000),
      resolution_window_seconds: m.resolutionWindowSeconds,
      liquidity: m.liquidity,
      bond: m.bond,
      subsidy: m.subsidy,
      protocol_fee_bps: m.protocolFeeBps,
      creator_fee_bps: m.creatorFeeBps,
      state: m.closeTime.getTime() <= clock.now().getTime() ? 'closed' : 'open',
      controls: JSON.stringify(DEFAULT_CONTROLS),
      prices: JSON.stringify(m.prices),
      outstanding: JSON.stringify(m.outstanding),
      created_block: m.blockNumber.toString(),
      created_block_hash: m.blockHash,
      created_tx: m.txHash,
      created_at: m.blockTime,
      confirmed: opts.confirmed,
      updated_at: clock.now(),
    })
    .onConflict((oc) => oc.columns(['chain_id', 'address']).doNothing())
    .returning('address')
    .executeTakeFirst();
  if (!inserted) return touchExisting();
  if (meta) {
    await trx.updateTable('negotiations').set({ status: 'deployed', market_address: address, deploy_tx_hash: m.txHash, updated_at: clock.now() }).where('id', '=', meta.negotiationId).execute();
  }
  const question = meta?.question ?? placeholderQuestion(address);
  await appendEvent(trx, clock, { type: 'market.created', chainId: m.chainId, marketAddress: address, payload: { question, category: meta?.category ?? 'OTHER' } });
  await appendEvent(trx, clock, { type: 'market.live', chainId: m.chainId, marketAddress: address, payload: { question, creatorAddress: creator } });
  return { inserted: true };
}

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
  const market = t.market.toLowerCase();
  const inserted = await trx
    .insertInto('market_trades')
    .values({
      chain_id: t.chainId,
      tx_hash: t.txHash,
      log_index: t.logIndex,
      block_number: t.blockNumber.toString(),
      block_hash: t.blockHash,
      block_time: t.blockTime,
      market,
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
  if (!inserted) return false;
  const row = await trx.selectFrom('markets').select(['outstanding']).where('chain_id', '=', t.chainId).where('address', '=', market).forUpdate().executeTakeFirst();
  if (!row) return true;
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
  return true;
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
  const tradeMarkets = await trx.deleteFrom('market_trades').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const transferMarkets = await trx.deleteFrom('outcome_transfers').where('chain_id', '=', chainId).where('block_number', '>', above).returning('market').execute();
  const touched = [...new Set([...tradeMarkets, ...transferMarkets].map((r) => r.market))];
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

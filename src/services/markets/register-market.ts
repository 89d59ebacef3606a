/**
 * Registers a market from its factory's MarketCreated log, for both lanes: an automated (LMSR) creation
 * (created-market.ts) or a play-money ORDERBOOK one (orderbook/markets.ts). Commit-deploy (from the receipt)
 * and the indexer (from the log) both call it inside their transactions. docs/markets.md, docs/orderbook.md.
 */
import type { Insertable, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { DEFAULT_CONTROLS } from '../../core/markets/states.ts';
import type { DB, MarketsTable } from '../../db/schema.ts';
import { appendEvent } from '../events/outbox.ts';
import { PLAY_MONEY, type OrderBookCreation } from '../orderbook/markets.ts';
import type { CreatedMarket } from './created-market.ts';
import { metadataFor, placeholderOutcomes, placeholderQuestion, type Metadata } from './market-metadata.ts';

/** One creation log of either lane, with its block. */
export type MarketCreation = CreatedMarket | OrderBookCreation;

export interface RegisterOptions {
  /**
   * What the indexer passes: only its reading of the log proves the creation is on the chain it follows, so
   * commit-deploy registers unconfirmed and the indexer cancels a creation it never sees.
   */
  confirmed: boolean;
  /** Pins the negotiation whose terms the market takes, when the caller knows it (see metadataFor). */
  negotiationId?: string;
}

export interface RegisterResult {
  /** First registration: market.created and market.live were appended. */
  inserted: boolean;
}

/**
 * The first registration (commit-deploy or the indexer, whichever comes first) inserts the row, marks the
 * negotiation deployed and appends market.created and market.live; a later one (the other path, or the indexer
 * reading a creation re-mined after a reorg) only moves the row to the log's block and, with `confirmed`,
 * confirms it. A creation at the address of a market voided by a reorg registers that market afresh.
 */
export async function registerMarket(trx: Transaction<DB>, clock: Clock, m: MarketCreation, opts: RegisterOptions): Promise<RegisterResult> {
  const result = await registerAt(trx, clock, m, opts);
  await announceRelocation(trx, clock, m);
  return result;
}

/**
 * A creation a reorg took away, mined again at another address (another creation took the factory's nonce first, so
 * the old address may hold that other market now): market.cancelled on the old address, once, with relocatedTo and the
 * creation's transaction, so a client tells it from the market that took the address.
 */
async function announceRelocation(trx: Transaction<DB>, clock: Clock, m: MarketCreation): Promise<void> {
  const address = m.address.toLowerCase();
  const moved = await trx
    .updateTable('reorged_creations')
    .set({ relocated_to: address })
    .where('chain_id', '=', m.chainId)
    .where('created_tx', '=', m.txHash.toLowerCase())
    .where('address', '<>', address)
    .where('relocated_to', 'is', null)
    .returning(['address', 'question_hash'])
    .executeTakeFirst();
  if (!moved) return;
  await appendEvent(trx, clock, {
    type: 'market.cancelled',
    chainId: m.chainId,
    marketAddress: moved.address,
    payload: { reason: 'CREATION_RELOCATED', relocatedTo: address, createdTx: m.txHash.toLowerCase(), questionHash: moved.question_hash },
  });
}

async function registerAt(trx: Transaction<DB>, clock: Clock, m: MarketCreation, opts: RegisterOptions): Promise<RegisterResult> {
  // The receipt (commit-deploy) and the indexer (logs) may register the same market at once: the
  // loser of the insert race waits for the winner's commit and then takes the update path.
  const existing = await trx.selectFrom('markets').select(['address', 'cancel_reason']).where('chain_id', '=', m.chainId).where('address', '=', m.address.toLowerCase()).forUpdate().executeTakeFirst();
  if (existing?.cancel_reason === 'CREATION_REORGED') return registerAgain(trx, clock, m, opts);
  if (existing) return moveToLog(trx, clock, m, opts.confirmed);
  const meta = await metadataFor(trx, m.creator.toLowerCase(), m.questionHash.toLowerCase(), m.chainId, opts.negotiationId);
  const inserted = await trx
    .insertInto('markets')
    .values(marketRow(clock, m, meta, opts.confirmed))
    .onConflict((oc) => oc.columns(['chain_id', 'address']).doNothing())
    .returning('address')
    .executeTakeFirst();
  if (!inserted) return moveToLog(trx, clock, m, opts.confirmed);
  await announce(trx, clock, m, meta);
  return { inserted: true };
}

/**
 * A creation at the address of one a reorg took away: the dropped transaction mined again, or another creation that
 * took the factory's same nonce (so the same address, with other terms). The chain has a market there, so the row is
 * that market, from its log, as a first registration makes it, and it is announced again (market.cancelled was).
 */
async function registerAgain(trx: Transaction<DB>, clock: Clock, m: MarketCreation, opts: RegisterOptions): Promise<RegisterResult> {
  const meta = await metadataFor(trx, m.creator.toLowerCase(), m.questionHash.toLowerCase(), m.chainId, opts.negotiationId);
  await trx
    .updateTable('markets')
    .set({ ...marketRow(clock, m, meta, opts.confirmed), cancel_reason: null, resolution_due_sent_at: null, volume: '0', trade_count: 0, creator_fees: '0', last_trade_at: null })
    .where('chain_id', '=', m.chainId)
    .where('address', '=', m.address.toLowerCase())
    .execute();
  await announce(trx, clock, m, meta);
  return { inserted: true };
}

/** A registered market: moved to this log's block (a re-mined creation) and, with `confirmed`, confirmed. */
async function moveToLog(trx: Transaction<DB>, clock: Clock, m: MarketCreation, confirmed: boolean): Promise<RegisterResult> {
  await trx
    .updateTable('markets')
    .set({
      created_block: m.blockNumber.toString(),
      created_block_hash: m.blockHash,
      created_tx: m.txHash,
      created_at: m.blockTime,
      ...(confirmed ? { confirmed: true } : {}),
      updated_at: clock.now(),
    })
    .where('chain_id', '=', m.chainId)
    .where('address', '=', m.address.toLowerCase())
    .execute();
  return { inserted: false };
}

type LaneColumns = Pick<
  Insertable<MarketsTable>,
  'pricing_model' | 'collateral_token' | 'collateral_symbol' | 'outcome_count' | 'liquidity' | 'bond' | 'subsidy' | 'protocol_fee_bps' | 'creator_fee_bps' | 'prices' | 'outstanding' | 'ledger_market_id'
>;

/** What the lanes fill differently: an order book holds play money, charges nothing and starts at even prices. */
function laneColumns(m: MarketCreation): LaneColumns {
  if (m.pricingModel === 'ORDERBOOK') {
    return {
      pricing_model: 'ORDERBOOK',
      collateral_token: PLAY_MONEY.token,
      collateral_symbol: PLAY_MONEY.symbol,
      outcome_count: 2,
      liquidity: '0',
      bond: '0',
      subsidy: '0',
      protocol_fee_bps: 0,
      creator_fee_bps: 0,
      prices: JSON.stringify(['500000000000000000', '500000000000000000']),
      outstanding: JSON.stringify(['0', '0']),
      ledger_market_id: m.marketId.toString(),
    };
  }
  return {
    pricing_model: 'automated',
    collateral_token: m.collateralToken.toLowerCase(),
    collateral_symbol: m.collateralSymbol,
    outcome_count: m.outcomeCount,
    liquidity: m.liquidity,
    bond: m.bond,
    subsidy: m.subsidy,
    protocol_fee_bps: m.protocolFeeBps,
    creator_fee_bps: m.creatorFeeBps,
    prices: JSON.stringify(m.prices),
    outstanding: JSON.stringify(m.outstanding),
  };
}

/** The close time as a Date: an order-book creation carries the log's Unix seconds. */
const closeTimeOf = (m: MarketCreation): Date => (m.pricingModel === 'ORDERBOOK' ? new Date(Number(m.closeTime) * 1000) : m.closeTime);

function marketRow(clock: Clock, m: MarketCreation, meta: Metadata | null, confirmed: boolean): Insertable<MarketsTable> {
  const lane = laneColumns(m);
  const closeTime = closeTimeOf(m);
  return {
    chain_id: m.chainId,
    address: m.address.toLowerCase(),
    factory: m.factory.toLowerCase(),
    creator: m.creator.toLowerCase(),
    question: meta?.question ?? null,
    description: meta?.description ?? null,
    category: meta?.category ?? 'OTHER',
    outcomes: JSON.stringify(meta?.outcomes ?? placeholderOutcomes(lane.outcome_count)),
    resolution_source: meta?.resolutionSource ?? null,
    external_id: meta?.externalId ?? null,
    question_hash: m.questionHash.toLowerCase(),
    negotiation_id: meta?.negotiationId ?? null,
    close_time: closeTime,
    resolve_by: new Date(closeTime.getTime() + m.resolutionWindowSeconds * 1000),
    resolution_window_seconds: m.resolutionWindowSeconds,
    state: closeTime.getTime() <= clock.now().getTime() ? 'closed' : 'open',
    controls: JSON.stringify(DEFAULT_CONTROLS),
    created_block: m.blockNumber.toString(),
    created_block_hash: m.blockHash,
    created_tx: m.txHash,
    created_at: m.blockTime,
    confirmed,
    updated_at: clock.now(),
    ...lane,
  };
}

/** What an order book adds to its market.created and market.live payloads; automated payloads add nothing. */
function lanePayload(m: MarketCreation): Record<string, string | number> {
  if (m.pricingModel !== 'ORDERBOOK') return {};
  return { marketAddress: m.address.toLowerCase(), chainId: m.chainId, pricingModel: 'ORDERBOOK', marketId: m.marketId.toString() };
}

/** The first registration: the negotiation is deployed, and market.created and market.live go into the outbox. */
async function announce(trx: Transaction<DB>, clock: Clock, m: MarketCreation, meta: Metadata | null): Promise<void> {
  const address = m.address.toLowerCase();
  if (meta) {
    await trx.updateTable('negotiations').set({ status: 'deployed', market_address: address, deploy_tx_hash: m.txHash, updated_at: clock.now() }).where('id', '=', meta.negotiationId).execute();
  }
  const question = meta?.question ?? placeholderQuestion(address);
  const extra = lanePayload(m);
  await appendEvent(trx, clock, { type: 'market.created', chainId: m.chainId, marketAddress: address, payload: { question, category: meta?.category ?? 'OTHER', ...extra } });
  await appendEvent(trx, clock, { type: 'market.live', chainId: m.chainId, marketAddress: address, payload: { question, creatorAddress: m.creator.toLowerCase(), ...extra } });
}

/**
 * Registering a play-money ORDERBOOK market from its creation on chain: the factory's MarketCreated
 * log gives the market address and the uint64 marketId the ledger's asset ids use. Commit-deploy (from
 * the receipt) and the indexer (from the log) both call registerOrderBookMarket inside their
 * transactions; the text comes from the negotiation of the same creator and question hash, or is a
 * placeholder for a creation sent outside the create loop (never listed), as for automated markets
 * (projection.ts registerMarket). docs/orderbook.md "Markets".
 */
import type { Transaction } from 'kysely';
import { parseAbiItem, parseEventLogs, type TransactionReceipt } from 'viem';
import type { Clock } from '../../core/clock.ts';
import { DEFAULT_CONTROLS } from '../../core/markets/states.ts';
import type { DB } from '../../db/schema.ts';
import { appendEvent } from '../events/outbox.ts';
import { metadataFor, placeholderOutcomes, placeholderQuestion } from '../markets/projection.ts';

/** Collateral of every order-book market: the ledger's play money (asset 0); it has no token address. */
export const PLAY_MONEY = { symbol: 'PLAY', token: '0x0000000000000000000000000000000000000000' } as const;

/** IOrderBookMarketFactory.MarketCreated (contracts/orderbook/interfaces/IOrderBookMarketFactory.sol). */
export const ORDERBOOK_MARKET_CREATED = parseAbiItem(
  'event MarketCreated(address indexed market, address indexed creator, uint64 indexed marketId, bytes32 questionHash, uint64 closeTime, uint32 resolutionWindowSeconds)',
);

/** One MarketCreated log of the order-book factory, with its block. */
export interface OrderBookCreation {
  chainId: number;
  factory: string;
  address: string;
  creator: string;
  marketId: bigint;
  questionHash: string;
  /** Unix seconds, as the log carries it. */
  closeTime: bigint;
  resolutionWindowSeconds: number;
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  blockTime: Date;
}

/** What a decoded MarketCreated log of the order-book factory carries (viem's getLogs / parseEventLogs). */
export interface OrderBookCreatedLog {
  address: string;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  args: { market: string; creator: string; marketId: bigint; questionHash: string; closeTime: bigint; resolutionWindowSeconds: number };
}

export function orderBookCreationOf(log: OrderBookCreatedLog, at: { chainId: number; blockTime: Date }): OrderBookCreation {
  const a = log.args;
  return {
    chainId: at.chainId,
    factory: log.address.toLowerCase(),
    address: a.market.toLowerCase(),
    creator: a.creator.toLowerCase(),
    marketId: a.marketId,
    questionHash: a.questionHash.toLowerCase(),
    closeTime: a.closeTime,
    resolutionWindowSeconds: a.resolutionWindowSeconds,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    txHash: log.transactionHash,
    blockTime: at.blockTime,
  };
}

/** The MarketCreated logs `factory` wrote in a mined receipt (commit-deploy). */
export function orderBookCreationsIn(receipt: TransactionReceipt, at: { chainId: number; factory: string; blockTime: Date }): OrderBookCreation[] {
  if (receipt.status !== 'success') return [];
  const factory = at.factory.toLowerCase();
  return parseEventLogs({ abi: [ORDERBOOK_MARKET_CREATED], logs: receipt.logs, eventName: 'MarketCreated' })
    .filter((l) => l.address.toLowerCase() === factory)
    .map((l) => orderBookCreationOf(l, at));
}

export interface RegisteredOrderBookMarket {
  address: string;
  marketId: bigint;
  /** First registration: market.created and market.live were appended. */
  inserted: boolean;
}

/**
 * Registers an order-book market from its creation log, once, inside the caller's transaction. The first
 * registration (commit-deploy or the indexer, whichever comes first) inserts the row, marks the negotiation
 * deployed and appends market.created and market.live; a later one (the other path, or the indexer reading a
 * creation re-mined after a reorg) only moves the row to the log's block and, with `confirmed`, confirms it.
 * `confirmed` is what the indexer passes: only its reading of the log proves the creation is on the chain it
 * follows, so commit-deploy registers unconfirmed and the indexer cancels a creation it never sees.
 */
export async function registerOrderBookMarket(
  trx: Transaction<DB>,
  clock: Clock,
  c: OrderBookCreation,
  opts: { confirmed: boolean; negotiationId?: string },
): Promise<RegisteredOrderBookMarket> {
  const touchExisting = async (): Promise<RegisteredOrderBookMarket> => {
    await trx
      .updateTable('markets')
      .set({
        created_block: c.blockNumber.toString(),
        created_block_hash: c.blockHash,
        created_tx: c.txHash,
        created_at: c.blockTime,
        ...(opts.confirmed ? { confirmed: true } : {}),
        updated_at: clock.now(),
      })
      .where('chain_id', '=', c.chainId)
      .where('address', '=', c.address)
      .execute();
    return { address: c.address, marketId: c.marketId, inserted: false };
  };
  // The receipt and the indexer may register the same market at once: the loser waits for the winner's commit.
  const existing = await trx.selectFrom('markets').select('address').where('chain_id', '=', c.chainId).where('address', '=', c.address).forUpdate().executeTakeFirst();
  if (existing) return touchExisting();
  const meta = await metadataFor(trx, c.creator, c.questionHash, c.chainId, opts.negotiationId);
  const closeTime = new Date(Number(c.closeTime) * 1000);
  const inserted = await trx
    .insertInto('markets')
    .values({
      chain_id: c.chainId,
      address: c.address,
      pricing_model: 'ORDERBOOK',
      factory: c.factory,
      creator: c.creator,
      collateral_token: PLAY_MONEY.token,
      collateral_symbol: PLAY_MONEY.symbol,
      outcome_count: 2,
      question: meta?.question ?? null,
      description: meta?.description ?? null,
      category: meta?.category ?? 'OTHER',
      outcomes: JSON.stringify(meta?.outcomes ?? placeholderOutcomes(2)),
      resolution_source: meta?.resolutionSource ?? null,
      external_id: meta?.externalId ?? null,
      question_hash: c.questionHash,
      negotiation_id: meta?.negotiationId ?? null,
      close_time: closeTime,
      resolve_by: new Date(closeTime.getTime() + c.resolutionWindowSeconds * 1000),
      resolution_window_seconds: c.resolutionWindowSeconds,
      liquidity: '0',
      bond: '0',
      subsidy: '0',
      protocol_fee_bps: 0,
      creator_fee_bps: 0,
      state: closeTime.getTime() <= clock.now().getTime() ? 'closed' : 'open',
      controls: JSON.stringify(DEFAULT_CONTROLS),
      prices: JSON.stringify(['500000000000000000', '500000000000000000']),
      outstanding: JSON.stringify(['0', '0']),
      created_block: c.blockNumber.toString(),
      created_block_hash: c.blockHash,
      created_tx: c.txHash,
      created_at: c.blockTime,
      confirmed: opts.confirmed,
      updated_at: clock.now(),
      ledger_market_id: c.marketId.toString(),
    })
    .onConflict((oc) => oc.columns(['chain_id', 'address']).doNothing())
    .returning('address')
    .executeTakeFirst();
  if (!inserted) return touchExisting();
  if (meta) {
    await trx.updateTable('negotiations').set({ status: 'deployed', market_address: c.address, deploy_tx_hash: c.txHash, updated_at: clock.now() }).where('id', '=', meta.negotiationId).execute();
  }
  const question = meta?.question ?? placeholderQuestion(c.address);
  const common = { marketAddress: c.address, chainId: c.chainId, pricingModel: 'ORDERBOOK', marketId: c.marketId.toString() };
  await appendEvent(trx, clock, { type: 'market.created', chainId: c.chainId, marketAddress: c.address, payload: { question, category: meta?.category ?? 'OTHER', ...common } });
  await appendEvent(trx, clock, { type: 'market.live', chainId: c.chainId, marketAddress: c.address, payload: { question, creatorAddress: c.creator, ...common } });
  return { address: c.address, marketId: c.marketId, inserted: true };
}

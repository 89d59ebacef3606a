/**
 * Registering a play-money ORDERBOOK market from its creation on chain: the factory's MarketCreated
 * log gives the market address and the uint64 marketId the ledger's asset ids use; the text comes
 * from the caller (the negotiation, or the demo seed). The row joins every market read with
 * pricingModel ORDERBOOK. docs/orderbook.md "Markets".
 */
import type { Kysely } from 'kysely';
import { decodeEventLog, type Hex, type TransactionReceipt } from 'viem';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { DEFAULT_CONTROLS } from '../../core/markets/states.ts';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { DB } from '../../db/schema.ts';
import { appendEvent } from '../events/outbox.ts';

/** Collateral of every order-book market: the ledger's play money (asset 0); it has no token address. */
export const PLAY_MONEY = { symbol: 'PLAY', token: '0x0000000000000000000000000000000000000000' } as const;

export interface OrderBookMarketText {
  question: string;
  description?: string | null;
  category: string;
  outcomes: [string, string];
  resolutionSource?: string | null;
  externalId?: string | null;
  negotiationId?: string | null;
}

export interface RegisteredOrderBookMarket {
  address: string;
  marketId: bigint;
  inserted: boolean;
}

/** Reads the MarketCreated log of `receipt` (from `factory`) and registers the market once. */
export async function registerOrderBookMarket(
  deps: { db: Kysely<DB>; clock: Clock; chainId: number; factory: string },
  receipt: TransactionReceipt,
  text: OrderBookMarketText,
): Promise<RegisteredOrderBookMarket> {
  const abi = loadArtifact('OrderBookMarketFactory').abi;
  const log = receipt.logs.find((l) => l.address.toLowerCase() === deps.factory.toLowerCase());
  if (receipt.status !== 'success' || !log) throw problem('DEPLOY_TX_MISMATCH', 'the transaction did not create an order-book market on this factory');
  const event = decodeEventLog({ abi, data: log.data, topics: log.topics }) as unknown as {
    eventName: string;
    args: { market: string; creator: string; marketId: bigint; questionHash: Hex; closeTime: bigint; resolutionWindowSeconds: number };
  };
  if (event.eventName !== 'MarketCreated') throw problem('DEPLOY_TX_MISMATCH', 'the transaction did not create an order-book market on this factory');
  const a = event.args;
  const address = a.market.toLowerCase();
  const closeTime = new Date(Number(a.closeTime) * 1000);
  const block = receipt.blockNumber.toString();
  return deps.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('markets')
      .values({
        chain_id: deps.chainId,
        address,
        pricing_model: 'ORDERBOOK',
        factory: deps.factory.toLowerCase(),
        creator: a.creator.toLowerCase(),
        collateral_token: PLAY_MONEY.token,
        collateral_symbol: PLAY_MONEY.symbol,
        outcome_count: 2,
        question: text.question,
        description: text.description ?? null,
        category: text.category,
        outcomes: JSON.stringify(text.outcomes),
        resolution_source: text.resolutionSource ?? null,
        external_id: text.externalId ?? null,
        question_hash: a.questionHash.toLowerCase(),
        negotiation_id: text.negotiationId ?? null,
        close_time: closeTime,
        resolve_by: new Date(closeTime.getTime() + a.resolutionWindowSeconds * 1000),
        resolution_window_seconds: a.resolutionWindowSeconds,
        liquidity: '0',
        bond: '0',
        subsidy: '0',
        protocol_fee_bps: 0,
        creator_fee_bps: 0,
        state: closeTime.getTime() <= deps.clock.now().getTime() ? 'closed' : 'open',
        controls: JSON.stringify(DEFAULT_CONTROLS),
        prices: JSON.stringify(['500000000000000000', '500000000000000000']),
        outstanding: JSON.stringify(['0', '0']),
        created_block: block,
        created_block_hash: receipt.blockHash,
        created_tx: receipt.transactionHash,
        created_at: deps.clock.now(),
        confirmed: true,
        updated_at: deps.clock.now(),
        ledger_market_id: a.marketId.toString(),
      })
      .onConflict((oc) => oc.columns(['chain_id', 'address']).doNothing())
      .returning('address')
      .executeTakeFirst();
    if (inserted) {
      for (const type of ['market.created', 'market.live']) {
        await appendEvent(trx, deps.clock, { type, chainId: deps.chainId, marketAddress: address, payload: { marketAddress: address, chainId: deps.chainId, pricingModel: 'ORDERBOOK', marketId: a.marketId.toString() } });
      }
    }
    return { address, marketId: a.marketId, inserted: inserted !== undefined };
  });
}

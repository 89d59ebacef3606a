// The market an order names: an ORDERBOOK market of this chain, and whether it takes orders now.
import type { Clock } from '../../../core/clock.ts';
import { problem } from '../../../core/error-codes.ts';
import { isTradeable, type Controls, type MarketState } from '../../../core/markets/states.ts';
import type { Step } from '../../../db/pipeline.ts';
import type { OrderBookDeps, OrderLoopError } from './types.ts';
import { fixedStatement } from '../../../db/statement.ts';

type MarketDeps = Pick<OrderBookDeps, 'db' | 'clock' | 'chainId'>;

/** No order-book market at that address on this chain, or it does not take orders now (closed, halted, resolving, void). */
export type MarketError = OrderLoopError<'MARKET_NOT_FOUND' | 'MARKET_NOT_TRADEABLE'>;

export interface OrderBookMarket {
  /** Lower case, as stored. */
  address: string;
  /** The ledger's market id (what the book and the ledger assets are keyed by). */
  marketId: bigint;
}

/** The order-book market at `address`, refused unless it takes orders now. */
export async function openMarketOf(deps: MarketDeps, address: string): Promise<OrderBookMarket> {
  const m = await deps.db
    .selectFrom('markets')
    .select(['address', 'ledger_market_id', 'pricing_model', 'state', 'controls', 'close_time'])
    .where('chain_id', '=', deps.chainId)
    .where('address', '=', address.toLowerCase())
    .executeTakeFirst();
  if (!m || m.pricing_model !== 'ORDERBOOK' || m.ledger_market_id === null) throw problem('MARKET_NOT_FOUND', `no order-book market ${address} on chain ${deps.chainId}`);
  if (!tradeable(deps.clock, m)) throw notTradeable(m.address);
  return { address: m.address, marketId: BigInt(m.ledger_market_id) };
}

const LOCK_MARKET = fixedStatement(`SELECT state, controls, close_time, ledger_market_id FROM markets WHERE chain_id = $1 AND address = $2 FOR UPDATE`);

/**
 * Locks the market row and checks again that it takes orders (the fills update this row anyway): the indexer voids
 * a market, and cancels its orders, in a transaction of its own, so an order cannot land between the void and the
 * cancellations. Also checks that the market still has the ledger id the order was queued under.
 */
export function lockOpenMarket(deps: Pick<MarketDeps, 'clock' | 'chainId'>, market: OrderBookMarket): Step<void> {
  const query = LOCK_MARKET(deps.chainId, market.address);
  return {
    query,
    read: ({ rows }) => {
      const now = rows[0] as { state: string; controls: unknown; close_time: Date; ledger_market_id: string | null } | undefined;
      if (!now) throw notTradeable(market.address);
      // The id came from a read before the queue (or a cache of it): a creation re-mined after others was given another.
      if (now.ledger_market_id === null || BigInt(now.ledger_market_id) !== market.marketId) {
        throw problem('SERVICE_UNAVAILABLE', `market ${market.address} was registered again under another id while the order waited; retry it`, { headers: { 'Retry-After': '1' } });
      }
      if (!tradeable(deps.clock, now)) throw notTradeable(market.address);
    },
  };
}

function tradeable(clock: Clock, m: { state: string; controls: unknown; close_time: Date }): boolean {
  const controls = (typeof m.controls === 'string' ? JSON.parse(m.controls) : m.controls) as Controls;
  return isTradeable(m.state as MarketState, controls, m.close_time, clock.now());
}

const notTradeable = (address: string) => problem('MARKET_NOT_TRADEABLE', `market ${address} does not take orders now (closed, halted, resolving or void)`);

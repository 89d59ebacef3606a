// The live book of a market (GET /discover/markets/:address/depth): levels on the outcome-0 price axis.
import type { OrderBook } from '../../../core/orderbook/engine.ts';
import type { MarketBooks } from './books.ts';

export interface ReadDepthDeps {
  books: MarketBooks;
}
export interface ReadDepthParams {
  /** The ledger's market id. */
  marketId: bigint;
  /** Levels per side. */
  levels: number;
}
export type ReadDepthResult = ReturnType<OrderBook['depth']>;

/** Read in the market's queue: a placement's match is shown once its transaction has committed, never before. */
export function readDepth(deps: ReadDepthDeps, { marketId, levels }: ReadDepthParams): Promise<ReadDepthResult> {
  return deps.books.serial(marketId, async () => (await deps.books.bookOf(marketId)).depth(levels));
}

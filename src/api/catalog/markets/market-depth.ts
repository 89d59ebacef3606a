// GET /discover/markets/:address/depth: the 5-level LMSR buy ladder per outcome, quoted on chain, or the live
// order book of a play-money ORDERBOOK market (5 levels each side, outcome-0 prices). Units: docs/units.md.
import { problem } from '../../../core/error-codes.ts';
import { isTradeable, type Controls, type MarketState } from '../../../core/markets/states.ts';
import { baseUnitsOfShares, priceOfBps } from '../../../core/orderbook/units.ts';
import { MarketChainQuery, MarketDepth, MarketPathParams } from '../../../wire/market-reads.ts';
import { defineCapability } from '../types.ts';
import { marketFor } from './read-context.ts';

const DEPTH_LEVELS = 5;

export const getMarketDepth = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/depth',
  category: 'markets',
  summary: 'Market depth',
  description:
    "Depth of a market, discriminated by kind. kind lmsr (automated markets): for each outcome, buys of 1, 5, 10, 25 and 50 % of the liquidity b (shares in collateral base units), each with the exact quoteBuy of the market contract at blockNumber (amount paid with fees, averagePrice = amount / shares, the outcome's priceAfter). A market past its close time is quoted as of its last tradeable second (basis at_close) and one that no longer quotes has quote null (basis unavailable); either way tradeable is false. kind orderbook (play-money ORDERBOOK markets): the live book, 5 levels per side on the outcome-0 price axis (a resting buy of outcome 1 at q is an ask at 1 − q, a resting sell of outcome 1 a bid). Prices are exact decimal strings in [0, 1], shares collateral base units on both kinds.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_depth' },
  // An order book's depth is read from the book, in the process that holds it (docs/operations.md "Routing").
  route: { market: (raw) => (raw.params as { address?: unknown } | null)?.address },
  input: { params: MarketPathParams, query: MarketChainQuery },
  output: MarketDepth,
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    const tradeable = isTradeable(row.state as MarketState, row.controls as unknown as Controls, row.close_time, ctx.clock.now());
    if (row.pricing_model === 'ORDERBOOK') {
      if (row.ledger_market_id === null) throw problem('NOT_FOUND', 'this order-book market has no ledger market id yet');
      const book = await ctx.services.orderbook.depth(BigInt(row.ledger_market_id), DEPTH_LEVELS);
      const level = (l: { priceBps: number; shares: bigint }) => ({ price: priceOfBps(l.priceBps), shares: baseUnitsOfShares(l.shares).toString() });
      return { kind: 'orderbook' as const, market: row.address, chainId: row.chain_id, tradeable, bids: book.bids.map(level), asks: book.asks.map(level) };
    }
    return ctx.services.marketReads.depth(row, { tradeable });
  },
});

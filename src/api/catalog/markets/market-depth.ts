// GET /discover/markets/:address/depth: the 5-level LMSR buy ladder per outcome, quoted on chain.
import { problem } from '../../../core/error-codes.ts';
import { isTradeable, type Controls, type MarketState } from '../../../core/markets/states.ts';
import { defineCapability } from '../types.ts';
import { MarketChainQuery, MarketDepth, MarketPathParams } from './read-shapes.ts';
import { marketFor } from './read-context.ts';

export const getMarketDepth = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/depth',
  category: 'markets',
  summary: 'Market depth',
  description:
    "Depth of a market, discriminated by kind. kind lmsr (automated markets): for each outcome, buys of 1, 5, 10, 25 and 50 % of the liquidity b (shares in collateral base units), each with the exact quoteBuy of the market contract at blockNumber (amount paid with fees, averagePrice = amount / shares, the outcome's priceAfter). A market past its close time is quoted as of its last tradeable second (basis at_close) and one that no longer quotes has quote null (basis unavailable); either way tradeable is false. kind orderbook is reserved for the order-book lane (an ORDERBOOK market answers 404 NOT_FOUND until it lands).",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_depth' },
  input: { params: MarketPathParams, query: MarketChainQuery },
  output: MarketDepth,
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    if (row.pricing_model !== 'automated') throw problem('NOT_FOUND', 'order-book depth arrives with the order-book lane');
    const tradeable = isTradeable(row.state as MarketState, row.controls as unknown as Controls, row.close_time, ctx.clock.now());
    return ctx.services.marketReads.depth(row, { tradeable });
  },
});

// GET /discover/markets/:address/trades: the market's latest trades, newest first.
import { z } from 'zod';
import { ChainIdQuery } from '../schemas.ts';
import { defineCapability } from '../types.ts';
import { MarketPathParams, MarketTrade } from './read-shapes.ts';
import { marketFor } from './read-context.ts';

export const getMarketTrades = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/trades',
  category: 'markets',
  summary: 'Market trades',
  description: 'The market\'s most recent trades, newest first (block, then log order). outcome is the 0-based trade side; cost excludes fees; amounts are collateral base units.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_trades' },
  input: {
    params: MarketPathParams,
    query: z.strictObject({
      chainId: ChainIdQuery.optional(),
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(100).default(20),
    }),
  },
  output: z.object({ trades: z.array(MarketTrade) }),
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    return { trades: await ctx.services.marketReads.trades(row, { limit: query.limit }) };
  },
});

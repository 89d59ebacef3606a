// GET /discover/markets/:address: one market, listed or not, with the projection's freshness.
import { z } from 'zod';
import { defineCapability } from '../types.ts';
import { MarketChainQuery, MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor, toRecords } from './read-context.ts';
import { MarketRecord, ProjectionSchema } from '../../../wire/markets.ts';

export const getMarket = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address',
  category: 'markets',
  summary: 'Market detail',
  description:
    'One projected market by address, including markets listings leave out (unregistered, hidden, taken down). A malformed address is 400 INVALID_ID; an unknown one 404 MARKET_NOT_FOUND. projection tells how fresh the indexed data is.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_by_address' },
  input: { params: MarketPathParams, query: MarketChainQuery },
  output: z.object({ market: MarketRecord, projection: ProjectionSchema }),
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    const volume24h = await ctx.services.marketReads.volume24h([row], ctx.clock.now());
    const [market] = toRecords(ctx, [row], volume24h);
    return { market: market!, projection: await ctx.services.indexer.projection() };
  },
});

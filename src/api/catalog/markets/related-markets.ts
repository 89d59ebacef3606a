// GET /discover/markets/:address/related: other listed markets of the same category and chain.
import { z } from 'zod';
import { defineCapability } from '../types.ts';
import { MarketChainQuery, MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor, toRecords } from './read-context.ts';
import { MarketRecord } from '../../../wire/markets.ts';

export const RELATED_LIMIT = 10;

export const getRelatedMarkets = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/related',
  category: 'markets',
  summary: 'Related markets',
  description: `Up to ${RELATED_LIMIT} listed markets in the same category and on the same chain as this one (itself excluded): open markets first, then newest first.`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_related' },
  input: { params: MarketPathParams, query: MarketChainQuery },
  output: z.object({ markets: z.array(MarketRecord) }),
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const reads = ctx.services.marketReads;
    const rows = await reads.related(await marketFor(ctx, params.address, query.chainId), { limit: RELATED_LIMIT });
    return { markets: toRecords(ctx, rows, await reads.volume24h(rows, ctx.clock.now())) };
  },
});

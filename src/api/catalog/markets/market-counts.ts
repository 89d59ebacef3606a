// GET /api/v1/markets/counts: listed markets per lifecycle state under the listing filters.
import { defineCapability } from '../types.ts';
import { ConsumerFilterQuery, consumerFilter } from './market-listings.ts';
import { MarketCountsResponse } from '../../../wire/market-reads.ts';

export const countMarketsConsumer = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/markets/counts',
  category: 'markets',
  summary: 'Market counts per state',
  description:
    'How many listed markets are in each of the eight states, and their total, under the same filters as GET /markets (search 2..200 characters, probMin and probMax integers 0..100, geoCountry exactly 2 characters, dateRange TODAY, WEEK or MONTH, chainId integer > 0). Unknown fields and bad values are 400 INVALID_QUERY.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { query: ConsumerFilterQuery },
  output: MarketCountsResponse,
  outputName: 'MarketCountsResponse',
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'INTERNAL_ERROR'],
  handler: async (ctx, { query }) => ctx.services.marketReads.count(consumerFilter(ctx, query), ctx.clock.now()),
});

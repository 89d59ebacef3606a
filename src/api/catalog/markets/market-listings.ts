// GET /api/v1/markets: the consumer market listing, paginated through the X-Next-Cursor header.
import { z } from 'zod';
import { canonicalHash } from '../../../core/canonical-json.ts';
import { RenderedJson } from '../../../core/rendered-json.ts';
import type { ListingFilter } from '../../../services/markets/listing/shared.ts';
import { ChainIdQuery, EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability, Reply, type HandlerContext } from '../types.ts';
import {
  CategoryQuery,
  CollateralQuery,
  CursorQuery,
  DateRangeSchema,
  GeoCountryQuery,
  GeoPlaceQuery,
  ListingSortSchema,
  MarketListingsResponse,
  ProbPercentQuery,
  SearchQuery,
} from '../../../wire/market-reads.ts';
import { checkProbBand, closesBefore, collateralTokens, listingSecond, toRecords } from './read-context.ts';
import { MarketStateSchema, PricingModelInput } from '../../../wire/markets.ts';

/** The filters GET /markets and GET /markets/counts share. */
export const ConsumerFilterFields = {
  category: CategoryQuery.optional(),
  collateral: CollateralQuery.optional(),
  dateRange: DateRangeSchema.optional(),
  pricingModel: PricingModelInput.optional(),
  search: SearchQuery.optional(),
  chainId: ChainIdQuery.optional(),
  probMin: ProbPercentQuery.optional().describe("lowest whole percent of the first outcome's price, 0..100 (floor(price · 100))"),
  probMax: ProbPercentQuery.optional().describe("highest whole percent of the first outcome's price, 0..100"),
  geoPlace: GeoPlaceQuery.optional(),
  geoCountry: GeoCountryQuery.optional(),
};

export const ConsumerFilterQuery = z.strictObject(ConsumerFilterFields);
type FilterQuery = z.output<typeof ConsumerFilterQuery>;

/** The listing filter of a consumer query: chain served, collateral resolved, probability band ordered. */
export function consumerFilter(ctx: HandlerContext, q: FilterQuery): ListingFilter {
  ctx.services.chain.requireServed(q.chainId, 'UNSUPPORTED_CHAIN');
  checkProbBand(q.probMin, q.probMax);
  return {
    chainId: q.chainId,
    category: q.category,
    collateralTokens: collateralTokens(ctx, q.collateral),
    closesBefore: closesBefore(ctx, q.dateRange),
    pricingModel: q.pricingModel,
    search: q.search,
    probMin: q.probMin,
    probMax: q.probMax,
    geoPlace: q.geoPlace,
    geoCountry: q.geoCountry,
  };
}

export const LISTING_CACHE_CONTROL = 'public, max-age=5, stale-while-revalidate=30';

export const listMarketsConsumer = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/markets',
  category: 'markets',
  summary: 'List markets',
  description:
    "Listed markets, filtered by every given field: marketState (exact), category (case-insensitive), creator, chainId, collateral (symbol or token address), pricingModel, search (substring or trigram similarity > 0.3), dateRange (TODAY, WEEK, MONTH: open markets closing within 24 h, 7 days, 30 days), probMin/probMax (0..100, the first outcome's price in whole percent), geoPlace, geoCountry (2 letters). sort as on the agent interface (new, volume_24h, closing_soon, resolved_newest; default new); limit 1..100, default 20. With sort=new and more markets to come, X-Next-Cursor carries the cursor of the next page (pass it back as cursor); other sorts return one page. Unknown fields and bad values are 400 INVALID_QUERY.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: {
    query: z.strictObject({
      marketState: MarketStateSchema.optional(),
      sort: ListingSortSchema.default('new'),
      creator: EvmAddress.optional(),
      cursor: CursorQuery.optional(),
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(100).default(20),
      ...ConsumerFilterFields,
    }),
  },
  output: MarketListingsResponse,
  outputName: 'MarketListingsResponse',
  responseHeaders: {
    'Cache-Control': { description: `public list cache policy (${LISTING_CACHE_CONTROL})`, required: true },
    'X-Next-Cursor': { description: 'opaque cursor of the next page (sort=new); present only when more markets exist' },
  },
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'INTERNAL_ERROR'],
  handler: async (ctx, { query }) => {
    // Rendered once per query until a market or trade changes (docs/markets.md "Listing cache").
    const { body, nextCursor } = await ctx.services.readCache.get(`consumer-markets:${listingSecond(ctx)}:${canonicalHash(query)}`, async () => {
      const filter = { ...consumerFilter(ctx, query), state: query.marketState, creator: query.creator };
      const page = await ctx.services.marketReads.list({ filter, sort: query.sort, limit: query.limit, cursor: query.cursor, now: ctx.clock.now() });
      return { body: RenderedJson.of({ markets: toRecords(ctx, page.rows, page.volume24h) }), nextCursor: page.nextCursor };
    });
    const headers: Record<string, string> = { 'Cache-Control': LISTING_CACHE_CONTROL };
    if (nextCursor !== null) headers['X-Next-Cursor'] = nextCursor;
    return new Reply(body, 200, headers);
  },
});

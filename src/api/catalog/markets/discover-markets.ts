// GET /discover/markets: listed markets for agents, filtered and sorted, keyset-paginated for sort=new.
import { z } from 'zod';
import { canonicalHash } from '../../../core/canonical-json.ts';
import { RenderedJson } from '../../../core/rendered-json.ts';
import { ChainIdQuery, EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { AddressPrefixQuery, CategoryQuery, CursorQuery, ListingSortSchema, SearchQuery } from '../../../wire/market-reads.ts';
import { listingSecond, toRecords } from './read-context.ts';
import { MarketRecord, MarketStateSchema, PricingModelInput, ProjectionSchema } from '../../../wire/markets.ts';

export const DiscoverMarketsQuery = z.strictObject({
  pageSize: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(100).default(20),
  category: CategoryQuery.optional(),
  marketState: MarketStateSchema.optional(),
  chainId: ChainIdQuery.optional(),
  address: AddressPrefixQuery.optional(),
  creator: EvmAddress.optional().describe('on-chain creator wallet'),
  search: SearchQuery.optional(),
  sort: ListingSortSchema.default('new'),
  cursor: CursorQuery.optional(),
  pricingModel: PricingModelInput.optional(),
});

export const discoverMarkets = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets',
  category: 'markets',
  summary: 'List markets',
  description:
    'Listed markets (registered, not hidden or taken down), filtered by every given field. sort=new pages with cursor = the nextCursor of the prior page: pages never skip or repeat a market while new ones are created (new markets appear only before the first page). Other sorts return one page of up to pageSize markets and nextCursor null; a cursor with them is 400 INVALID_QUERY. search matches a case-insensitive substring of the question, or trigram similarity above 0.3 where the database has pg_trgm. projection tells how fresh the indexed data is.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets' },
  input: { query: DiscoverMarketsQuery },
  output: z.object({
    markets: z.array(MarketRecord),
    nextCursor: z.string().nullable().describe('pass as cursor for the next page (sort=new only); null on the last page'),
    projection: ProjectionSchema,
  }),
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN'],
  handler: async (ctx, { query }) => {
    ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    // Rendered once per query and version until a market or trade changes (docs/markets.md "Listing cache").
    return ctx.services.readCache.get(`discover-markets:${ctx.apiVersion}:${listingSecond(ctx)}:${canonicalHash(query)}`, async () => {
      const page = await ctx.services.marketReads.list({
        filter: {
          chainId: query.chainId,
          category: query.category,
          state: query.marketState,
          addressPrefix: query.address,
          creator: query.creator,
          search: query.search,
          pricingModel: query.pricingModel,
        },
        sort: query.sort,
        limit: query.pageSize,
        cursor: query.cursor,
        now: ctx.clock.now(),
      });
      return RenderedJson.of({ markets: toRecords(ctx, page.rows, page.volume24h), nextCursor: page.nextCursor, projection: await ctx.services.indexer.projection() });
    });
  },
});

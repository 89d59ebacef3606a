// GET /discover/markets/:address/comments: human comments, newest first, tagged with each author's position and tier.
import { z } from 'zod';
import { ChainIdQuery } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { MarketComment, MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor } from './read-context.ts';

export const getMarketComments = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/comments',
  category: 'markets',
  summary: 'Market comments',
  description:
    "Comments people wrote on the market, newest first, read-only for agents. position is the author's current shares per outcome in this market; reputation is the author's reputation tag {subjectId, tier} (never a score; docs/reputation.md). cursor is the nextCursor (a comment id) of the prior page; one that is not a comment of this market is 400 INVALID_QUERY.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_comments' },
  input: {
    params: MarketPathParams,
    query: z.strictObject({
      chainId: ChainIdQuery.optional(),
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(50).default(20),
      cursor: z.uuid('must be a comment id (uuid) from a prior nextCursor').optional(),
    }),
  },
  output: z.object({ comments: z.array(MarketComment), nextCursor: z.uuid().nullable() }),
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    return ctx.services.marketReads.comments(row, { limit: query.limit, cursor: query.cursor });
  },
});

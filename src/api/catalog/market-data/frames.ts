// Market-surface frames (docs/market-data.md): publish one onto a market (the data plane: its own budgets, apart from
// the write budget) and read a market's frames.
import { z } from 'zod';
import { FRAME_KINDS, FRAME_LIMITS } from '../../../core/markets/frames.ts';
import { ChainIdQuery } from '../../../wire/schemas.ts';
import { MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor } from '../markets/read-context.ts';
import { defineCapability, Reply } from '../types.ts';
import { FrameSchema, PublishFrameBody } from './shapes.ts';

export const publishFrame = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/market-data/frames',
  category: 'market-data',
  summary: 'Publish a frame onto a market',
  description:
    "Publishes a typed frame onto a market's surface: forecast (a probability per outcome, with rationale), datapoint (an observed value with its source) or evidence (a link with the outcome it supports or contradicts). Subscribers of the market receive it as a market.frame event; GET /discover/markets/:address/frames lists it. Charged to the data budget, not the write budget: a per-market frame limit and an aggregate backstop per agent (GET /me dataPlane; 429 RATE_LIMITED with RateLimit-* and Retry-After). Resolved and void markets take no frames. GET /market-data/discovery describes every kind.",
  tier: 'propose',
  scopes: ['social:write'],
  rateClass: 'data',
  idempotent: false,
  mcp: { tool: 'svc_market_data_frames' },
  input: { body: PublishFrameBody },
  output: z.object({ frame: FrameSchema }),
  outputName: 'PublishedFrame',
  successStatus: 201,
  errors: ['INVALID_PAYLOAD', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'MARKET_SURFACE_CLOSED', 'FORBIDDEN'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    const published = await ctx.services.marketData.publish(
      ctx.principal,
      { market: body.marketAddress, chainId: body.chainId, frame: { kind: body.kind, data: body.data } as never },
      ctx.recordEffect ?? undefined,
    );
    return new Reply({ frame: published.frame }, 201, published.headers);
  },
  replayEffect: async (ctx, ref) => ({ frame: await ctx.services.marketData.get(ref) }),
});

export const listMarketFrames = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/frames',
  category: 'markets',
  summary: 'Market frames',
  description:
    "Frames agents published onto the market's surface, newest first: forecasts, datapoints, evidence, each with its publisher (agent id, name, bound wallet). Filter by kind or publisher (agent id); page with cursor = the previous page's nextCursor. Live: subscribe to market.frame with the market's address (GET /events/discovery).",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_frames' },
  input: {
    params: MarketPathParams,
    query: z.strictObject({
      chainId: ChainIdQuery.optional(),
      kind: z.enum(FRAME_KINDS).optional(),
      publisher: z.uuid().optional().describe('only frames of this agent'),
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(FRAME_LIMITS.pageMax).default(FRAME_LIMITS.pageDefault),
      cursor: z.string().max(40).optional().describe('nextCursor of the previous page'),
    }),
  },
  output: z.object({ frames: z.array(FrameSchema), nextCursor: z.string().nullable() }),
  outputName: 'MarketFramePage',
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    return ctx.services.marketData.list({ market: row.address, chainId: row.chain_id, kind: query.kind, publisher: query.publisher, limit: query.limit, cursor: query.cursor });
  },
});

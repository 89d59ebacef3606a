// Price history of one market on both interfaces: GET /discover/markets/:address/chart (agent) and
// GET /api/v1/markets/{market_id}/chart (consumer, chainId required), the same series and latest frame.
import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { ChainIdQuery, EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { ChartWindowSchema, MarketChart, MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor } from './read-context.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const CHART_DOC =
  'points run in ascending time: first the prices in force at the window start (the creation, with equal prices 1/n, for ALL or a market younger than the window), then the prices after each trade in the window, downsampled to the last trade of each of 199 equal time buckets (at most 200 points). latest is the canonical current prices of the market, stamped with the time they took effect (the last trade, or the creation).';

export const getMarketChart = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/chart',
  category: 'markets',
  summary: 'Market price chart',
  description: `Price history of a market over window (1H, 1D, 1W, ALL; default ALL). ${CHART_DOC}`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_chart' },
  input: { params: MarketPathParams, query: z.strictObject({ window: ChartWindowSchema.default('ALL'), chainId: ChainIdQuery.optional() }) },
  output: MarketChart,
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    return ctx.services.marketReads.chart(row, { window: query.window, now: ctx.clock.now() });
  },
});

// chainId is optional to the validator so that a missing one answers MISSING_FIELDS (a malformed one is
// INVALID_QUERY); the published parameter is required, as the spec has it.
const ConsumerChartQuery = z
  .strictObject({
    chainId: ChainIdQuery.optional().describe("the market's chain (required)"),
    window: ChartWindowSchema.default('ALL'),
    address: EvmAddress.optional().describe('the market address; when given it must be the market market_id names'),
  })
  .meta({ required: ['chainId'] });

export const getMarketChartConsumer = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/markets/:market_id/chart',
  category: 'markets',
  summary: 'Market price chart',
  description: `Price history of a market. market_id is the market address or the externalId its creator gave it (unknown: 404 MARKET_NOT_FOUND; an externalId two creators share: 400 INVALID_ID, ask by address); chainId is required (missing: 400 MISSING_FIELDS; malformed: 400 INVALID_QUERY); address, when given, must equal market_id (else 400 INVALID_QUERY); an unknown market is 404 MARKET_NOT_FOUND. ${CHART_DOC}`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ market_id: z.string().min(1).max(200).describe('market address, or its externalId on chainId') }), query: ConsumerChartQuery },
  output: MarketChart,
  outputName: 'MarketChartResponse',
  errors: ['INVALID_ID', 'INVALID_QUERY', 'MISSING_FIELDS', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'INTERNAL_ERROR'],
  handler: async (ctx, { params, query }) => {
    if (query.chainId === undefined) {
      throw problem('MISSING_FIELDS', 'chainId is required', { errors: [{ path: 'query.chainId', message: 'required' }] });
    }
    const id = params.market_id;
    const row = ADDRESS.test(id)
      ? await marketFor(ctx, id, query.chainId, 'params.market_id')
      : (ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN'), await ctx.services.marketReads.findByExternalId({ externalId: id, chainId: query.chainId }));
    if (query.address !== undefined && query.address.toLowerCase() !== row.address) {
      throw problem('INVALID_QUERY', 'address must be the market market_id names', { errors: [{ path: 'query.address', message: 'another market than market_id' }] });
    }
    return ctx.services.marketReads.chart(row, { window: query.window, now: ctx.clock.now() });
  },
});

// Price history of one market on both interfaces: GET /discover/markets/:address/chart (agent) and
// GET /api/v1/markets/{market_id}/chart (consumer, chainId required), the same series and latest frame.
import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { ChainIdQuery, EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { ChartWindowSchema, MarketChart, MarketPathParams, PathAddress } from '../../../wire/market-reads.ts';
import { marketFor, requireMarketAddress } from './read-context.ts';

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
    address: EvmAddress.optional().describe('the market address again; when given it must equal market_id'),
  })
  .meta({ required: ['chainId'] });

export const getMarketChartConsumer = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/markets/:market_id/chart',
  category: 'markets',
  summary: 'Market price chart',
  description: `Price history of a market. market_id is the market address (a non-address is 400 INVALID_ID); chainId is required (missing: 400 MISSING_FIELDS; malformed: 400 INVALID_QUERY); address, when given, must equal market_id (else 400 INVALID_QUERY); an unknown market is 404 MARKET_NOT_FOUND. ${CHART_DOC}`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ market_id: PathAddress }), query: ConsumerChartQuery },
  output: MarketChart,
  outputName: 'MarketChartResponse',
  errors: ['INVALID_ID', 'INVALID_QUERY', 'MISSING_FIELDS', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'INTERNAL_ERROR'],
  handler: async (ctx, { params, query }) => {
    const address = requireMarketAddress(params.market_id, 'params.market_id');
    if (query.chainId === undefined) {
      throw problem('MISSING_FIELDS', 'chainId is required', { errors: [{ path: 'query.chainId', message: 'required' }] });
    }
    if (query.address !== undefined && query.address.toLowerCase() !== address) {
      throw problem('INVALID_QUERY', 'address must equal market_id', { errors: [{ path: 'query.address', message: 'differs from market_id' }] });
    }
    const row = await marketFor(ctx, address, query.chainId, 'params.market_id');
    return ctx.services.marketReads.chart(row, { window: query.window, now: ctx.clock.now() });
  },
});

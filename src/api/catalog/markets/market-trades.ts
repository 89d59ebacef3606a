// GET /discover/markets/:address/trades: the market's latest trades, newest first.
import { z } from 'zod';
import { ChainIdQuery } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { AnyMarketTrade, MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor } from './read-context.ts';

export const getMarketTrades = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/trades',
  category: 'markets',
  summary: 'Market trades',
  description: 'The market\'s most recent trades, newest first: kind lmsr (block, then log order) or, on an ORDERBOOK market, kind orderbook — its fills, told from the taker\'s side (fill order), final once their ledger batch is committed on chain. outcome is the 0-based trade side; cost excludes fees; amounts and shares are collateral base units.',
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
  output: z.object({ trades: z.array(AnyMarketTrade) }),
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => {
    const row = await marketFor(ctx, params.address, query.chainId);
    return { trades: await ctx.services.marketReads.trades(row, { limit: query.limit }) };
  },
});

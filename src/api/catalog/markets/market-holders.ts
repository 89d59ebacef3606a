// GET /discover/markets/:address/holders: who holds the outcome shares, and the open interest.
import { defineCapability } from '../types.ts';
import { MarketChainQuery, MarketHolders, MarketPathParams } from '../../../wire/market-reads.ts';
import { marketFor } from './read-context.ts';

export const getMarketHolders = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/markets/:address/holders',
  category: 'markets',
  summary: 'Market holders',
  description:
    'Per outcome: outstanding shares, how many wallets hold it and the 20 largest holders; holderCount counts distinct wallets across outcomes; openInterest is Σ outstanding shares × price in collateral base units, the same as MarketRecord.openInterest.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_markets_holders' },
  input: { params: MarketPathParams, query: MarketChainQuery },
  output: MarketHolders,
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { params, query }) => ctx.services.marketReads.holders(await marketFor(ctx, params.address, query.chainId)),
});

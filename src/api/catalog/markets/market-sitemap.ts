// GET /api/v1/markets/sitemap: the compact list of indexable (listed) markets.
import { getAddress } from 'viem';
import { SITEMAP_CAP } from '../../../services/markets/listing/list-sitemap.ts';
import { defineCapability } from '../types.ts';
import { MarketSitemapResponse } from '../../../wire/market-reads.ts';

export const marketSitemap = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/markets/sitemap',
  category: 'markets',
  summary: 'Market sitemap list',
  description: `Listed markets, newest first, at most ${SITEMAP_CAP}: address, chain, question and when the market last changed.`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  output: MarketSitemapResponse,
  outputName: 'MarketSitemapResponse',
  errors: ['INTERNAL_ERROR'],
  handler: async (ctx) => ({
    markets: (await ctx.services.marketReads.sitemap()).map((m) => ({ address: getAddress(m.address), chainId: m.chainId, question: m.question, updatedAt: m.updatedAt.toISOString() })),
  }),
});

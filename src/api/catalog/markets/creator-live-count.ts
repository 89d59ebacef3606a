// GET /api/v1/markets/by-creator/{address}/live-count: the creator's live markets against the per-creator cap.
import { getAddress } from 'viem';
import { z } from 'zod';
import { MAX_LIVE_MARKETS_PER_CREATOR } from '../../../core/markets/fees.ts';
import { EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { CreatorLiveMarketCountResponse } from '../../../wire/market-reads.ts';

export const creatorLiveMarketCount = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/markets/by-creator/:address/live-count',
  category: 'markets',
  summary: 'Live markets of a creator',
  description: `How many markets of the creator are live (state open or closed: created and not yet proposed, resolved or void) on the served chain, listed or not, leaving out excludeMarket when given. maxLiveMarkets is the creator's cap: ${MAX_LIVE_MARKETS_PER_CREATOR} for a creator of reputation tier new, lower for a restricted one, higher for established and trusted (GET /discover/rules reputation). Bad input is 400 INVALID_PAYLOAD.`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ address: EvmAddress }), query: z.strictObject({ excludeMarket: EvmAddress.optional() }) },
  invalidInputCode: 'INVALID_PAYLOAD',
  output: CreatorLiveMarketCountResponse,
  outputName: 'CreatorLiveMarketCountResponse',
  errors: ['INVALID_PAYLOAD', 'INTERNAL_ERROR'],
  handler: async (ctx, { params, query }) => {
    const chainId = ctx.services.chain.chainId;
    const liveCount = await ctx.services.marketReads.liveCount({ chainId, creator: params.address, excludeMarket: query.excludeMarket });
    const { maxLiveMarkets } = await ctx.services.reputation.walletGates(params.address);
    return { creator: getAddress(params.address), chainId, liveCount, maxLiveMarkets };
  },
});

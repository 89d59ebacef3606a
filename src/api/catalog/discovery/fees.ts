// GET /discover/fees: the two-lane fee schedule (LMSR and ORDERBOOK factory defaults), keyed by the pricingModel
// every market record carries (automated is the LMSR lane), so a client reads lanes[market.pricingModel].
import { z } from 'zod';
import { CREATION_BOND_PM, LMSR_FEES, MIN_LIQUIDITY, ORDERBOOK_FEES } from '../../../core/markets/fees.ts';
import { PriceString } from '../../../wire/markets.ts';
import { ORDERBOOK_MIN_SHARES, ORDERBOOK_TICK } from '../../../wire/orders.ts';
import { WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const Bps = z.number().int().min(0).max(10_000);

export const discoverFees = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/fees',
  category: 'discovery',
  summary: 'Fee schedule',
  description:
    'The two-lane fee schedule, keyed by pricingModel as market records name it. automated (the LMSR lane, automated markets): protocol fee and the creator fee range the factories enforce, charged on top of a buy and out of a sell; the creation bond (PM) and the liquidity floor per collateral. ORDERBOOK (play-money order books): taker and maker fees, the price tick and the minimum order. Rates in basis points; amounts and shares in base units; prices as exact decimal strings.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_fees' },
  output: z.object({
    lanes: z.object({
      automated: z.object({
        lane: z.literal('LMSR').describe('the factory lane: LMSR market makers'),
        protocolFeeBps: Bps,
        creatorFeeBps: z.object({ default: Bps, min: Bps, max: Bps }),
        appliesTo: z.string(),
        creation: z.object({
          bond: z.object({ symbol: z.literal('PM'), amountWei: WeiString }),
          minLiquidity: z.array(z.object({ symbol: z.enum(['USDC', 'PM']), amountWei: WeiString })),
          subsidy: z.string(),
        }),
      }),
      ORDERBOOK: z.object({
        lane: z.literal('ORDERBOOK').describe('the factory lane: play-money limit order books'),
        takerFeeBps: Bps,
        makerFeeBps: Bps,
        tick: PriceString.describe('order prices are multiples of it'),
        minShares: WeiString.describe('the smallest order, share base units (one share = 1000000)'),
        appliesTo: z.string(),
      }),
    }),
  }),
  outputName: 'FeeSchedule',
  errors: [],
  handler: async () => ({
    lanes: {
      automated: {
        lane: 'LMSR' as const,
        protocolFeeBps: LMSR_FEES.protocolFeeBps,
        creatorFeeBps: { default: LMSR_FEES.creatorFeeBpsDefault, min: LMSR_FEES.creatorFeeBpsMin, max: LMSR_FEES.creatorFeeBpsMax },
        appliesTo: 'the cost of a buy (added) and the proceeds of a sell (deducted); the creator share accrues in the market as marketBalance',
        creation: {
          bond: { symbol: 'PM' as const, amountWei: CREATION_BOND_PM.toString() },
          minLiquidity: (['USDC', 'PM'] as const).map((symbol) => ({ symbol, amountWei: MIN_LIQUIDITY[symbol].toString() })),
          subsidy: 'b·ln(n) of the collateral (n outcomes), rounded up: the most the market maker can lose, paid by the creator at creation',
        },
      },
      ORDERBOOK: {
        lane: 'ORDERBOOK' as const,
        takerFeeBps: ORDERBOOK_FEES.takerFeeBps,
        makerFeeBps: ORDERBOOK_FEES.makerFeeBps,
        tick: ORDERBOOK_TICK,
        minShares: ORDERBOOK_MIN_SHARES,
        appliesTo: 'each fill; the taker pays takerFeeBps of the fill notional (shares × its own price), the maker makerFeeBps',
      },
    },
  }),
});

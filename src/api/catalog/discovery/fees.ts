// GET /discover/fees: the two-lane fee schedule (LMSR and ORDERBOOK factory defaults).
import { z } from 'zod';
import { CREATION_BOND_PM, LMSR_FEES, MIN_LIQUIDITY, ORDERBOOK_FEES } from '../../../core/markets/fees.ts';
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
    'The two-lane fee schedule. LMSR (automated markets): protocol fee and the creator fee range the factories enforce, charged on top of a buy and out of a sell; the creation bond (PM) and the liquidity floor per collateral. ORDERBOOK (play-money order books): taker and maker fees, tick and minimum size. Rates in basis points; amounts in base units.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_fees' },
  output: z.object({
    lanes: z.object({
      LMSR: z.object({
        protocolFeeBps: Bps,
        creatorFeeBps: z.object({ default: Bps, min: Bps, max: Bps }),
        appliesTo: z.string(),
        creation: z.object({
          bond: z.object({ symbol: z.literal('PM'), amountWei: WeiString }),
          minLiquidity: z.array(z.object({ symbol: z.enum(['USDC', 'PM']), amountWei: WeiString })),
          subsidy: z.string(),
        }),
      }),
      ORDERBOOK: z.object({ takerFeeBps: Bps, makerFeeBps: Bps, tickBps: Bps, minShares: z.number().int().positive(), appliesTo: z.string() }),
    }),
  }),
  outputName: 'FeeSchedule',
  errors: [],
  handler: async () => ({
    lanes: {
      LMSR: {
        protocolFeeBps: LMSR_FEES.protocolFeeBps,
        creatorFeeBps: { default: LMSR_FEES.creatorFeeBpsDefault, min: LMSR_FEES.creatorFeeBpsMin, max: LMSR_FEES.creatorFeeBpsMax },
        appliesTo: 'the cost of a buy (added) and the proceeds of a sell (deducted); the creator share accrues in the market as marketBalance',
        creation: {
          bond: { symbol: 'PM' as const, amountWei: CREATION_BOND_PM.toString() },
          minLiquidity: (['USDC', 'PM'] as const).map((symbol) => ({ symbol, amountWei: MIN_LIQUIDITY[symbol].toString() })),
          subsidy: 'b·ln(n) of the collateral (n outcomes), rounded up: the most the market maker can lose, paid by the creator at creation',
        },
      },
      ORDERBOOK: { ...ORDERBOOK_FEES, appliesTo: 'each fill; the taker pays takerFeeBps of the fill notional, the maker makerFeeBps' },
    },
  }),
});

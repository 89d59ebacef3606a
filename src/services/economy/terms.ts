/**
 * GET /economy/purchase-terms (docs/economy.md "Terms"): the one place a buyer learns what PM costs and how it may be
 * bought: the price, the card bundles and cap, the relay sale's minimum and permit domain, and the sale's state as the
 * chain has it.
 */
import { type Address } from 'viem';
import { PM_DECIMALS, USDC_DECIMALS, pmForUsd, priceStrings } from '../../core/economy/terms.ts';
import type { EconomyDeps } from './deps.ts';
import { readSaleState, type SaleStateName } from './sale-state.ts';
import { permitDomain, type PermitDomain } from './permit-domain.ts';

export type MethodUnavailable = 'NOT_CONFIGURED' | 'SALE_NOT_DEPLOYED' | 'SALE_PAUSED' | 'SALE_SOLD_OUT';

export interface PurchaseTerms {
  chainId: number;
  token: { symbol: 'PM'; address: Address; decimals: number };
  paymentToken: { symbol: 'USDC'; address: Address; decimals: number };
  price: { usdcPerPm: string; usdPerPm: string; pmPerUsd: string };
  sale: { state: SaleStateName; address: Address | null; inventoryWei: string };
  methods: {
    card: {
      available: boolean;
      unavailableReason: MethodUnavailable | null;
      provider: string | null;
      currency: 'usd';
      bundles: { usd: number; pmWei: string }[];
      cap: { usd: number; periodHours: number };
    };
    relay: {
      available: boolean;
      unavailableReason: MethodUnavailable | null;
      gasSponsored: true;
      minPaymentAmount: string;
      quoteRule: string;
      permit: { spender: Address | null; domain: PermitDomain | null };
    };
  };
  asOf: string;
}

export async function purchaseTerms(deps: EconomyDeps): Promise<PurchaseTerms> {
  const sale = await readSaleState(deps);
  const saleProblem: MethodUnavailable | null =
    sale.state === 'not_deployed' ? 'SALE_NOT_DEPLOYED' : sale.state === 'paused' ? 'SALE_PAUSED' : sale.state === 'sold_out' ? 'SALE_SOLD_OUT' : null;
  const cardProblem: MethodUnavailable | null = deps.provider ? saleProblem : 'NOT_CONFIGURED';
  return {
    chainId: deps.chainId,
    token: { symbol: 'PM', address: deps.tokens.PM, decimals: PM_DECIMALS },
    paymentToken: { symbol: 'USDC', address: deps.tokens.USDC, decimals: USDC_DECIMALS },
    price: { usdcPerPm: sale.priceUsdcPerPm.toString(), ...priceStrings(sale.priceUsdcPerPm) },
    sale: { state: sale.state, address: sale.address, inventoryWei: sale.inventory.toString() },
    methods: {
      card: {
        available: cardProblem === null,
        unavailableReason: cardProblem,
        provider: deps.provider?.name ?? null,
        currency: 'usd',
        bundles: deps.terms.bundlesUsd.map((usd) => ({ usd, pmWei: pmForUsd(usd, sale.priceUsdcPerPm).toString() })),
        cap: { usd: deps.terms.cap.usd, periodHours: deps.terms.cap.hours },
      },
      relay: {
        available: saleProblem === null,
        unavailableReason: saleProblem,
        gasSponsored: true,
        minPaymentAmount: sale.minPayment.toString(),
        quoteRule: 'pmOut = floor(paymentAmount × 10^18 ÷ price.usdcPerPm), in PM base units; send minPmOut ≤ pmOut',
        permit: { spender: sale.address, domain: sale.address ? await permitDomain(deps) : null },
      },
    },
    asOf: deps.clock.now().toISOString(),
  };
}

// POST /trade/quote and POST /trade/prepare: the trade loop of automated (LMSR) markets.
import { z } from 'zod';
import { TRADE_DEFAULTS } from '../../../core/trade-defaults.ts';
import { INTENT_DEADLINE_SECONDS, QUOTE_TTL_MS } from '../../../services/markets/trading.ts';
import { PriceString } from '../../../wire/markets.ts';
import { ChainId, EvmAddress, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const TradeBody = {
  market: EvmAddress,
  outcome: z.number().int().min(0).max(2).describe('0-based trade side (outcome 1 of resolution is side 0)'),
  side: z.enum(['buy', 'sell']),
  shares: WeiString.max(78).refine((s) => BigInt(s) > 0n, 'must be positive').describe('shares in collateral base units: one share pays one base unit if its outcome wins'),
  slippageBps: z.number().int().min(0).max(TRADE_DEFAULTS.slippageBpsMax).optional().describe(`default ${TRADE_DEFAULTS.slippageBpsDefault}, at most ${TRADE_DEFAULTS.slippageBpsMax}`),
  chainId: ChainId.optional(),
};

const QuoteSchema = z.object({
  market: EvmAddress,
  chainId: ChainId,
  outcome: z.number().int(),
  side: z.enum(['buy', 'sell']),
  shares: WeiString,
  amount: WeiString.describe('buy: total to pay, fees included; sell: proceeds after fees (collateral base units)'),
  cost: WeiString.describe('LMSR cost of a buy or gross proceeds of a sell, fees excluded'),
  fees: z.object({ protocol: WeiString, creator: WeiString, total: WeiString }),
  averagePrice: z.string().describe('amount / shares, exact decimal'),
  marginalPriceBefore: PriceString,
  marginalPriceAfter: PriceString,
  pricesAfter: z.array(PriceString),
  slippageBps: z.number().int(),
  limit: WeiString.describe('buy: maxCost = amount + slippage (rounded up); sell: minProceeds = amount − slippage (rounded down)'),
  quotedAtBlock: z.string().regex(/^[0-9]+$/),
  quotedAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  recommendedRefreshMs: z.number().int(),
});

const QUOTE_ERRORS = ['INVALID_PAYLOAD', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'MARKET_NOT_TRADEABLE', 'TRADE_REJECTED'] as const;

export const tradeQuote = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/trade/quote',
  category: 'trading',
  summary: 'Quote a trade',
  description: `The exact cost of a buy or proceeds of a sell, read from the market contract (eth_call of quoteBuy / quoteSell at the latest block): what the router will charge or pay if nothing trades first. Also the average and marginal prices, the fees, and the slippage bound (limit) for POST /trade/prepare. A quote is good for ${QUOTE_TTL_MS / 1000} s (expiresAt); re-quote every recommendedRefreshMs. A market that is not open, past close, halted or taken down answers MARKET_NOT_TRADEABLE; a trade the market refuses (a price pushed outside 0.1%..99.9%, more shares sold than outstanding) TRADE_REJECTED with the contract error. Changes nothing.`,
  tier: 'propose',
  scopes: ['trade:quote'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  mcp: { tool: 'svc_trade_quote' },
  walletSession: 'principal',
  input: { body: z.strictObject(TradeBody) },
  output: QuoteSchema,
  outputName: 'TradeQuote',
  errors: QUOTE_ERRORS,
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    return ctx.services.trading.quote(body);
  },
});

const IntentSchema = z.object({
  market: EvmAddress,
  outcome: z.number().int(),
  isBuy: z.boolean(),
  shares: WeiString,
  limit: WeiString,
  deadline: z.string().regex(/^[0-9]+$/).describe('Unix seconds'),
  recipient: EvmAddress,
});


export const tradePrepare = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/trade/prepare',
  category: 'trading',
  summary: 'Prepare a trade transaction',
  description: `The router transaction (executeTradeIntent) for the agent's bound wallet to sign and send, with a fresh quote. limit defaults to the quote's slippage bound, deadline to ${INTENT_DEADLINE_SECONDS} s from now, recipient to the wallet. Before answering it checks what the router will need: a buy needs an ERC-20 allowance of the collateral to the router of at least limit, a sell needs the outcome token approved for the router. A missing approval answers 409 APPROVAL_REQUIRED (the spec's rule) whose approvals member holds the recipe exactly as GET /discover/contracts publishes it, with its ready transaction {chainId, to, data, value}: send that from the wallet, wait for its receipt, then prepare again. A short balance answers INSUFFICIENT_BALANCE. Changes nothing.`,
  tier: 'execute',
  scopes: ['trade:execute'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read', // preparing changes nothing: the wallet sends the transaction
  mcp: { tool: 'svc_trade_prepare' },
  walletSession: 'principal',
  input: {
    body: z.strictObject({
      ...TradeBody,
      limit: WeiString.max(78).optional().describe('buy: maxCost; sell: minProceeds (collateral base units)'),
      deadlineSeconds: z.number().int().min(30).max(86_400).optional(),
      recipient: EvmAddress.optional(),
    }),
  },
  output: z.object({
    quote: QuoteSchema,
    intent: IntentSchema,
    transaction: z.object({ chainId: ChainId, from: EvmAddress, to: EvmAddress, data: z.string().regex(/^0x[0-9a-f]*$/), value: z.literal('0') }),
  }),
  outputName: 'PreparedTrade',
  errors: [...QUOTE_ERRORS, 'WALLET_NOT_BOUND', 'APPROVAL_REQUIRED', 'INSUFFICIENT_BALANCE'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    const prepared = await ctx.services.trading.prepare(ctx.principal, body);
    return { ...prepared, transaction: { ...prepared.transaction, value: '0' as const } };
  },
});

// Fill packs (docs/orderbook.md "Fill allowance"): the packs on offer with the USDC transfer that pays each,
// and the purchase that credits a pack's fills once its payment is confirmed on chain.
import { z } from 'zod';
import { ChainId, EvmAddress, IsoTimestamp, TxHash, WeiString } from '../../../wire/schemas.ts';
import { FillAllowanceSchema } from '../identity/me.ts';
import { defineCapability } from '../types.ts';

const Hex = z.string().regex(/^0x[a-fA-F0-9]*$/);

const Payment = z.object({
  payment: z.object({ chainId: ChainId, symbol: z.enum(['USDC', 'PM']), token: EvmAddress, decimals: z.number().int(), amount: WeiString, payTo: EvmAddress }),
  transaction: z.object({ chainId: ChainId, to: EvmAddress, data: Hex, value: z.literal('0') }).describe('the ERC-20 transfer that pays the pack: sign and send it from your bound wallet'),
});

const OfferSchema = z.object({
  fills: z.number().int().positive(),
  usdCents: z.number().int().positive(),
  ...Payment.shape,
  payments: z.array(Payment).describe('every way to pay the pack: USDC at par, then PM at its published price (GET /api/v1/economy/purchase-terms); any one of them pays it'),
});

export const listFillPacks = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/orderbook/fill-packs',
  category: 'orderbook',
  summary: 'Fill packs on offer and how to pay for one',
  description:
    'The fill packs on offer, cheapest first (the same packs as GET /me fills.packs), each with its price in USDC base units (usdCents at par), the operator address it is paid to, and the ERC-20 transfer that pays it; payments lists that and the same price in PM at PM\'s published price (floor), either of which pays the pack. Send that transfer from the wallet bound to your agent, then name it in POST /orderbook/fill-packs/purchase. `confirmations` is how many blocks (the payment\'s own included) the payment needs first.',
  tier: 'read-only',
  scopes: [],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_orderbook_fill_packs' },
  input: {},
  output: z.object({ enabled: z.boolean().describe('false: fills are not counted here, and nothing can be bought'), confirmations: z.number().int().positive(), packs: z.array(OfferSchema) }),
  outputName: 'FillPackOffers',
  errors: ['FEATURE_DISABLED'],
  handler: async (ctx) => ctx.services.fillPacks.offers(),
});

export const purchaseFillPack = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/orderbook/fill-packs/purchase',
  category: 'orderbook',
  summary: 'Buy a fill pack with a confirmed USDC or PM payment',
  description:
    'Credits the purchased fills of the pack of `fills` fills once `txHash` — a USDC or PM transfer of exactly the pack\'s price in that token from your bound wallet to the operator (GET /orderbook/fill-packs payments) — is confirmed on chain. Each transfer pays for one pack once; purchased fills never expire. Answers the purchase and your fill allowance after it. A payment not mined or not confirmed yet answers 409 PAYMENT_TX_PENDING with Retry-After.',
  tier: 'execute',
  scopes: ['trade:execute'],
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_orderbook_fill_packs_purchase' },
  input: { body: z.strictObject({ fills: z.number().int().positive().max(1_000_000_000).describe('the pack, named by its number of fills'), txHash: TxHash, chainId: ChainId.optional() }) },
  output: z.object({
    purchase: z.object({
      id: z.string(),
      fills: z.number().int().positive(),
      usdCents: z.number().int().positive(),
      chainId: ChainId,
      txHash: TxHash,
      logIndex: z.number().int().nonnegative(),
      payer: EvmAddress,
      token: EvmAddress,
      amount: WeiString,
      createdAt: IsoTimestamp,
    }),
    fills: FillAllowanceSchema,
  }),
  outputName: 'FillPackPurchase',
  successStatus: 201,
  errors: ['UNSUPPORTED_CHAIN', 'FILL_PACK_NOT_FOUND', 'PAYMENT_TX_NOT_FOUND', 'PAYMENT_TX_PENDING', 'PAYMENT_TX_REVERTED', 'PAYMENT_TX_MISMATCH', 'PAYMENT_ALREADY_CLAIMED', 'FILL_PACK_LIMIT', 'FEATURE_DISABLED', 'WALLET_NOT_BOUND', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    const { purchase, allowance } = await ctx.services.fillPacks.purchase(ctx.principal, { fills: body.fills, txHash: body.txHash as `0x${string}` }, ctx.recordEffect ?? undefined);
    return { purchase, fills: allowance };
  },
  // A retry after a crash between the credit's commit and the stored answer: that purchase, with the allowance as it is now.
  replayEffect: async (ctx, purchaseId) => {
    const { purchase, allowance } = await ctx.services.fillPacks.purchased(ctx.principal, purchaseId);
    return { purchase, fills: allowance };
  },
});

export const getFillAllowance = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/orderbook/fill-allowance',
  category: 'orderbook',
  summary: "The caller's fill allowance",
  description:
    'How many fills your new orders may still make this month (the same as GET /me fills): free fills of the month under your reputation tier, purchased fills left, and when the free ones reset. null without a bound wallet. A new order with none left answers 402 FILL_ALLOWANCE_EXHAUSTED; cancels are always accepted. A signed-in wallet session may call it without a key (the web app\'s order form shows it).',
  tier: 'read-only',
  scopes: [],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_orderbook_fill_allowance' },
  walletSession: 'principal',
  input: {},
  output: z.object({ fills: FillAllowanceSchema.nullable() }),
  outputName: 'FillAllowance',
  errors: ['FORBIDDEN'],
  handler: async (ctx) => ({ fills: (await ctx.services.profile.me(ctx.principal)).fills }),
});

export const FILL_PACK_CAPABILITIES = [listFillPacks, purchaseFillPack, getFillAllowance];

// Claims of automated markets' payouts (docs/money-out.md "Claims"; spec "Creator funds, claims, sweep"): what the
// wallet is owed, every amount read from the chain at chainReadAt, and the redemptions the protocol sends and pays
// gas for. REST acts for the key's bound wallet; the MCP tools that send take a wallet proof of the claiming wallet.
import { z } from 'zod';
import { ProjectionSchema } from '../../../wire/markets.ts';
import { ChainId, EvmAddress, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { CREATOR_MONEY_CAPABILITIES } from './creator-money.ts';

const Cursor = z.string().regex(/^0x[0-9a-f]{40}$/, 'must be a nextCursor from an earlier page').describe('nextCursor of the previous page');
const Limit = z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(200).default(100);
const ClaimMarketRef = z.strictObject({ chainId: ChainId, marketAddress: EvmAddress });
const ClaimBody = z.strictObject({ markets: z.array(ClaimMarketRef).min(1).max(100) });

const PayoutFields = {
  chainId: ChainId,
  marketAddress: EvmAddress,
  amount: WeiString,
  eligibleNow: z.boolean(),
  eligibleAt: IsoTimestamp.nullable(),
  amountSource: z.literal('chain'),
  winningShares: WeiString,
  isResolved: z.boolean(),
  claimed: z.boolean(),
  chainReadAt: IsoTimestamp,
};
const PayoutItem = z.object({ id: z.string(), ...PayoutFields, status: z.enum(['claimable', 'claimed']), createdAt: IsoTimestamp });
const ClaimValueTotal = z.object({ chainId: ChainId, collateralToken: EvmAddress, symbol: z.string(), decimals: z.number().int().min(0), totalWei: WeiString, totalFormatted: z.string() });
const SKIPPED_REASONS = ['NOT_CLAIMABLE_YET', 'MARKET_NOT_FOUND', 'ROUTER_UNAVAILABLE', 'SUBMIT_FAILED'] as const;
const ClaimSettlement = z.object({ state: z.enum(['SETTLED', 'SKIPPED']), ...PayoutFields, txHash: z.string().regex(/^0x[0-9a-f]{64}$/).optional(), skippedReason: z.enum(SKIPPED_REASONS).optional() });
/** What a page of the wallet's payouts ends with (ClaimAvailableResponse and ClaimSweepResponse share it). */
const PAGE_OF_PAYOUTS = {
  totalCount: z.number().int().min(0),
  valueTotals: z.array(ClaimValueTotal),
  unattributedPayoutCount: z.number().int().min(0),
  valueAttributionComplete: z.boolean(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
  projection: ProjectionSchema,
};
const CLAIM_ERRORS = ['WALLET_NOT_BOUND', 'WALLET_PROOF_INVALID', 'SERVICE_UNAVAILABLE'] as const;

export const claimsAvailable = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/claims/available',
  category: 'claims',
  summary: "The wallet's payouts, read on chain",
  description:
    "The key's bound wallet's payouts of automated markets, a page at a time (cursor, limit 1..200, default 100): claimable (resolved and paying now, or proposed and paying if the proposal stands: eligibleNow false, eligibleAt the end of its challenge window) or claimed. Every amount is the market's own answer at chainReadAt (amountSource chain): a winning share pays one collateral unit, void pays every share 1/outcomeCount. totalCount counts the markets the wallet may be owed by (those where it holds shares and a resolution started, or where it redeemed); the totals are this page's. projection tells how fresh the list of markets is. Order-book payouts are ledger credits (GET /api/v1/ledger/proof/{account}).",
  tier: 'read-only',
  scopes: ['portfolio:read'],
  rateClass: 'read',
  idempotent: true,
  walletSession: 'principal',
  mcp: { tool: 'svc_get_claims_available' },
  input: { query: z.strictObject({ cursor: Cursor.optional(), limit: Limit }) },
  output: z.object({
    wallet: EvmAddress,
    payouts: z.array(PayoutItem),
    totalClaimable: WeiString,
    totalEligibleNow: WeiString,
    count: z.number().int().min(0),
    ...PAGE_OF_PAYOUTS,
  }),
  outputName: 'ClaimAvailableResponse',
  errors: [...CLAIM_ERRORS],
  handler: async (ctx, { query }) => ctx.services.claims.available({ principal: ctx.principal, provenWallet: null }, { cursor: query.cursor, limit: query.limit }),
});

export const claimsSimulate = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/claims/simulate',
  category: 'claims',
  summary: 'What a claim of these markets would pay, without sending it',
  description:
    "The dry run of POST /claims/batch for the same body (1..100 markets): for each, what it would pay the wallet now, read on chain, and whether the batch would settle it (wouldSettle) or skip it (skippedReason). Sends nothing and builds no calldata.",
  tier: 'read-only',
  scopes: ['portfolio:read'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  walletSession: 'principal',
  mcp: { tool: 'svc_claims_simulate' },
  input: { body: ClaimBody },
  output: z.object({
    requested: z.number().int(),
    wallet: EvmAddress,
    claimable: z.number().int().min(0),
    totalAmountWei: WeiString,
    totalEligibleAmountWei: WeiString,
    items: z.array(z.object({ ...PayoutFields, status: z.enum(['claimable', 'claimed']), wouldSettle: z.boolean(), skippedReason: z.enum(SKIPPED_REASONS).optional() })),
    projection: ProjectionSchema,
  }),
  outputName: 'ClaimSimulationResponse',
  errors: [...CLAIM_ERRORS],
  handler: async (ctx, { body }) => ({ ...(await ctx.services.claims.simulate({ principal: ctx.principal, provenWallet: null }, body.markets)), projection: await ctx.services.claims.projection() }),
});

export const claimsBatch = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/claims/batch',
  category: 'claims',
  summary: 'Claim the payouts of these markets (the protocol pays gas)',
  description:
    "Redeems the wallet's paying shares in each named market (1..100, no other fields) in one transaction the protocol sends and pays for; each market pays only the wallet. Per market: SETTLED with the txHash and the amount the chain paid (its Redeemed log), or SKIPPED with NOT_CLAIMABLE_YET (not resolved, or nothing to pay — claimed is true when it was claimed before), MARKET_NOT_FOUND (unknown, another chain, or its creation was reorged away), ROUTER_UNAVAILABLE (an order book: paid as ledger credits) or SUBMIT_FAILED. Exactly once under its Idempotency-Key: a retry, even after a crash between submit and receipt, answers the same transaction. Over MCP the tool takes walletAddress and a wallet proof.",
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the redemptions are sent to the chain at once',
  walletSession: 'principal',
  mcp: { tool: 'svc_claims_batch' },
  mcpElevation: { scope: 'fees:claim' },
  input: { body: ClaimBody },
  output: z.object({ requested: z.number().int(), wallet: EvmAddress, claimable: z.number().int().min(0), claims: z.array(ClaimSettlement), projection: ProjectionSchema }),
  outputName: 'ClaimBatchResponse',
  errors: [...CLAIM_ERRORS],
  handler: async (ctx, { body }) => ({
    ...(await ctx.services.claims.batch({ principal: ctx.principal, provenWallet: ctx.provenWallet }, body.markets, ctx.recordEffect ?? undefined)),
    projection: await ctx.services.claims.projection(),
  }),
  replayEffect: async (ctx, id) => {
    const r = await ctx.services.claims.replay(id);
    return { ...(r.summary as { requested: number; wallet: string; claimable: number }), claims: r.settlements, projection: await ctx.services.claims.projection() };
  },
});

export const claimsSweep = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/claims/sweep',
  category: 'claims',
  summary: "Claim a page of the wallet's payouts (the protocol pays gas)",
  description:
    "Claims a page (cursor, limit 1..200, default 100) of the wallet's payouts in one transaction the protocol sends and pays for: those paying now; with includeIneligible=true also those that will once their proposal stands, reported SKIPPED NOT_CLAIMABLE_YET (otherwise counted in excludedIneligibleCount). Body {}. Settlements as POST /claims/batch; exactly once under its Idempotency-Key. Over MCP the tool takes walletAddress and a wallet proof.",
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the redemptions are sent to the chain at once',
  mcp: { tool: 'svc_claims_sweep' },
  mcpElevation: { scope: 'fees:claim' },
  input: { query: z.strictObject({ cursor: Cursor.optional(), limit: Limit, includeIneligible: z.enum(['true', 'false']).default('false') }), body: z.strictObject({}) },
  output: z.object({
    wallet: EvmAddress,
    totalClaimable: z.number().int().min(0),
    totalAmount: WeiString,
    totalEligibleAmount: WeiString,
    excludedIneligibleCount: z.number().int().min(0),
    claims: z.array(ClaimSettlement),
    ...PAGE_OF_PAYOUTS,
  }),
  outputName: 'ClaimSweepResponse',
  errors: [...CLAIM_ERRORS],
  handler: async (ctx, { query }) => ({
    ...(await ctx.services.claims.sweep({ principal: ctx.principal, provenWallet: ctx.provenWallet }, { cursor: query.cursor, limit: query.limit, includeIneligible: query.includeIneligible === 'true' }, ctx.recordEffect ?? undefined)),
    projection: await ctx.services.claims.projection(),
  }),
  replayEffect: async (ctx, id) => {
    const r = await ctx.services.claims.replay(id);
    return { ...(r.summary as Omit<Awaited<ReturnType<typeof ctx.services.claims.sweep>>, 'claims'>), claims: r.settlements, projection: await ctx.services.claims.projection() };
  },
});

export const CLAIM_CAPABILITIES = [claimsAvailable, claimsSimulate, claimsBatch, claimsSweep, ...CREATOR_MONEY_CAPABILITIES];

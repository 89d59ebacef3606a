// POST /negotiate/preflight: every check a deploy needs, at once, and what it would charge. Changes nothing.
import { z } from 'zod';
import { MarketRecord } from '../../../wire/markets.ts';
import { defineCapability } from '../types.ts';
import { toRecords } from '../markets/read-context.ts';
import { BalanceShortSchema, ChargesSchema, CreationApprovalSchema, TermsBody, termsFromBody } from './shapes.ts';
import { TxHash } from '../../../wire/schemas.ts';

export const negotiatePreflight = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/negotiate/preflight',
  category: 'markets',
  summary: 'Check market terms before proposing',
  description:
    "Validates the terms (question, category, outcome count 2 or 3, collateral with creation=true, close time 1 h..365 d ahead, resolution source, liquidity floor, creator fee within the schedule, the creator's live-market cap) and answers every problem at once, each with the value the protocol would counter with when it can. Also answers what a deploy charges (subsidy b·ln n in the collateral, 100 PM bond), the factory approvals still missing and any balance shortfall of the agent's wallet. With an externalId already used by this creator it returns the existing market (existingMarket) instead of inviting a duplicate. Changes nothing, so it takes no Idempotency-Key.",
  tier: 'propose',
  scopes: ['markets:propose'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  mcp: { tool: 'svc_negotiate_preflight' },
  input: { body: TermsBody },
  output: z.object({
    ok: z.boolean().describe('true when propose would accept the terms as they are'),
    problems: z.array(z.object({ field: z.string(), code: z.string(), message: z.string(), counter: z.union([z.string(), z.number()]).optional() })),
    questionHash: TxHash,
    charges: ChargesSchema,
    approvalsMissing: z.array(CreationApprovalSchema),
    balancesShort: z.array(BalanceShortSchema),
    liveMarkets: z.object({ count: z.number().int(), max: z.number().int() }),
    existingMarket: MarketRecord.nullable(),
    existingNegotiationId: z.uuid().nullable(),
  }),
  outputName: 'NegotiationPreflight',
  errors: ['INVALID_PAYLOAD', 'UNSUPPORTED_CHAIN', 'WALLET_NOT_BOUND'],
  handler: async (ctx, { body }) => {
    const result = await ctx.services.negotiations.preflight(ctx.principal, termsFromBody(ctx, body));
    return { ...result, existingMarket: result.existingMarket ? toRecords(ctx, [result.existingMarket])[0]! : null };
  },
});

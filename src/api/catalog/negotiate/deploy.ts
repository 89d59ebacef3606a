// POST /negotiate/:id/prepare-deploy and /commit-deploy: the factory transaction to sign, then registration
// from its mined receipt.
import { z } from 'zod';
import type { Hex } from 'viem';
import { MarketRecord } from '../../../wire/markets.ts';
import { ChainId, EvmAddress, TxHash } from '../../../wire/schemas.ts';
import type { CommittedDeploy } from '../../../services/markets/negotiation.ts';
import { defineCapability, type HandlerContext } from '../types.ts';
import { toRecords } from '../markets/read-context.ts';
import { BalanceShortSchema, ChargesSchema, CreationApprovalSchema, NegotiationParams, NegotiationSchema, negotiationBody } from './shapes.ts';

export const negotiatePrepareDeploy = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/negotiate/:id/prepare-deploy',
  category: 'markets',
  summary: 'Prepare the factory transaction',
  description:
    "For an accepted negotiation: the factory approvals still missing (approval recipes with spender the factory and the exact amount it pulls: subsidy in the collateral, the 100 PM bond, one recipe per token), any balance shortfall, the market address the creation will have, and the factory transaction {chainId, from, to, data, value} for the agent's wallet to sign and send once the approvals are mined. ready is true when nothing is missing. The terms are re-checked (time has passed since the proposal): a close time that is now too soon answers TERMS_REJECTED. Changes nothing.",
  tier: 'execute',
  scopes: ['markets:create'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read', // preparing changes nothing: the wallet sends the transaction
  mcp: { tool: 'svc_negotiate_prepare_deploy' },
  input: { params: NegotiationParams, body: z.strictObject({}).optional() },
  output: z.object({
    negotiation: NegotiationSchema,
    ready: z.boolean(),
    charges: ChargesSchema,
    approvalsMissing: z.array(CreationApprovalSchema),
    balancesShort: z.array(BalanceShortSchema),
    predictedMarketAddress: EvmAddress.describe("where the market will be: automated markets by CREATE2 from the creator and its market count (a creation mined after another one of the same creator lands at the next address); ORDERBOOK markets at the order-book factory's next nonce (a creation by anyone mined first takes it)"),
    transaction: z.object({ chainId: ChainId, from: EvmAddress, to: EvmAddress, data: z.string().regex(/^0x[0-9a-f]*$/), value: z.literal('0') }),
  }),
  errors: ['NEGOTIATION_NOT_FOUND', 'NEGOTIATION_STATE', 'NEGOTIATION_EXPIRED', 'TERMS_REJECTED', 'LIVE_MARKET_CAP_REACHED', 'WALLET_NOT_BOUND'],
  handler: async (ctx, { params }) => {
    const p = await ctx.services.negotiations.prepareDeploy(ctx.principal, params.id);
    return {
      negotiation: negotiationBody(p.negotiation),
      ready: p.approvalsMissing.length === 0 && p.balancesShort.length === 0,
      charges: p.charges,
      approvalsMissing: p.approvalsMissing,
      balancesShort: p.balancesShort,
      predictedMarketAddress: p.predictedMarket,
      transaction: { ...p.transaction, value: '0' as const },
    };
  },
});

/** What commit-deploy answers: the deployed negotiation and its market. */
const committedBody = (ctx: HandlerContext, { negotiation, market }: CommittedDeploy) => ({ negotiation: negotiationBody(negotiation), market: toRecords(ctx, [market])[0]! });

export const negotiateCommitDeploy = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/negotiate/:id/commit-deploy',
  category: 'markets',
  summary: 'Register the deployed market',
  description:
    "Takes the hash of the factory transaction the agent's wallet sent, reads its receipt and registers the market: market.created and market.live are emitted as soon as the receipt is mined (not at finality). Not yet mined answers DEPLOY_TX_PENDING with Retry-After; a reverted transaction DEPLOY_TX_REVERTED; a transaction that created no market of this negotiation (other factory, creator or question hash) DEPLOY_TX_MISMATCH. Committing the same hash again answers the same market.",
  tier: 'execute',
  scopes: ['markets:create'],
  rateClass: 'write',
  idempotent: true,
  mcp: { tool: 'svc_negotiate_commit_deploy' },
  input: { params: NegotiationParams, body: z.strictObject({ txHash: TxHash }) },
  output: z.object({ negotiation: NegotiationSchema, market: MarketRecord }),
  outputName: 'CommittedDeploy',
  errors: ['NEGOTIATION_NOT_FOUND', 'NEGOTIATION_STATE', 'NOT_FOUND', 'DEPLOY_TX_PENDING', 'DEPLOY_TX_REVERTED', 'DEPLOY_TX_MISMATCH'],
  handler: async (ctx, { params, body }) => committedBody(ctx, await ctx.services.negotiations.commitDeploy(ctx.principal, params.id, body.txHash.toLowerCase() as Hex, ctx.recordEffect ?? undefined)),
  // A retry after a crash between the registration's commit and the stored answer: the negotiation and its market as they are now.
  replayEffect: async (ctx, id) => committedBody(ctx, await ctx.services.negotiations.committedDeploy(ctx.principal, id)),
});


// The creator's money out (docs/money-out.md "Creator funds", "Residual sweep"; spec "Creator funds, claims, sweep"):
// collecting the fees and the bond of resolved markets, and sweeping a resolved market's residual, all sent by the
// protocol at its gas and paid by the market to its creator only.
import { z } from 'zod';
import { ChainId, EvmAddress, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const Collection = z.object({
  chainId: ChainId,
  marketAddress: EvmAddress,
  marketBalance: z.object({ state: z.enum(['COLLECTED', 'NOTHING_TO_COLLECT', 'SKIPPED']), txHash: z.string().nullable(), amount: WeiString, skippedReason: z.string().optional() }),
  bond: z.object({ state: z.enum(['COLLECTED', 'SKIPPED']), txHash: z.string().nullable(), skippedReason: z.string().optional() }),
});
const CollectResponse = z.object({ walletAddress: EvmAddress, collections: z.array(Collection), hasMore: z.boolean() });

export const collectCreatorFunds = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/trade/creator-funds/collect',
  category: 'trading',
  summary: "Collect a creator's fees and bond from resolved markets",
  description:
    "For the creator wallet's resolved markets — the named ones (marketAddresses), or every collectable one, oldest first, 20 per call (hasMore) — the protocol sends collectCreatorFees and settleBond and pays the gas; each market pays its creator only, so the money is bound to the creator wallet. Per market: marketBalance COLLECTED (txHash, amount from the receipt), NOTHING_TO_COLLECT or SKIPPED (skippedReason: not_creator, not_resolved, no_creator_funds…); bond COLLECTED or SKIPPED (settled, slashed — the keeper settles a slashed bond —, no_bond…). chainId defaults to every chain served. Exactly once under its Idempotency-Key. REST acts for the key's bound wallet; the MCP tool requires walletAddress and a wallet proof.",
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the collections are sent to the chain at once',
  walletSession: 'principal',
  mcp: { tool: 'svc_trade_creator_funds_collect' },
  mcpElevation: { scope: 'fees:claim', walletRequired: true },
  input: { body: z.strictObject({ chainId: ChainId.optional(), marketAddresses: z.array(EvmAddress).min(1).max(100).optional() }) },
  output: CollectResponse,
  outputName: 'CreatorFundsCollectResponse',
  errors: ['UNSUPPORTED_CHAIN', 'WALLET_NOT_BOUND', 'WALLET_PROOF_INVALID', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    return ctx.services.claims.collect({ principal: ctx.principal, provenWallet: ctx.provenWallet }, body, ctx.recordEffect ?? undefined);
  },
  replayEffect: async (ctx, id) => ctx.services.claims.replayCollection(id),
});

const SweepResult = z.discriminatedUnion('completion', [
  z.object({ completion: z.literal('swept'), marketAddress: EvmAddress, txHash: z.string(), recipient: EvmAddress, amountSwept: z.string().regex(/^[1-9][0-9]*$/), source: z.literal('receipt_event') }),
  z.object({ completion: z.literal('already_swept'), marketAddress: EvmAddress, txHash: z.string(), recipient: EvmAddress, amountSwept: z.string().regex(/^[1-9][0-9]*$/), source: z.literal('chain_event') }),
  z.object({ completion: z.literal('nothing_to_sweep'), marketAddress: EvmAddress, txHash: z.null(), recipient: EvmAddress, amountSwept: z.literal('0'), source: z.literal('no_residual') }),
]);

export const sweepExecute = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/sweep/execute',
  category: 'claims',
  summary: "Sweep a resolved market's residual to its creator",
  description:
    "Sends the market's sweepResidual at the protocol's gas: the collateral it holds beyond everything still owed (unredeemed winning shares, uncollected fees, and, for PM markets, the unsettled bond and voters' part) goes to the creator. Answers swept (this transaction, source receipt_event), already_swept (an earlier sweep, source chain_event) or nothing_to_sweep. 404 MARKET_NOT_FOUND for an unknown market, another chain or an order book; 409 MARKET_NOT_RESOLVED before resolution. Anyone may ask; only the creator is paid, so no wallet proof is needed. Exactly once under its Idempotency-Key.",
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the sweep is sent to the chain at once',
  mcp: { tool: 'svc_sweep_execute' },
  input: { body: z.strictObject({ marketAddress: EvmAddress, chainId: ChainId }) },
  output: SweepResult,
  outputName: 'SweepExecuteResponse',
  errors: ['MARKET_NOT_FOUND', 'MARKET_NOT_RESOLVED', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => ctx.services.claims.sweepResidual(body, ctx.recordEffect ?? undefined),
  replayEffect: async (ctx, id) => ctx.services.claims.replaySweep(id),
});

export const sweepBatch = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/sweep',
  category: 'claims',
  summary: 'Sweep the residuals of several resolved markets (batch custody)',
  description:
    "POST /sweep/execute for each market (1..50), in order: each result is a SweepExecuteResponse, or {marketAddress, error: {code, detail}} for a market that cannot be swept (MARKET_NOT_FOUND, MARKET_NOT_RESOLVED). Each market's sweep is one operation per residual, so a repeat sends nothing and answers already_swept. REST-only by the spec.",
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: "each market's sweep is one operation per residual: a repeat sends nothing and answers already_swept from the chain",
  needsChain: 'the sweeps are sent to the chain at once',
  mcp: { restOnly: 'batch custody of many markets is an operator task (spec: REST-only); agents sweep one market with svc_sweep_execute' },
  input: { body: z.strictObject({ markets: z.array(z.strictObject({ chainId: ChainId, marketAddress: EvmAddress })).min(1).max(50) }) },
  output: z.object({ results: z.array(z.union([SweepResult, z.object({ marketAddress: EvmAddress, error: z.object({ code: z.string(), detail: z.string() }) })])) }),
  outputName: 'SweepBatchResponse',
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => {
    const results = [];
    for (const m of body.markets) {
      try {
        results.push(await ctx.services.claims.sweepResidual(m));
      } catch (err) {
        const e = err as { code?: string; detail?: string };
        if (e.code !== 'MARKET_NOT_FOUND' && e.code !== 'MARKET_NOT_RESOLVED') throw err;
        results.push({ marketAddress: m.marketAddress.toLowerCase(), error: { code: e.code, detail: e.detail ?? '' } });
      }
    }
    return { results };
  },
});

export const CREATOR_MONEY_CAPABILITIES = [collectCreatorFunds, sweepExecute, sweepBatch];

// GET /trade/creator-funds: what a creator wallet has waiting in its markets (fees and bonds). Over MCP
// the tool takes a wallet proof (spec: "MCP adds walletAddress (optional with bound wallet) plus
// wallet-proof fields"), so a key alone never reveals or moves a wallet's creator money.
import { z } from 'zod';
import { ChainId, ChainIdQuery, EvmAddress, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const MarketBalance = z.object({
  status: z.enum(['claimable', 'pending_resolution', 'challenge_window', 'too_early', 'zero', 'collected', 'unknown']),
  amount: WeiString,
  amountFormatted: z.string(),
  tokenAddress: EvmAddress.nullable(),
  symbol: z.string(),
  decimals: z.number().int().min(0),
  reason: z.string().optional(),
});

const Bond = z.object({
  status: z.enum(['returnable', 'pending', 'returned', 'unavailable', 'none', 'unknown']),
  displayStatus: z.enum(['ready', 'pending', 'returned', 'unavailable', 'none', 'syncing']),
  reasonCode: z.enum(['action_available', 'settled', 'unavailable', 'not_created', 'indexing_pending', 'unknown']),
  amountWei: WeiString,
  amountFormatted: z.string(),
  symbol: z.literal('PM'),
  txHash: z.string().optional(),
  terminalTxHash: z.string().optional(),
  reason: z.string().optional(),
});

const CreatorFundsResponse = z.object({
  walletAddress: EvmAddress,
  chainId: ChainId.nullable().describe('the chainId asked for; null when none was: every active trading chain'),
  creatorFunds: z.object({
    markets: z.array(z.object({ chainId: ChainId, marketAddress: EvmAddress, marketTitle: z.string(), marketBalance: MarketBalance, bond: Bond })),
    summary: z.object({
      marketBalanceByToken: z.array(
        z.object({ chainId: ChainId, tokenAddress: EvmAddress, symbol: z.string(), decimals: z.number().int().min(0), totalWei: WeiString, totalFormatted: z.string() }),
      ),
      bondReturnableWei: WeiString,
      bondReturnedWei: WeiString,
      collectableCount: z.number().int().min(0),
      error: z.string().optional(),
    }),
  }),
  workflow: z.object({ fundsLabel: z.literal('creator_funds'), marketBalanceSemantics: z.string(), creationBondSemantics: z.string(), execution: z.string() }),
});

export const getCreatorFunds = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/trade/creator-funds',
  category: 'trading',
  summary: 'Creator funds of a wallet',
  description:
    'For every market the wallet created: its marketBalance (creator fees the market holds, with a status: too_early while open, pending_resolution or challenge_window while resolving, claimable once resolved, zero when empty) and its creation bond (pending until resolution, then returnable), plus totals per token. REST answers for the key\'s bound wallet; the MCP tool takes a wallet proof (walletAddress may be omitted with a bound wallet). chainId narrows to one chain; omitted, every active trading chain (this deployment serves one) is covered and the response says chainId null.',
  tier: 'read-only',
  scopes: ['portfolio:read'],
  rateClass: 'read',
  idempotent: true,
  walletSession: 'principal',
  mcp: { tool: 'svc_get_trade_creator_funds' },
  mcpElevation: { scope: 'portfolio:read' },
  input: { query: z.strictObject({ chainId: ChainIdQuery.optional() }) },
  output: CreatorFundsResponse,
  outputName: 'CreatorFundsResponse',
  errors: ['UNSUPPORTED_CHAIN', 'WALLET_NOT_BOUND', 'WALLET_PROOF_INVALID', 'FORBIDDEN'],
  handler: async (ctx, { query }) => {
    ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    return ctx.services.marketReads.creatorFunds({ principal: ctx.principal, provenWallet: ctx.provenWallet, chainId: query.chainId });
  },
});

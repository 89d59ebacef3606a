// POST /agents/me/bind-wallet: a wallet proof binds the wallet and unlocks the economic scopes (REST-only by the spec).
import { z } from 'zod';
import { entitlementOf } from '../../../core/entitlement.ts';
import { proofsOf, type AgentRow } from '../../../services/identity/agents.ts';
import { AgentTierSchema, EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { WalletProofFields } from './register.ts';

export const bindWallet = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/agents/me/bind-wallet',
  category: 'identity',
  summary: 'Bind a wallet to the agent',
  description:
    'Binds walletAddress to the calling agent with an EIP-191 signature over the agent-bind-wallet template of GET /auth-discovery. The agent\'s keys become execute keys with the eleven wallet scopes and lose any anonymous expiry. An agent has one wallet; a wallet belongs to one agent.',
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  mcp: { restOnly: 'bind-wallet is REST-only by the spec' },
  input: { body: z.strictObject(WalletProofFields) },
  output: z.object({ walletAddress: EvmAddress, tier: AgentTierSchema, scopes: z.array(z.string()) }),
  outputName: 'BindWalletResponse',
  errors: ['WALLET_PROOF_INVALID', 'WALLET_ALREADY_BOUND', 'AGENT_WALLET_ALREADY_SET', 'FORBIDDEN'],
  handler: async (ctx, { body }) => bound(await ctx.services.binding.bindWallet(ctx.principal, body, ctx.recordEffect ?? undefined)),
  // A retry after a crash between the binding's commit and its stored answer: the agent as it stands.
  replayEffect: async (ctx, ref) => bound(await ctx.services.binding.recordedWalletBinding(ref)),
});

function bound(agent: AgentRow) {
  const entitlement = entitlementOf(proofsOf(agent))!;
  return { walletAddress: agent.wallet_address!, tier: entitlement.tier, scopes: [...entitlement.scopes] };
}

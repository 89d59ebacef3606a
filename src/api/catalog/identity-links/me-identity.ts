// GET /agents/me/identity: the identity-link state of the caller's bound wallet.
import { z } from 'zod';
import { LINKED_ADDRESS_CAP } from '../../../services/identity/linking.ts';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { IdentityRoleSchema, LINKING_ERRORS, LowerEvmAddress } from './shapes.ts';

export const getAgentIdentity = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/agents/me/identity',
  category: 'identity',
  summary: 'Identity-link state',
  description:
    "The identity the caller's bound wallet belongs to (null when none): its id, the caller's role (root or member), every wallet linked under it, and the caller's consents still awaiting a root's approval.",
  tier: 'read-only',
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_agent_identity' },
  output: z.object({
    walletAddress: LowerEvmAddress,
    identity: z
      .object({
        id: z.uuid(),
        role: IdentityRoleSchema,
        rootWalletAddress: LowerEvmAddress,
        createdAt: IsoTimestamp,
        linkedAt: IsoTimestamp,
        members: z.array(z.object({ walletAddress: LowerEvmAddress, role: IdentityRoleSchema, linkedAt: IsoTimestamp })),
        linkedCount: z.number().int().min(0).max(LINKED_ADDRESS_CAP),
        linkedCap: z.literal(LINKED_ADDRESS_CAP),
      })
      .nullable(),
    pendingConsents: z.array(z.object({ id: z.uuid(), identityId: z.uuid(), rootWalletAddress: LowerEvmAddress, submittedAt: IsoTimestamp })),
  }),
  outputName: 'AgentIdentityLinkState',
  errors: [...LINKING_ERRORS],
  handler: async (ctx) => {
    const s = await ctx.services.linking.getAgentIdentity({ agentId: ctx.principal.agentId });
    return {
      walletAddress: s.walletAddress,
      identity: s.identity && {
        id: s.identity.id,
        role: s.identity.role,
        rootWalletAddress: s.identity.rootWallet,
        createdAt: s.identity.createdAt.toISOString(),
        linkedAt: s.identity.linkedAt.toISOString(),
        members: s.identity.members.map((m) => ({ ...m, linkedAt: m.linkedAt.toISOString() })),
        linkedCount: s.identity.linkedCount,
        linkedCap: LINKED_ADDRESS_CAP,
      },
      pendingConsents: s.pendingConsents.map((p) => ({ id: p.id, identityId: p.identityId, rootWalletAddress: p.rootWallet, submittedAt: p.submittedAt.toISOString() })),
    };
  },
});

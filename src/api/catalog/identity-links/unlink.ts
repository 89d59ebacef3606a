// POST /identity/unlink: remove up to 49 wallets from the caller's identity, all or nothing.
import { z } from 'zod';
import { LINKED_ADDRESS_CAP, UNLINK_MAX } from '../../../services/identity/linking.ts';
import { EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { distinct, LINKING_ERRORS, LowerEvmAddress } from './shapes.ts';

export const unlinkIdentityWallets = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/identity/unlink',
  category: 'identity',
  summary: 'Unlink identity wallets',
  description: `Removes 1..${UNLINK_MAX} wallets (no repeats, any case) from the caller's identity, all or nothing. The root unlinks members; a member may unlink only itself. The root may list its own wallet only when no member stays after the call: the identity is then dissolved (its codes stop working, pending consents lapse).`,
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  destructive: true,
  mcp: { tool: 'svc_unlink_identity_wallets' },
  input: {
    body: z.strictObject({
      walletAddresses: z.array(EvmAddress).min(1).max(UNLINK_MAX).refine(distinct, 'must not repeat an address'),
    }),
  },
  output: z.object({
    identityId: z.uuid(),
    unlinked: z.array(LowerEvmAddress),
    dissolved: z.boolean(),
    linkedCount: z.number().int().min(0).max(LINKED_ADDRESS_CAP),
  }),
  outputName: 'IdentityUnlinkResponse',
  errors: [...LINKING_ERRORS, 'IDENTITY_NOT_FOUND', 'NOT_IDENTITY_ROOT', 'WALLET_NOT_LINKED', 'IDENTITY_HAS_MEMBERS'],
  handler: async (ctx, { body }) =>
    ctx.services.linking.unlinkIdentityWallets({ agentId: ctx.principal.agentId, walletAddresses: body.walletAddresses, recordEffect: ctx.recordEffect ?? undefined }),
  // A retry after a crash between the unlink's commit and its stored answer: the same answer.
  replayEffect: async (ctx, ref, { body }) => ctx.services.linking.recordedUnlink({ ref, walletAddresses: body.walletAddresses }),
});

// POST /identity/approve-links: the root approves up to 20 pending consents, all or nothing.
import { z } from 'zod';
import { APPROVE_LINKS_MAX, LINKED_ADDRESS_CAP, type ApprovedLinks } from '../../../services/identity/linking.ts';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { distinct, LINKING_ERRORS, LowerEvmAddress } from './shapes.ts';

export const approveLinkConsents = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/identity/approve-links',
  category: 'identity',
  summary: 'Approve link consents',
  description: `The root approves 1..${APPROVE_LINKS_MAX} pending consents by id (no repeats). All or nothing: an unknown or foreign consent, one no longer pending, a child linked meanwhile, or passing the identity cap of ${LINKED_ADDRESS_CAP} linked addresses (root not counted) refuses the whole call and links nobody.`,
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_approve_link_consents' },
  input: {
    body: z.strictObject({
      consentIds: z.array(z.uuid()).min(1).max(APPROVE_LINKS_MAX).refine(distinct, 'must not repeat a consent id'),
    }),
  },
  output: z.object({
    identityId: z.uuid(),
    approved: z.array(z.object({ consentId: z.uuid(), walletAddress: LowerEvmAddress, linkedAt: IsoTimestamp })),
    linkedCount: z.number().int().min(0).max(LINKED_ADDRESS_CAP),
    linkedCap: z.literal(LINKED_ADDRESS_CAP),
  }),
  outputName: 'IdentityApproveLinksResponse',
  errors: [
    ...LINKING_ERRORS,
    'IDENTITY_NOT_FOUND',
    'NOT_IDENTITY_ROOT',
    'LINK_CONSENT_NOT_FOUND',
    'LINK_CONSENT_NOT_PENDING',
    'WALLET_ALREADY_LINKED',
    'IDENTITY_LINK_CAP_REACHED',
  ],
  handler: async (ctx, { body }) =>
    approvedBody(await ctx.services.linking.approveLinkConsents({ agentId: ctx.principal.agentId, consentIds: body.consentIds, recordEffect: ctx.recordEffect ?? undefined })),
  // A retry after a crash between the approval's commit and its stored answer: the same approval.
  replayEffect: async (ctx, ref, { body }) => approvedBody(await ctx.services.linking.recordedApproval({ ref, consentIds: body.consentIds })),
});

function approvedBody(r: ApprovedLinks) {
  return {
    identityId: r.identityId,
    approved: r.approved.map((a) => ({ ...a, linkedAt: a.linkedAt.toISOString() })),
    linkedCount: r.linkedCount,
    linkedCap: LINKED_ADDRESS_CAP,
  };
}

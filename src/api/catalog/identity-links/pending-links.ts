// GET /identity/pending-links: the root's queue of consents awaiting approval, oldest first.
import { z } from 'zod';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { LINKING_ERRORS, LowerEvmAddress } from './shapes.ts';

export const listPendingLinkConsents = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/identity/pending-links',
  category: 'identity',
  summary: 'Pending link consents',
  description:
    "Consents to the caller's identity that await approval, oldest first, in pages of limit (1..100, default 50) with nextCursor. Only the root lists them; a wallet linked to no identity gets an empty list with identityId null.",
  tier: 'read-only',
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_list_pending_link_consents' },
  input: {
    query: z.strictObject({
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(100).default(50),
      cursor: z.uuid().optional(),
    }),
  },
  output: z.object({
    identityId: z.uuid().nullable(),
    consents: z.array(
      z.object({ id: z.uuid(), walletAddress: LowerEvmAddress, agentId: z.uuid(), agentName: z.string(), submittedAt: IsoTimestamp }),
    ),
    nextCursor: z.uuid().nullable(),
  }),
  outputName: 'IdentityPendingLinksResponse',
  errors: [...LINKING_ERRORS, 'NOT_IDENTITY_ROOT'],
  handler: async (ctx, { query }) => {
    const page = await ctx.services.linking.listPendingLinkConsents({ agentId: ctx.principal.agentId, limit: query.limit, cursor: query.cursor });
    return { ...page, consents: page.consents.map((c) => ({ ...c, submittedAt: c.submittedAt.toISOString() })) };
  },
});

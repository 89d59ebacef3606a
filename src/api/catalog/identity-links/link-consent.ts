// POST /identity/link-consent: a child wallet asks to join the identity behind a link code. The
// caller's own API-key session proves it; no wallet signature.
import { z } from 'zod';
import { normalizeLinkCode } from '../../../core/link-code.ts';
import type { SubmittedConsent } from '../../../services/identity/linking.ts';
import { defineCapability, Reply } from '../types.ts';
import { LINKING_ERRORS, LinkConsentSchema } from './shapes.ts';

export const submitLinkConsent = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/identity/link-consent',
  category: 'identity',
  summary: 'Consent to join an identity',
  description:
    "Submits the caller's consent to link its bound wallet to the identity that issued the code (XXXX-XXXX-XXXX; case, hyphens and spaces ignored). Proved by the caller's API-key session, no wallet signature. The consent waits for the root's POST /identity/approve-links. A second consent to the same identity while one is pending answers 200 with that one.",
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_submit_link_consent' },
  input: {
    body: z.strictObject({
      code: z
        .string()
        .min(1)
        .max(64)
        .refine((c) => normalizeLinkCode(c) !== null, 'must be a link code: 12 characters of 0-9 A-Z without U (XXXX-XXXX-XXXX)'),
    }),
  },
  output: z.object({ consent: LinkConsentSchema }),
  outputName: 'IdentityLinkConsentResponse',
  successStatus: 201,
  alsoOutputStatuses: [200],
  errors: [...LINKING_ERRORS, 'LINK_CODE_UNKNOWN', 'LINK_CODE_EXPIRED', 'LINK_TO_OWN_IDENTITY', 'WALLET_ALREADY_LINKED'],
  handler: async (ctx, { body }) =>
    consentReply(await ctx.services.linking.submitLinkConsent({ agentId: ctx.principal.agentId, code: body.code, recordEffect: ctx.recordEffect ?? undefined })),
  // A retry after a crash between the consent's commit and its stored answer: that consent (201), as it stands.
  replayEffect: async (ctx, ref) => consentReply(await ctx.services.linking.recordedLinkConsent({ ref })),
});

function consentReply({ consent, created }: SubmittedConsent) {
  const { rootWallet, submittedAt, ...rest } = consent;
  return new Reply({ consent: { ...rest, rootWalletAddress: rootWallet, submittedAt: submittedAt.toISOString() } }, created ? 201 : 200);
}

// POST /identity/link-code: the root's multi-use link code (3-minute TTL), shown once.
import { z } from 'zod';
import { LINK_CODE_TTL_SECONDS, type IssuedLinkCode } from '../../../services/identity/linking.ts';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { LINKING_ERRORS, LowerEvmAddress } from './shapes.ts';

export const generateLinkCode = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/identity/link-code',
  category: 'identity',
  summary: 'Generate an identity link code',
  description: `Issues a multi-use link code (format XXXX-XXXX-XXXX, Crockford base32, valid ${LINK_CODE_TTL_SECONDS} s) that other wallets of the same person submit with POST /identity/link-consent. The caller's bound wallet becomes the root of a new identity on the first call; a linked member cannot issue codes. The code is a secret shown once: an Idempotency-Key replay answers code null.`,
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_generate_link_code' },
  input: { body: z.strictObject({}).optional() },
  output: z.object({
    /** null on an Idempotency-Key replay: the code is shown once. */
    code: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/).nullable(),
    identityId: z.uuid(),
    rootWalletAddress: LowerEvmAddress,
    multiUse: z.literal(true),
    ttlSeconds: z.literal(LINK_CODE_TTL_SECONDS),
    issuedAt: IsoTimestamp,
    expiresAt: IsoTimestamp,
  }),
  outputName: 'IdentityLinkCodeResponse',
  successStatus: 201,
  errors: [...LINKING_ERRORS, 'NOT_IDENTITY_ROOT'],
  redactForReplay: (body) => ({ ...body, code: null }),
  handler: async (ctx) => linkCodeBody(await ctx.services.linking.generateLinkCode({ agentId: ctx.principal.agentId, recordEffect: ctx.recordEffect ?? undefined })),
  // A retry after a crash between the code's commit and its stored answer: the same code, null.
  replayEffect: async (ctx, ref) => linkCodeBody(await ctx.services.linking.recordedLinkCode({ ref })),
});

function linkCodeBody(issued: Omit<IssuedLinkCode, 'code'> & { code: string | null }) {
  return {
    code: issued.code,
    identityId: issued.identityId,
    rootWalletAddress: issued.rootWallet,
    multiUse: true as const,
    ttlSeconds: LINK_CODE_TTL_SECONDS,
    issuedAt: issued.issuedAt.toISOString(),
    expiresAt: issued.expiresAt.toISOString(),
  };
}

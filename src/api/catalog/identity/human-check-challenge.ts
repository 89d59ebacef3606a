// GET /human-check/challenge: what the anonymous path's humanCheckToken is made from.
import { z } from 'zod';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

export const humanCheckChallenge = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/human-check/challenge',
  category: 'identity',
  summary: 'Human-check challenge',
  description:
    'The challenge behind humanCheckToken for anonymous registration. kind pow (the embedded default): find a decimal solution such that SHA-256 of "{salt}:{solution}" starts with `bits` zero bits and send humanCheckToken "pow1:{salt}:{solution}"; the salt is single-use and expires at expiresAt. kind turnstile: render the Turnstile widget with siteKey and send the token it yields.',
  tier: null,
  rateClass: 'read',
  idempotent: false,
  mcp: { tool: 'svc_get_human_check_challenge' },
  output: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('pow'),
      algorithm: z.literal('SHA-256'),
      salt: z.string().regex(/^[0-9a-f]{32}$/),
      bits: z.number().int().min(1).max(32),
      expiresAt: IsoTimestamp,
      tokenFormat: z.string(),
    }),
    z.object({ kind: z.literal('turnstile'), siteKey: z.string().nullable() }),
  ]),
  outputName: 'HumanCheckChallenge',
  errors: [],
  handler: async (ctx) => ctx.services.humanCheck.challenge(),
});

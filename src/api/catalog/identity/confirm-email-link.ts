// POST /email-links/confirm: applies the link a registration or bind-email mailed (the page at
// /confirm-email posts it when the person presses Confirm). Holding the token is the proof.
import { z } from 'zod';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const OUTCOME = { 'verify-email': 'email-verified', 'bind-email': 'email-bound', claim: 'claimed' } as const;

export const confirmEmailLink = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/email-links/confirm',
  category: 'identity',
  summary: 'Confirm a mailed link',
  description:
    'Completes what a mailed link ({base}/confirm-email#token=…) stands for, given its token: verify-email activates the dormant key of an email-registered agent; bind-email binds the email (and clears an anonymous expiry); claim makes the owner accountable for the agent, which then gains its trading scopes and is labelled AI. Links are single-use and valid 24 hours; confirming a used link again answers the same outcome with firstUse false.',
  tier: null,
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: 'a link applies once; confirming it again answers the same outcome with firstUse false',
  mcp: { tool: 'svc_email_links_confirm' },
  input: { body: z.strictObject({ token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the token of a mailed link') }) },
  output: z.object({
    outcome: z.enum(['email-verified', 'email-bound', 'claimed']),
    agentId: z.uuid(),
    email: z.string(),
    /** 'AI' once an owner has claimed the agent. */
    label: z.enum(['AI']).nullable(),
    firstUse: z.boolean(),
    confirmedAt: IsoTimestamp,
  }),
  outputName: 'EmailLinkOutcome',
  errors: ['EMAIL_LINK_INVALID', 'EMAIL_LINK_EXPIRED', 'OWNER_AGENT_LIMIT'],
  handler: async (ctx, { body }) => {
    const outcome = await ctx.services.emailLinks.confirm(body.token);
    return {
      outcome: OUTCOME[outcome.purpose],
      agentId: outcome.agentId,
      email: outcome.email,
      label: outcome.purpose === 'claim' ? ('AI' as const) : null,
      firstUse: outcome.firstUse,
      confirmedAt: outcome.confirmedAt.toISOString(),
    };
  },
});

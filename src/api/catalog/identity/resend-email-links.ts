// POST /email-links/resend: fresh links for what still waits on an email (an expired magic link or claim link).
import { z } from 'zod';
import { chargeRegistration } from '../../../services/identity/registration-limits.ts';
import { defineCapability, Reply } from '../types.ts';

export const resendEmailLinks = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/email-links/resend',
  category: 'identity',
  summary: 'Resend mailed links',
  description:
    'Mails fresh links (valid 24 hours) to `email` for everything that still waits on it: the magic link of each email-registered agent not yet verified, and the claim link of each agent naming it as owner and not yet claimed (while the owner has room for it). The answer is the same whether or not anything was sent, so it reveals nothing about which emails are known. Counts against the email-address budget (3 per hour).',
  tier: null,
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_email_links_resend' },
  input: { body: z.strictObject({ email: z.email().max(254) }) },
  output: z.object({ status: z.literal('accepted'), detail: z.string() }),
  outputName: 'ResendEmailLinksResponse',
  successStatus: 200,
  errors: ['RATE_LIMITED'],
  handler: async (ctx, { body }) => {
    await chargeRegistration({ rateLimits: ctx.services.rateLimits, clock: ctx.clock }, 'email-address', body.email.toLowerCase());
    await ctx.services.emailLinks.resend(body.email, ctx.recordEffect ?? undefined);
    return accepted();
  },
  // A retry after a crash between the mail's queueing and the stored answer: the same answer, and no second mail.
  replayEffect: async () => accepted(),
});

// The same whatever was sent: it reveals nothing about which emails are known.
const accepted = () => new Reply({ status: 'accepted' as const, detail: 'if anything waits on this email, fresh links are on their way' });

// POST /agents/me/bind-email: mails a link; opening it binds the email (REST-only by the spec).
import { z } from 'zod';
import type { EmailBinding } from '../../../services/identity/binding.ts';
import { IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

export const bindEmail = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/agents/me/bind-email',
  category: 'identity',
  summary: 'Bind an email to the agent',
  description:
    'Mails a link (valid 24 hours) to `email`; confirming it (the page the link opens, or POST /email-links/confirm with its token) binds the email as verified, gives an anonymous agent the email scopes and clears its 24-hour key expiry. Until then nothing changes.',
  tier: 'read-only',
  rateClass: 'write',
  idempotent: false,
  mcp: { restOnly: 'bind-email is REST-only by the spec' },
  input: { body: z.strictObject({ email: z.email().max(254) }) },
  output: z.object({ status: z.literal('pending'), sentTo: z.string(), expiresAt: IsoTimestamp }),
  outputName: 'BindEmailResponse',
  errors: ['EMAIL_ALREADY_VERIFIED', 'FORBIDDEN', 'RATE_LIMITED'],
  handler: async (ctx, { body }) => pending(await ctx.services.binding.bindEmail(ctx.principal, body.email, ctx.recordEffect ?? undefined)),
  // A retry after a crash between the mail's queueing and the stored answer: the link already mailed, not another.
  replayEffect: async (ctx, ref) => pending(await ctx.services.binding.recordedEmailBinding(ref)),
});

const pending = (sent: EmailBinding) => ({ status: 'pending' as const, sentTo: sent.sentTo, expiresAt: sent.expiresAt.toISOString() });

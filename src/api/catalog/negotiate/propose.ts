// POST /negotiate/propose: records the terms; the protocol may counter under the documented rules.
import { z } from 'zod';
import { defineCapability, Reply } from '../types.ts';
import { NegotiationSchema, TermsBody, negotiationBody, termsFromBody } from './shapes.ts';

export const negotiatePropose = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/negotiate/propose',
  category: 'markets',
  summary: 'Propose market terms',
  description:
    'Records the terms as a negotiation (valid 24 h). When liquidity is below the floor, the creator fee outside 0..300 bps, or the close time out of bounds, the protocol counters: status countered, terms holds the counter, counter lists each change and its rule, and a negotiation.countered event goes to the agent. Otherwise status is proposed. Either way the agent settles it with POST /negotiate/{id}/accept or /reject. Terms that cannot be countered (live-market cap reached) are refused. A proposal with an externalId this creator already used answers that negotiation (existing: true) instead of a second one.',
  tier: 'propose',
  scopes: ['markets:propose'],
  rateClass: 'write',
  idempotent: false,
  mcp: { tool: 'svc_negotiate_propose' },
  input: { body: TermsBody },
  output: z.object({ negotiation: NegotiationSchema, existing: z.boolean() }),
  outputName: 'Negotiation',
  successStatus: 201,
  alsoOutputStatuses: [200],
  errors: ['INVALID_PAYLOAD', 'UNSUPPORTED_CHAIN', 'WALLET_NOT_BOUND', 'TERMS_REJECTED', 'LIVE_MARKET_CAP_REACHED'],
  handler: async (ctx, { body }) => {
    const { negotiation, existing } = await ctx.services.negotiations.propose(ctx.principal, termsFromBody(ctx, body), ctx.recordEffect ?? undefined);
    return new Reply({ negotiation: negotiationBody(negotiation), existing }, existing ? 200 : 201);
  },
  // A retry after a crash between the new negotiation's commit and the stored answer: that negotiation as it is now.
  replayEffect: async (ctx, id) => new Reply({ negotiation: negotiationBody(await ctx.services.negotiations.get(ctx.principal, id)), existing: false }, 201),
});

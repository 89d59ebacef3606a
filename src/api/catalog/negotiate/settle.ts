// POST /negotiate/:id/accept and /reject: settle a negotiation on its terms in force. REST-only by the spec.
import { z } from 'zod';
import { defineCapability } from '../types.ts';
import { NegotiationParams, NegotiationSchema, negotiationBody } from './shapes.ts';

const REST_ONLY = 'the spec keeps accepting and rejecting negotiations on REST (a deliberate human-auditable step)';

/** accept and reject differ only in the step and its words; both settle on the terms in force. */
function settleStep(step: 'accept' | 'reject', summary: string, description: string) {
  return defineCapability({
    surface: 'agent',
    method: 'POST',
    path: `/negotiate/:id/${step}`,
    category: 'markets',
    summary,
    description,
    tier: 'propose',
    scopes: ['markets:propose'],
    rateClass: 'write',
    idempotent: true,
    mcp: { restOnly: REST_ONLY },
    input: { params: NegotiationParams, body: z.strictObject({}).optional() },
    output: z.object({ negotiation: NegotiationSchema }),
    errors: ['NEGOTIATION_NOT_FOUND', 'NEGOTIATION_STATE', 'NEGOTIATION_EXPIRED'],
    handler: async (ctx, { params }) => ({ negotiation: negotiationBody(await ctx.services.negotiations[step](ctx.principal, params.id, ctx.recordEffect ?? undefined)) }),
    // A retry after a crash between the step's commit and the stored answer: the negotiation as it is now.
    replayEffect: async (ctx, id) => ({ negotiation: negotiationBody(await ctx.services.negotiations.get(ctx.principal, id)) }),
  });
}

export const negotiateAccept = settleStep(
  'accept',
  'Accept a negotiation',
  'Accepts the terms in force (the counter, if the protocol countered). Accepting an accepted negotiation answers it unchanged. Next: POST /negotiate/{id}/prepare-deploy.',
);

export const negotiateReject = settleStep(
  'reject',
  'Reject a negotiation',
  'Rejects the terms in force; the negotiation ends and its externalId is free again. Rejecting a rejected negotiation answers it unchanged.',
);

export const getNegotiation = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/negotiate/:id',
  category: 'markets',
  summary: 'Read a negotiation',
  description: "One of the agent's negotiations, with its status, terms and counter.",
  tier: 'propose',
  scopes: ['markets:propose'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_negotiate_by_id' },
  input: { params: NegotiationParams },
  invalidInputCode: 'INVALID_ID',
  output: z.object({ negotiation: NegotiationSchema }),
  errors: ['NEGOTIATION_NOT_FOUND'],
  handler: async (ctx, { params }) => ({ negotiation: negotiationBody(await ctx.services.negotiations.get(ctx.principal, params.id)) }),
});

/** The paths an agent settles negotiation `id` at, from the routes above (the negotiation.countered event names them). */
export const settleLinks = (id: string): { accept: string; reject: string } => ({
  accept: negotiateAccept.fullPath.replace(':id', encodeURIComponent(id)),
  reject: negotiateReject.fullPath.replace(':id', encodeURIComponent(id)),
});

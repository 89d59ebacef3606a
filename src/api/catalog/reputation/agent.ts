// The agent reputation reads (spec "Reputation and profile reads", GET /discover/reputation; docs/reputation.md): a
// counterparty's tier and gates by wallet, subject or agent, many wallets at once, leaderboards by role and period,
// and the agent's own audit trail. Black-box: rank, tier and gates, never a score.
import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { LEADERBOARD_ROLES } from '../../../core/reputation/standing.ts';
import { EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { found } from './found.ts';
import { EventsQuery, PageQuery, ReputationEventsResponse, ReputationLeaderboardResponse, ReputationSubjectPayloadWire, SubjectIdParam } from './shapes.ts';

export const getReputationWallet = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/reputation/wallet/:walletAddress',
  category: 'reputation',
  summary: "A counterparty wallet's tier and capability gates",
  description:
    "Black-box reputation of the subject the wallet belongs to (its identity when linked, else itself): tier (restricted, new, established, trusted), rank and the gates the tier sets (live-market cap, free fills per month, voting). A wallet nothing is known of is 404 NOT_FOUND.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_reputation_wallet_by_wallet_address' },
  input: { params: z.strictObject({ walletAddress: EvmAddress }) },
  output: ReputationSubjectPayloadWire,
  outputName: 'ReputationSubjectPayloadWire',
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handler: async (ctx, { params }) => found(await ctx.services.reputation.wallet(params.walletAddress), 'nothing is known of this wallet: it has no reputation'),
});

export const getReputationSubject = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/reputation/subjects/:subjectId',
  category: 'reputation',
  summary: "An opaque subject's tier and capability gates",
  description: 'Tier, rank and gates of a subject by its opaque subjectId (1..256 characters, from a reputation read). One not issued here, or of a subject that ended (its wallet joined an identity), is 404 NOT_FOUND.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_reputation_subjects_by_subject_id' },
  input: { params: z.strictObject({ subjectId: SubjectIdParam }) },
  output: ReputationSubjectPayloadWire,
  outputName: 'ReputationSubjectPayloadWire',
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handler: async (ctx, { params }) => found(await ctx.services.reputation.subject(params.subjectId), 'no reputation subject has this id'),
});

export const getReputationAgent = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/reputation/agents/:agentId',
  category: 'reputation',
  summary: "An agent's tier and capability gates",
  description: "Reputation of an agent profile: its bound wallet's subject, with agentId. agentId is 1..128 characters; an unknown agent, or one without a bound wallet (reputation belongs to wallets), is 404 NOT_FOUND.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_reputation_agents_by_agent_id' },
  input: { params: z.strictObject({ agentId: z.string().min(1).max(128) }) },
  output: ReputationSubjectPayloadWire.extend({ agentId: z.uuid() }),
  outputName: 'AgentReputation',
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handler: async (ctx, { params }) => found(await ctx.services.reputation.agent(params.agentId), 'no agent with a bound wallet has this id'),
});

export const getReputationLeaderboard = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/reputation/leaderboard',
  category: 'reputation',
  summary: 'Reputation leaderboard by role (rank and tier only)',
  description:
    'Subjects ranked in a role over a period: creator (markets resolved without a lost dispute, fewer slashed bonds), juror (ballots agreeing with binding verdicts), trader (volume), or overall (tier first); period 7d, 30d (UTC days, today included) or all. A role ranks only subjects with a record in it. Each entry is rank, subjectId, a wallet of the subject and its tier now; no score is published. limit 1..100 (50), offset 0..9007199254740991 (0).',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_reputation_leaderboard' },
  input: { query: z.strictObject({ role: z.enum(LEADERBOARD_ROLES).default('overall'), period: z.enum(['7d', '30d', 'all']).default('all'), ...PageQuery }) },
  output: ReputationLeaderboardResponse,
  outputName: 'ReputationLeaderboardResponse',
  errors: ['INVALID_QUERY'],
  handler: async (ctx, { query }) => ctx.services.reputation.leaderboard(query),
});

export const reputationBatch = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/reputation/batch',
  category: 'reputation',
  summary: 'Reputation of many wallets',
  description: 'Tier, rank and gates for each of 1..100 wallets (walletAddresses, no other fields), in the order asked; a wallet nothing is known of answers reputation null. Changes nothing.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  mcp: { tool: 'svc_reputation_batch' },
  input: { body: z.strictObject({ walletAddresses: z.array(EvmAddress).min(1).max(100) }) },
  output: z.object({ reputations: z.array(z.object({ walletAddress: EvmAddress, reputation: ReputationSubjectPayloadWire.nullable() })) }),
  outputName: 'ReputationBatchResponse',
  errors: ['INVALID_PAYLOAD'],
  handler: async (ctx, { body }) => ({ reputations: await ctx.services.reputation.batch(body.walletAddresses) }),
});

export const getReputationMeEvents = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/reputation/me/events',
  category: 'reputation',
  summary: "The agent's own reputation events",
  description:
    "The calling agent's audit trail (owner-gated: the key's bound wallet and the wallets linked with it), newest first: every input that moved a wallet's record and every tier change, each with a reason code. filter all_linked (default: every wallet linked under the subject now, and its tier changes) or this_wallet (the bound wallet's). limit 1..100 (50), offset 0..9007199254740991 (0). Without a bound wallet: 409 WALLET_NOT_BOUND.",
  tier: 'read-only',
  scopes: ['portfolio:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_reputation_me_events' },
  input: { query: EventsQuery },
  output: ReputationEventsResponse,
  outputName: 'ReputationEventsResponse',
  errors: ['INVALID_QUERY', 'WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx, { query }) => ctx.services.reputation.ownEvents(ctx.principal, query),
});

export const discoverReputation = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/reputation',
  category: 'discovery',
  summary: "The calling agent's reputation",
  description: "The calling agent's black-box reputation: its bound wallet's subject, tier, rank and the gates the tier sets (what GET /me reputation carries). Without a bound wallet: 409 WALLET_NOT_BOUND.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_reputation' },
  output: ReputationSubjectPayloadWire,
  outputName: 'ReputationSubjectPayloadWire',
  errors: ['WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx) => {
    const view = await ctx.services.reputation.own(ctx.principal);
    if (!view) throw problem('WALLET_NOT_BOUND', 'reputation belongs to a wallet: bind one (POST /agents/me/bind-wallet)');
    return view;
  },
});

export const AGENT_REPUTATION_CAPABILITIES = [
  getReputationWallet,
  getReputationSubject,
  getReputationAgent,
  getReputationLeaderboard,
  reputationBatch,
  getReputationMeEvents,
  discoverReputation,
] as const;

// The consumer reputation reads (spec: /reputation/*; docs/reputation.md): rank and tier, a subject's tier and gates,
// and the owner-gated audit trails, which take a wallet session (cookie svc_session or header Svc-Wallet-Session).
import { z } from 'zod';
import { EvmAddress } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { EventsQuery, PageQuery, ReputationEventsResponse, ReputationLeaderboardResponse, ReputationSubjectPayloadWire, SubjectIdParam } from './shapes.ts';
import { found } from './found.ts';

const OWNER_GATE =
  'Owner-gated: sign in with Sign-In with Ethereum (POST /api/auth/verify) and send the session as the svc_session cookie (cookieAuth) or the Svc-Wallet-Session header (developerAuthHeader), besides the API key. No usable session is 401 WALLET_AUTH_REQUIRED; a signed-in wallet that is not a wallet of the subject is 403 FORBIDDEN.';
const TRAIL =
  'Newest first: every input that moved a wallet\'s record (trades, markets created and how they ended, disputes, ballots against binding verdicts, human verification, identity links) and every tier change, each with a reason code. filter all_linked (default) covers every wallet linked under the subject now and the subject\'s tier changes; this_wallet only';

export const consumerReputationLeaderboard = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/reputation/leaderboard',
  category: 'reputation',
  summary: 'Reputation leaderboard (rank and tier only)',
  description: 'Subjects ranked overall, all time: tier first, then a hidden standing. Each entry is rank, subjectId, a wallet of the subject and tier; reputation is black-box, so no score is published. limit 1..100 (50), offset 0..9007199254740991 (0).',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { query: z.strictObject(PageQuery) },
  output: ReputationLeaderboardResponse,
  outputName: 'ReputationLeaderboardResponse',
  errors: ['INVALID_QUERY'],
  handler: async (ctx, { query }) => ctx.services.reputation.leaderboard({ role: 'overall', period: 'all', limit: query.limit, offset: query.offset }),
});

export const consumerReputationSubject = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/reputation/subjects/:subjectId',
  category: 'reputation',
  summary: "A subject's tier and capability gates",
  description: 'The tier, rank and capability gates (live-market cap, free fills, voting) of a subject: an identity of linked wallets or a wallet linked to nothing. subjectId is opaque (1..256 characters); one not issued here, or of a subject that ended (its wallet joined an identity), is 404 NOT_FOUND.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ subjectId: SubjectIdParam }) },
  output: ReputationSubjectPayloadWire,
  outputName: 'ReputationSubjectPayloadWire',
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handler: async (ctx, { params }) => found(await ctx.services.reputation.subject(params.subjectId), 'no reputation subject has this id'),
});

export const consumerReputationWallet = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/reputation/:walletAddress',
  category: 'reputation',
  summary: "A wallet's tier and capability gates",
  description: "The tier, rank and capability gates of the subject the wallet belongs to (its identity when linked, else itself), with the wallet as alias. A wallet nothing is known of (no trade, market, ballot, bound agent, identity or attestation) is 404 NOT_FOUND.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ walletAddress: EvmAddress }) },
  output: ReputationSubjectPayloadWire,
  outputName: 'ReputationSubjectPayloadWire',
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handler: async (ctx, { params }) => found(await ctx.services.reputation.wallet(params.walletAddress), 'nothing is known of this wallet: it has no reputation'),
});

export const consumerReputationSubjectEvents = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/reputation/subjects/:subjectId/events',
  category: 'reputation',
  summary: "A subject's reputation events (owner only)",
  description: `${TRAIL} the signed-in wallet's. ${OWNER_GATE} limit 1..100 (50), offset 0..9007199254740991 (0).`,
  tier: 'read-only',
  scopes: ['markets:read'],
  walletAuth: 'required',
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ subjectId: SubjectIdParam }), query: EventsQuery },
  output: ReputationEventsResponse,
  outputName: 'ReputationEventsResponse',
  errors: ['INVALID_ID', 'INVALID_QUERY', 'FORBIDDEN', 'NOT_FOUND'],
  handler: async (ctx, { params, query }) => ctx.services.reputation.events({ kind: 'subject', subjectId: params.subjectId, caller: ctx.walletSession!.walletAddress }, query),
});

export const consumerReputationWalletEvents = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/reputation/:walletAddress/events',
  category: 'reputation',
  summary: "A wallet's reputation events (owner only)",
  description: `${TRAIL} this wallet's. ${OWNER_GATE} The wallet itself or any wallet linked with it is the owner. limit 1..100 (50), offset 0..9007199254740991 (0).`,
  tier: 'read-only',
  scopes: ['markets:read'],
  walletAuth: 'required',
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ walletAddress: EvmAddress }), query: EventsQuery },
  output: ReputationEventsResponse,
  outputName: 'ReputationEventsResponse',
  errors: ['INVALID_ID', 'INVALID_QUERY', 'FORBIDDEN', 'NOT_FOUND'],
  handler: async (ctx, { params, query }) => ctx.services.reputation.events({ kind: 'wallet', wallet: params.walletAddress, caller: ctx.walletSession!.walletAddress }, query),
});

export const CONSUMER_REPUTATION_CAPABILITIES = [
  consumerReputationLeaderboard,
  consumerReputationSubject,
  consumerReputationWallet,
  consumerReputationSubjectEvents,
  consumerReputationWalletEvents,
] as const;

// Human votes on a market's resolution (docs/resolution.md "Votes"): cast a ballot into an open round, and read a
// session with every ballot and its signature, so anyone can recount the verdict the resolver recorded.
import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { ChainId, EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { sessionWalletOf } from '../../pipeline/session-principal.ts';

const SessionParams = z.strictObject({
  sessionId: z
    .string()
    .regex(/^[1-9][0-9]{0,15}:0x[0-9a-f]{40}:[12]$/, 'must be <chainId>:<market address, lowercase>:<round 1 or 2>')
    .describe('the handle market.voteOpened announced: <chainId>:<market>:<round>'),
});
const Signature = z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature (0x + 130 hex digits)');

const BallotSchema = z.object({
  wallet: EvmAddress,
  identityKey: z.string().describe('the identity the ballot counts for: identity:<id> (linked wallets share one vote) or wallet:<address>'),
  outcome: z.number().int().min(0).describe('1-indexed outcome; 0 votes Invalid/Void'),
  signature: z.string(),
  castAt: IsoTimestamp,
});

export const castBallot = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/resolution/votes/:sessionId/ballots',
  category: 'resolution',
  summary: 'Cast a human ballot in an open vote round',
  description:
    "Casts the ballot of `walletAddress`: its EIP-712 signature of Ballot(address market,uint8 round,uint8 outcome) under the resolver's domain (name MarketResolver, version 1, the chain id, the resolver address — GET the session for them). The wallet must belong to a verified human identity (humanIdVerified; linked wallets share it) and the round must be open (before voteDeadline, by chain time). A wallet whose reputation tier is restricted may not vote: 403 REPUTATION_RESTRICTED (docs/reputation.md, Gates). One ballot counts per identity: a second one, from the same or a linked wallet, answers 409 ALREADY_VOTED. The ballot is published with its signature. A wallet session (the web app) may cast only its own wallet's ballot: another walletAddress is 403 FORBIDDEN.",
  tier: 'execute',
  scopes: ['resolution:execute'],
  rateClass: 'write',
  idempotent: false,
  // The web app's vote: a signed-in wallet casts its own ballot (the guard below), never another wallet's.
  walletSession: 'principal',
  mcp: { tool: 'svc_resolution_votes_ballots' },
  // Over MCP the voter's wallet proves itself for this session as well (spec: vote actions take wallet-proof elevation).
  mcpElevation: { scope: 'resolution:execute', resourceId: ({ params }) => params.sessionId, resourceIdSource: 'the vote session id (argument sessionId), as sent' },
  input: {
    params: SessionParams,
    body: z.strictObject({ walletAddress: EvmAddress, outcome: z.number().int().min(0).max(255), signature: Signature }),
  },
  output: BallotSchema.extend({ id: z.uuid(), sessionId: z.string() }),
  outputName: 'VoteBallot',
  successStatus: 201,
  errors: ['VOTE_SESSION_NOT_FOUND', 'VOTE_CLOSED', 'BALLOT_SIGNATURE_INVALID', 'HUMAN_VERIFICATION_REQUIRED', 'REPUTATION_RESTRICTED', 'ALREADY_VOTED', 'FORBIDDEN', 'WALLET_PROOF_INVALID', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, body }) => {
    if (ctx.provenWallet && ctx.provenWallet.toLowerCase() !== body.walletAddress.toLowerCase()) {
      throw problem('FORBIDDEN', 'the proven wallet is not walletAddress: prove the voting wallet');
    }
    const signedIn = sessionWalletOf(ctx.principal);
    if (signedIn !== null && signedIn !== body.walletAddress.toLowerCase()) {
      throw problem('FORBIDDEN', 'a wallet session casts its own wallet\'s ballot only: walletAddress must be the signed-in wallet');
    }
    return ctx.services.votes.cast({ sessionId: params.sessionId, ...body }, ctx.recordEffect ?? undefined);
  },
  replayEffect: async (ctx, ballotId) => ctx.services.votes.ballot(ballotId),
});

export const getVoteSession = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/resolution/votes/:sessionId',
  category: 'resolution',
  summary: 'A vote session with every ballot',
  description:
    "The round's deadline and status (open, counting: past the deadline with no verdict on chain yet, closed, replaced by an integrity restart), the quorum, the verdict the resolver recorded (kind, ballotRoot, ballotCount) and every ballot with its signature. Recount: verify each signature, keep one ballot per identity, and recompute the verdict and the root (docs/resolution.md \"Votes\"; svc resolution verify does it).",
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_resolution_votes_by_session_id' },
  input: { params: SessionParams },
  output: z.object({
    sessionId: z.string(),
    chainId: ChainId,
    market: EvmAddress,
    resolver: EvmAddress,
    round: z.number().int().min(1).max(2),
    voteDeadline: IsoTimestamp.nullable(),
    status: z.enum(['open', 'counting', 'closed', 'replaced']),
    quorum: z.number().int().positive(),
    verdict: z.object({ kind: z.enum(['binding', 'no_quorum', 'deadlock']), ballotRoot: z.string(), ballotCount: z.number().int().nonnegative() }).nullable(),
    ballots: z.array(BallotSchema),
  }),
  outputName: 'VoteSession',
  errors: ['VOTE_SESSION_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params }) => ctx.services.votes.session(params.sessionId),
});

export const VOTE_CAPABILITIES = [castBallot, getVoteSession];

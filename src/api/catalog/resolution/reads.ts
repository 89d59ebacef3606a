// Reads of a market's resolution (docs/resolution-reads.md): one market's resolution with the actions open to the
// caller, the caller's resolution queue, and the resolutionSource catalog.
import { z } from 'zod';
import type { ResolutionActionName } from '../../../services/resolution/reads.ts';
import { MarketPathParams } from '../../../wire/market-reads.ts';
import { MarketStateSchema } from '../../../wire/markets.ts';
import { ChainId, ChainIdQuery, EvmAddress, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { toolNameOf } from '../../mcp/tool-names.ts';
import { requireMarketAddress } from '../markets/read-context.ts';
import { TermsBody } from '../negotiate/shapes.ts';
import { SURFACE_PREFIX, defineCapability } from '../types.ts';

const Phase = z.enum(['proposed', 'disputed', 'voting', 'council', 'resolved']);
const ActionName = z.enum(['propose', 'challenge', 'finalize', 'vote', 'council_sign']);

/** Where each action is taken (its capability, built in actions.ts and votes.ts), by template path. */
const ACTION_ROUTES: Record<ResolutionActionName, { method: 'POST'; path: string }> = {
  propose: { method: 'POST', path: '/markets/:address/resolution/propose' },
  challenge: { method: 'POST', path: '/markets/:address/resolution/challenge/prepare' },
  finalize: { method: 'POST', path: '/markets/:address/resolution/finalize' },
  vote: { method: 'POST', path: '/resolution/votes/:sessionId/ballots' },
  council_sign: { method: 'POST', path: '/markets/:address/resolution/council-signatures' },
};

/** The action's REST path with this market (and its vote session, once there is one) filled in, and its MCP tool. */
function routeOf(action: ResolutionActionName, market: string, sessionId: string | null) {
  const { method, path } = ACTION_ROUTES[action];
  const filled = path.replace(':address', market).replace(':sessionId', sessionId ?? ':sessionId');
  return { method, path: `${SURFACE_PREFIX.agent}${filled}`, tool: toolNameOf(method, path) };
}

export const getMarketResolution = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/markets/:address/resolution',
  category: 'resolution',
  summary: "A market's resolution and the actions open to the caller",
  description:
    "Where the market's resolution stands, as the resolver's logs tell it: the phase (null before anything on chain), the deadlines, the proposal, the challenge (bond in PM base units), the current vote session, the council (members and threshold read from the resolver; signatures kept this round; phase opened, decided: an outcome has the threshold but the decision is not on chain yet, executed), the final outcome. actions lists propose, challenge, finalize, vote and council_sign, each available or not with the reason, for the calling key's wallets (its agent's bound wallet and the wallets linked under its identity); without a key, what anyone may do. Deadlines are compared with chainTime, the chain's latest block, as the resolver compares them (docs/resolution-reads.md).",
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_markets_resolution' },
  input: { params: MarketPathParams, query: z.strictObject({ chainId: ChainIdQuery.optional().describe("the market's chain; the served chain when omitted") }) },
  output: z.object({
    market: EvmAddress,
    chainId: ChainId,
    state: MarketStateSchema,
    resolver: EvmAddress,
    chainTime: IsoTimestamp.describe("the chain's time (latest block) the deadlines and actions were judged by"),
    phase: Phase.nullable().describe('null until the resolver holds a record of the market'),
    deadlines: z.object({
      resolveFrom: IsoTimestamp,
      resolveBy: IsoTimestamp,
      closeTime: IsoTimestamp,
      challengeDeadline: IsoTimestamp.nullable(),
      voteDeadline: IsoTimestamp.nullable(),
    }),
    proposal: z
      .object({ outcome: z.number().int().describe('1-indexed; 0 is void'), isVoid: z.boolean(), proposer: EvmAddress, proposedAt: IsoTimestamp.nullable(), challengeDeadline: IsoTimestamp })
      .nullable(),
    challenge: z.object({ challenger: EvmAddress, counterOutcome: z.number().int(), bond: WeiString.describe('PM base units') }).nullable(),
    session: z
      .object({
        sessionId: z.string(),
        round: z.number().int().min(1).max(2),
        voteDeadline: IsoTimestamp.nullable(),
        status: z.enum(['open', 'counting', 'closed', 'replaced']),
        ballotCount: z.number().int().nonnegative(),
        quorum: z.number().int().positive(),
      })
      .nullable()
      .describe('the current round (GET /resolution/votes/{sessionId} for its ballots); null before any vote'),
    council: z.object({
      phase: z.enum(['opened', 'decided', 'executed']).nullable(),
      threshold: z.number().int().nonnegative(),
      members: z.array(EvmAddress),
      signatures: z.array(z.object({ signer: EvmAddress, outcome: z.number().int(), signedAt: IsoTimestamp })),
    }),
    finalOutcome: z.number().int().nullable(),
    creatorSlashed: z.boolean().nullable(),
    actions: z.array(
      z.object({
        action: ActionName,
        available: z.boolean(),
        reason: z.string().nullable().describe('why not, when not available'),
        method: z.literal('POST'),
        path: z.string().describe('the REST path with this market (and vote session) filled in'),
        tool: z.string().describe('the MCP tool'),
      }),
    ),
  }),
  outputName: 'MarketResolutionState',
  errors: ['INVALID_ID', 'INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, query }) => {
    const address = requireMarketAddress(params.address, 'params.address');
    ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    const s = await ctx.services.resolutionReads.state(address, ctx.principal);
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    return {
      market: s.market,
      chainId: s.chainId,
      state: s.state,
      resolver: s.resolver,
      chainTime: s.chainTime.toISOString(),
      phase: s.phase,
      deadlines: {
        resolveFrom: s.deadlines.resolveFrom.toISOString(),
        resolveBy: s.deadlines.resolveBy.toISOString(),
        closeTime: s.deadlines.closeTime.toISOString(),
        challengeDeadline: iso(s.deadlines.challengeDeadline),
        voteDeadline: iso(s.deadlines.voteDeadline),
      },
      proposal: s.proposal && { ...s.proposal, proposedAt: iso(s.proposal.proposedAt), challengeDeadline: s.proposal.challengeDeadline.toISOString() },
      challenge: s.challenge && { ...s.challenge, bond: s.challenge.bond.toString() },
      session: s.session,
      council: { ...s.council, signatures: s.council.signatures.map((g) => ({ ...g, signedAt: g.signedAt.toISOString() })) },
      finalOutcome: s.finalOutcome,
      creatorSlashed: s.creatorSlashed,
      actions: s.actions.map((a) => ({ ...a, ...routeOf(a.action, s.market, s.session?.sessionId ?? null) })),
    };
  },
});

export const getResolutionQueue = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/resolution/queue',
  category: 'resolution',
  summary: 'Markets awaiting your resolution action',
  description:
    "What the calling key's wallets (its agent's bound wallet and the wallets linked under its identity) may do now, most pressing first: propose on the markets they created that have no proposal yet, until resolveBy (dueBy); vote in open rounds, while the identity is a verified human that has not voted (dueBy: the round's deadline; sessionId); council_sign on markets in council review where one of the wallets is a council member that has not signed this round. includeAnyone=true adds the proposals anyone may finalize now. Judged by chain time, as GET /markets/{address}/resolution judges its actions (docs/resolution-reads.md).",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_resolution_queue' },
  input: {
    query: z.strictObject({
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(200).default(100),
      includeAnyone: z.enum(['true', 'false']).default('false').describe('also list the proposals anyone may finalize now'),
    }),
  },
  output: z.object({
    chainTime: IsoTimestamp,
    items: z.array(
      z.object({
        chainId: ChainId,
        marketAddress: EvmAddress,
        question: z.string(),
        action: z.enum(['propose', 'vote', 'council_sign', 'finalize']),
        dueBy: IsoTimestamp.nullable(),
        sessionId: z.string().nullable().describe('vote: the session to cast into'),
      }),
    ),
  }),
  outputName: 'ResolutionQueue',
  errors: ['INVALID_QUERY', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { query }) => {
    const q = await ctx.services.resolutionReads.queue({ principal: ctx.principal, limit: query.limit, includeAnyone: query.includeAnyone === 'true' });
    return { chainTime: q.chainTime.toISOString(), items: q.items.map((i) => ({ ...i, dueBy: i.dueBy?.toISOString() ?? null })) };
  },
});

export const getResolutionSources = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/resolution/sources',
  category: 'resolution',
  summary: 'The resolutionSource catalog',
  description:
    "Where listed markets of the served chain say their outcome will be read. accepted states what a market's resolutionSource may be (what POST /negotiate/propose enforces); sources groups the markets by source — the host of a value that starts with https:// (kind url), or 'text' for everything else — with how many markets name it, how many of those are open, and the latest as an example; the 100 largest groups.",
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_resolution_sources' },
  output: z.object({
    chainId: ChainId,
    accepted: z.object({ minLength: z.number().int(), maxLength: z.number().int(), description: z.string() }),
    sources: z.array(
      z.object({
        source: z.string().describe("an https URL's lowercase host, or 'text'"),
        kind: z.enum(['url', 'text']),
        marketCount: z.number().int().positive(),
        openMarketCount: z.number().int().nonnegative(),
        exampleMarket: z.object({ address: EvmAddress, question: z.string(), resolutionSource: z.string() }),
      }),
    ),
  }),
  outputName: 'ResolutionSources',
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx) => {
    const { chainId, sources } = await ctx.services.resolutionReads.sources();
    return { chainId, accepted: ACCEPTED, sources };
  },
});

/** What the create loop's schema enforces of resolutionSource (read from it, so the two cannot drift), and how it is shown. */
const SOURCE_SCHEMA = TermsBody.shape.resolutionSource;
const ACCEPTED = {
  minLength: SOURCE_SCHEMA.minLength ?? 0,
  maxLength: SOURCE_SCHEMA.maxLength ?? 0,
  description: `Free text of ${SOURCE_SCHEMA.minLength} to ${SOURCE_SCHEMA.maxLength} characters after trimming (POST /negotiate/propose): a URL or a description of where the outcome will be read. Nothing else is checked, and svc never fetches it. A value that starts with https:// is shown as a link and catalogued under its host (kind url); anything else, an http:// URL included, is catalogued as text.`,
};

export const READ_CAPABILITIES = [getMarketResolution, getResolutionQueue, getResolutionSources];

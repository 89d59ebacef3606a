/**
 * A market's resolution as one read (GET /markets/{address}/resolution): the projected record (proposal, challenge,
 * vote session, council), its deadlines, and which resolution actions are open to the caller now, by chain time
 * (docs/resolution-reads.md).
 */
import { problem } from '../../core/error-codes.ts';
import { resolutionRecordFromJson, type ResolutionPhase, type ResolutionRecord } from '../../core/resolution/record.ts';
import { voteSessionId } from '../../core/resolution/votes.ts';
import type { MarketStateName } from '../../db/schema.ts';
import { chainNow } from './deps.ts';
import { councilOf, resolutionCallerOf, type Council, type ResolutionCaller, type ResolutionReadDeps } from './read-context.ts';
import type { Principal } from '../../core/principal.ts';
import type { VoteSessionView } from './vote-session.ts';

export const RESOLUTION_ACTIONS = ['propose', 'challenge', 'finalize', 'vote', 'council_sign'] as const;
export type ResolutionActionName = (typeof RESOLUTION_ACTIONS)[number];

export interface ActionAvailability {
  action: ResolutionActionName;
  available: boolean;
  /** Why not, when not available; null when available. */
  reason: string | null;
}

export type CouncilPhase = 'opened' | 'decided' | 'executed';

export interface MarketResolutionState {
  market: string;
  chainId: number;
  state: MarketStateName;
  resolver: string;
  /** The chain's time (latest block) every deadline here was compared with. */
  chainTime: Date;
  /** null until the resolver holds a record of the market. */
  phase: ResolutionPhase | null;
  deadlines: { resolveFrom: Date; resolveBy: Date; closeTime: Date; challengeDeadline: Date | null; voteDeadline: Date | null };
  proposal: { outcome: number; isVoid: boolean; proposer: string; proposedAt: Date | null; challengeDeadline: Date } | null;
  /** bond: PM base units. */
  challenge: { challenger: string; counterOutcome: number; bond: bigint } | null;
  session: { sessionId: string; round: number; voteDeadline: string | null; status: VoteSessionView['status']; ballotCount: number; quorum: number } | null;
  council: { phase: CouncilPhase | null; threshold: number; members: string[]; signatures: { signer: string; outcome: number; signedAt: Date }[] };
  finalOutcome: number | null;
  creatorSlashed: boolean | null;
  actions: ActionAvailability[];
}

export type MarketResolutionStateError = 'MARKET_NOT_FOUND' | 'SERVICE_UNAVAILABLE';

export async function marketResolutionState(deps: ResolutionReadDeps, address: string, principal: Principal | null): Promise<MarketResolutionState> {
  const market = address.toLowerCase();
  const row = await deps.db
    .selectFrom('markets')
    .select(['state', 'creator', 'created_at', 'resolve_by', 'close_time'])
    .where('chain_id', '=', deps.chainId)
    .where('address', '=', market)
    .executeTakeFirst();
  if (!row) throw problem('MARKET_NOT_FOUND', `no market ${market} on chain ${deps.chainId}`);
  const stored = await deps.db.selectFrom('market_resolutions').select('record').where('chain_id', '=', deps.chainId).where('market', '=', market).executeTakeFirst();
  const record = stored ? resolutionRecordFromJson(stored.record) : null;
  const [now, council, caller] = await Promise.all([deps.guard(() => chainNow(deps)), councilOf(deps), resolutionCallerOf(deps, principal)]);

  const round = record?.voteRound ?? 0;
  const session = record && round > 0 && record.voteDeadline ? await deps.votes.session(voteSessionId(deps.chainId, market, round)) : null;
  const reachedCouncil = record !== null && (record.phase === 'council' || record.route === 'council');
  const signatures = reachedCouncil
    ? await deps.db
        .selectFrom('council_signatures')
        .select(['signer', 'outcome', 'signed_at'])
        .where('chain_id', '=', deps.chainId)
        .where('market', '=', market)
        .where('round', '=', round)
        .orderBy('signed_at')
        .orderBy('signer')
        .execute()
    : [];
  const hasVoted =
    record?.phase === 'voting' && caller.identityKey !== null
      ? (await deps.db
          .selectFrom('vote_ballots')
          .select('id')
          .where('chain_id', '=', deps.chainId)
          .where('market', '=', market)
          .where('round', '=', round)
          .where('identity_key', '=', caller.identityKey)
          .executeTakeFirst()) !== undefined
      : false;

  return {
    market,
    chainId: deps.chainId,
    state: row.state,
    resolver: deps.resolver.toLowerCase(),
    chainTime: now,
    phase: record?.phase ?? null,
    deadlines: { resolveFrom: row.created_at, resolveBy: row.resolve_by, closeTime: row.close_time, challengeDeadline: record?.challengeDeadline ?? null, voteDeadline: record?.voteDeadline ?? null },
    proposal:
      record && record.proposedOutcome !== null && record.proposer !== null && record.challengeDeadline !== null
        ? { outcome: record.proposedOutcome, isVoid: record.proposedOutcome === 0, proposer: record.proposer, proposedAt: record.proposedAt, challengeDeadline: record.challengeDeadline }
        : null,
    challenge: record?.challenger ? { challenger: record.challenger, counterOutcome: record.counterOutcome ?? 0, bond: record.challengeBond ?? 0n } : null,
    session: session ? { sessionId: session.sessionId, round: session.round, voteDeadline: session.voteDeadline, status: session.status, ballotCount: session.ballots.length, quorum: session.quorum } : null,
    council: {
      phase: councilPhaseOf(record, council, signatures),
      threshold: council.threshold,
      members: council.members,
      signatures: signatures.map((s) => ({ signer: s.signer, outcome: s.outcome, signedAt: s.signed_at })),
    },
    finalOutcome: record?.finalOutcome ?? null,
    creatorSlashed: record?.creatorSlashed ?? null,
    actions: resolutionActionsFor({
      now,
      marketState: row.state,
      creator: row.creator,
      resolveFrom: row.created_at,
      resolveBy: row.resolve_by,
      record,
      caller,
      hasVoted,
      council,
      signers: signatures.map((s) => s.signer),
    }),
  };
}

/**
 * opened: in council review, no outcome has the threshold of current members' signatures; decided: one has, and the
 * decision is not on chain yet; executed: the council's decision resolved the market; null: never in council review.
 */
export function councilPhaseOf(record: ResolutionRecord | null, council: Council, signatures: readonly { signer: string; outcome: number }[]): CouncilPhase | null {
  if (record?.route === 'council') return 'executed';
  if (record?.phase !== 'council') return null;
  const perOutcome = new Map<number, number>();
  for (const s of signatures) if (council.members.includes(s.signer)) perOutcome.set(s.outcome, (perOutcome.get(s.outcome) ?? 0) + 1);
  return council.threshold > 0 && [...perOutcome.values()].some((n) => n >= council.threshold) ? 'decided' : 'opened';
}

export interface ActionFacts {
  /** Chain time. */
  now: Date;
  marketState: MarketStateName;
  /** The market's creator, lowercase. */
  creator: string;
  resolveFrom: Date;
  resolveBy: Date;
  record: ResolutionRecord | null;
  caller: ResolutionCaller;
  /** The caller's identity has a ballot in the current round. */
  hasVoted: boolean;
  council: Council;
  /** Who signed a council decision in the current round, lowercase. */
  signers: readonly string[];
}

export const SIGN_IN_REASON = 'sign in with a key whose agent has a bound wallet';
const NO_WALLET_REASON = "this key's agent has no bound wallet (POST /agents/me/bind-wallet)";
const iso = (d: Date) => d.toISOString();

/**
 * Which resolution actions the caller may take now, and why not (docs/resolution-reads.md "Actions"). finalize and
 * challenge depend on the market alone (anyone may send them); propose, vote and council_sign on the caller's wallets.
 * Pure: the state read gathers the facts.
 */
export function resolutionActionsFor(f: ActionFacts): ActionAvailability[] {
  const { record, caller, now } = f;
  const phase = record?.phase ?? null;
  const inPhase = (wanted: ResolutionPhase, what: string): string | null => (phase === wanted ? null : phase === null ? `nothing is proposed yet: ${what}` : `the resolution is ${phase}: ${what}`);
  const walletGate = (): string | null => (!caller.signedIn ? SIGN_IN_REASON : caller.wallet === null ? NO_WALLET_REASON : null);

  const propose = (): string | null =>
    walletGate() ??
    (record !== null
      ? `the resolution is already under way (${record.phase})`
      : f.marketState === 'void'
        ? 'the market is void'
        : f.marketState !== 'open' && f.marketState !== 'closed'
          ? `the market is ${f.marketState}`
          : now < f.resolveFrom
            ? `proposals open at resolveFrom ${iso(f.resolveFrom)}`
            : now > f.resolveBy
              ? `resolveBy ${iso(f.resolveBy)} passed without a proposal: the human vote decides (absent creator)`
              : caller.wallets.includes(f.creator)
                ? null
                : `only the market's creator (${f.creator}) proposes`);

  const challenge = (): string | null =>
    inPhase('proposed', 'a proposal can be challenged only while it is proposed') ??
    (now >= record!.challengeDeadline! ? `the challenge window closed at ${iso(record!.challengeDeadline!)}` : null);

  const finalize = (): string | null =>
    inPhase('proposed', 'only an unchallenged proposal is finalized') ?? (now < record!.challengeDeadline! ? `the challenge window is open until ${iso(record!.challengeDeadline!)}` : null);

  const vote = (): string | null =>
    walletGate() ??
    inPhase('voting', 'ballots are cast while a vote round is open') ??
    (now >= record!.voteDeadline!
      ? `round ${record!.voteRound} closed at ${iso(record!.voteDeadline!)}; its verdict is being recorded`
      : !caller.verified
        ? 'your identity is not a verified human (docs/identity.md "Verified humans")'
        : f.hasVoted
          ? `your identity already voted in round ${record!.voteRound}`
          : null);

  const councilSign = (): string | null => {
    const gate = walletGate() ?? inPhase('council', 'the council signs once a vote ends without a binding verdict');
    if (gate) return gate;
    const mine = caller.wallets.filter((w) => f.council.members.includes(w));
    if (mine.length === 0) return 'none of your wallets is a member of the council';
    return mine.some((w) => !f.signers.includes(w)) ? null : `your council wallets already signed in round ${record!.voteRound}`;
  };

  const reasons: Record<ResolutionActionName, () => string | null> = { propose, challenge, finalize, vote, council_sign: councilSign };
  return RESOLUTION_ACTIONS.map((action) => {
    const reason = reasons[action]();
    return { action, available: reason === null, reason };
  });
}

/**
 * Casts a ballot (POST /resolution/votes/{sessionId}/ballots): the wallet's EIP-712 signature over (market, round,
 * outcome) under the resolver's domain, from a wallet of a verified human identity, before the round's deadline (the
 * chain's time), one per identity: a linked wallet of an identity that voted is refused (docs/resolution.md "Votes").
 */
import { randomUUID } from 'node:crypto';
import { recoverTypedDataAddress, type Address, type Hex } from 'viem';
import { problem } from '../../core/error-codes.ts';
import { ballotTypedData, voteSessionId } from '../../core/resolution/votes.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { chainNow, type VoteDeps } from './deps.ts';
import { lockResolution } from './verdict.ts';
import { sessionRecord, type BallotView } from './vote-session.ts';

export interface CastBallotInput {
  sessionId: string;
  walletAddress: string;
  outcome: number;
  signature: string;
}

export type CastBallotError = 'VOTE_SESSION_NOT_FOUND' | 'VOTE_CLOSED' | 'INVALID_PAYLOAD' | 'BALLOT_SIGNATURE_INVALID' | 'HUMAN_VERIFICATION_REQUIRED' | 'REPUTATION_RESTRICTED' | 'ALREADY_VOTED';

export async function castBallot(deps: VoteDeps, input: CastBallotInput, recordEffect?: EffectRecorder): Promise<BallotView & { id: string; sessionId: string }> {
  const { market, round, record } = await sessionRecord(deps, input.sessionId);
  if (record.phase !== 'voting' || record.voteRound !== round || record.voteDeadline!.getTime() <= (await chainNow(deps)).getTime()) {
    throw problem('VOTE_CLOSED', `vote session ${input.sessionId} takes no ballots now (${record.voteRound !== round ? 'replaced by round ' + record.voteRound : record.phase === 'voting' ? 'its deadline passed' : record.phase})`);
  }
  const outcomeCount = await outcomeCountOf(deps, market);
  if (input.outcome > outcomeCount) throw problem('INVALID_PAYLOAD', `outcome must be 0 (void) or 1..${outcomeCount}`);
  const wallet = input.walletAddress.toLowerCase();
  const typed = ballotTypedData(deps.chainId, deps.resolver, { market: market as Address, round, outcome: input.outcome });
  const signer = await recoverTypedDataAddress({ ...typed, signature: input.signature as Hex }).catch(() => null);
  if (signer?.toLowerCase() !== wallet) {
    throw problem('BALLOT_SIGNATURE_INVALID', 'signature does not recover to walletAddress over Ballot(market, round, outcome) under the resolver domain (GET the session for the values)');
  }
  const voter = await deps.humans.voterOf(wallet);
  if (!voter.attestation) throw problem('HUMAN_VERIFICATION_REQUIRED', `wallet ${wallet} is not a verified human, nor linked to one (docs/identity.md "Verified humans")`);
  const gate = await deps.voteGate?.(wallet);
  if (gate && !gate.mayVote) {
    throw problem('REPUTATION_RESTRICTED', `wallet ${wallet} is of reputation tier ${gate.tier}, which may not vote (GET /reputation/wallet/${wallet}; docs/reputation.md "Gates")`);
  }
  const castAt = deps.clock.now();
  const id = randomUUID();
  const inserted = await deps.db.transaction().execute(async (trx) => {
    // The keeper's count of the round takes the same lock: a ballot is counted, or refused once the count is kept.
    await lockResolution(trx, deps.chainId, market);
    const counted = await trx.selectFrom('vote_tallies').select('round').where('chain_id', '=', deps.chainId).where('market', '=', market).where('round', '=', round).executeTakeFirst();
    if (counted) throw problem('VOTE_CLOSED', `vote session ${input.sessionId} was counted: it takes no more ballots`);
    // A wallet of this identity that voted before it was linked here voted under its own key: it counts as this
    // identity's vote all the same.
    const linkedVote = await trx.selectFrom('vote_ballots').select('wallet_address').where('chain_id', '=', deps.chainId).where('market', '=', market).where('round', '=', round).where('wallet_address', 'in', voter.wallets.map((w) => w.toLowerCase())).executeTakeFirst();
    if (linkedVote) return undefined;
    const row = await trx
      .insertInto('vote_ballots')
      .values({ id, chain_id: deps.chainId, market, round, identity_key: voter.identityKey, wallet_address: wallet, outcome: input.outcome, signature: input.signature.toLowerCase(), cast_at: castAt })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    if (row) await recordEffect?.(trx, id);
    return row;
  });
  if (!inserted) throw problem('ALREADY_VOTED', `identity ${voter.identityKey} already voted in session ${input.sessionId} (linked wallets share one vote)`);
  return { id, sessionId: input.sessionId, wallet, identityKey: voter.identityKey, outcome: input.outcome, signature: input.signature.toLowerCase(), castAt: castAt.toISOString() };
}

/** A ballot already cast (the replay of a keyed cast). */
export async function ballotById(deps: VoteDeps, id: string): Promise<BallotView & { id: string; sessionId: string }> {
  const b = await deps.db.selectFrom('vote_ballots').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return { id: b.id, sessionId: voteSessionId(b.chain_id, b.market, b.round), wallet: b.wallet_address, identityKey: b.identity_key, outcome: b.outcome, signature: b.signature, castAt: b.cast_at.toISOString() };
}

async function outcomeCountOf(deps: VoteDeps, market: string): Promise<number> {
  const row = await deps.db.selectFrom('markets').select('outcome_count').where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
  return row?.outcome_count ?? 2;
}

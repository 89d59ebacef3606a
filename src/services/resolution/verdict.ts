/**
 * The verdict of a vote round, frozen once (docs/resolution.md "Votes"): at the deadline the keeper counts the round's
 * ballots (one per identity) under the lock a ballot also takes, and keeps the tally. A ballot after it is refused
 * VOTE_CLOSED, so every published ballot of a closed round was counted; a retry of the keeper sends the same verdict.
 * Anyone recounts it from the published ballots (src/core/resolution/votes.ts).
 */
import { sql, type Transaction } from 'kysely';
import type { VerdictKindName } from '../../core/resolution/record.ts';
import { ballotsRoot, tally } from '../../core/resolution/votes.ts';
import type { DB } from '../../db/schema.ts';
import type { VoteDeps } from './deps.ts';

export interface FrozenVerdict {
  kind: VerdictKindName;
  /** The binding outcome; null for no_quorum and deadlock. */
  outcome: number | null;
  /** The outcome with the most ballots (0 when nobody voted): a non-binding verdict carries it for information. */
  leadingOutcome: number;
  ballotRoot: string;
  ballotCount: number;
}

/** Locks the market's resolution row: freezing a tally and casting a ballot exclude each other. */
export async function lockResolution(trx: Transaction<DB>, chainId: number, market: string): Promise<void> {
  await sql`SELECT 1 FROM market_resolutions WHERE chain_id = ${chainId} AND market = ${market} FOR UPDATE`.execute(trx);
}

export async function freezeVerdict(deps: Pick<VoteDeps, 'db' | 'chainId' | 'quorum' | 'clock'>, market: string, round: number, outcomeCount: number): Promise<FrozenVerdict> {
  return deps.db.transaction().execute(async (trx) => {
    await lockResolution(trx, deps.chainId, market);
    const kept = await trx.selectFrom('vote_tallies').selectAll().where('chain_id', '=', deps.chainId).where('market', '=', market).where('round', '=', round).executeTakeFirst();
    if (kept) return { kind: kept.verdict, outcome: kept.outcome, leadingOutcome: kept.leading_outcome, ballotRoot: kept.ballot_root, ballotCount: kept.ballot_count };
    const ballots = await trx.selectFrom('vote_ballots').select(['wallet_address', 'outcome', 'signature']).where('chain_id', '=', deps.chainId).where('market', '=', market).where('round', '=', round).execute();
    const counted = ballots.map((b) => ({ wallet: b.wallet_address, outcome: b.outcome, signature: b.signature as `0x${string}` }));
    const v = tally(counted, { quorum: deps.quorum, outcomeCount });
    const frozen: FrozenVerdict = { kind: v.kind, outcome: v.outcome, leadingOutcome: v.outcome ?? v.counts.indexOf(Math.max(...v.counts)), ballotRoot: ballotsRoot(counted), ballotCount: counted.length };
    await trx
      .insertInto('vote_tallies')
      .values({ chain_id: deps.chainId, market, round, verdict: frozen.kind, outcome: frozen.outcome, leading_outcome: frozen.leadingOutcome, ballot_root: frozen.ballotRoot, ballot_count: frozen.ballotCount, counted_at: deps.clock.now() })
      .execute();
    return frozen;
  });
}

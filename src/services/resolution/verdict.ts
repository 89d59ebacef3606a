/**
 * The verdict of a vote round from its counted ballots (one per identity): what the keeper records on chain at the
 * deadline, and what anyone recounts from the published ballots (src/core/resolution/votes.ts).
 */
import { ballotsRoot, tally, type Verdict } from '../../core/resolution/votes.ts';
import type { VoteDeps } from './deps.ts';

export async function verdictOf(deps: Pick<VoteDeps, 'db' | 'chainId' | 'quorum'>, market: string, round: number, outcomeCount: number): Promise<Verdict & { ballotRoot: string; ballotCount: number }> {
  const ballots = await deps.db.selectFrom('vote_ballots').select(['wallet_address', 'outcome', 'signature']).where('chain_id', '=', deps.chainId).where('market', '=', market).where('round', '=', round).execute();
  const counted = ballots.map((b) => ({ wallet: b.wallet_address, outcome: b.outcome, signature: b.signature as `0x${string}` }));
  return { ...tally(counted, { quorum: deps.quorum, outcomeCount }), ballotRoot: ballotsRoot(counted), ballotCount: counted.length };
}

/**
 * A market's place in the state graph (GET /discover/market-states with marketAddress): its state as the projection
 * holds it, and, once its resolution started on chain, the resolution record's phase, deadlines and outcome.
 */
import { problem } from '../../core/error-codes.ts';
import { resolutionRecordFromJson } from '../../core/resolution/record.ts';
import type { MarketStateName, ResolutionPhaseName } from '../../db/schema.ts';
import type { VoteDeps } from './deps.ts';

export interface MarketResolutionView {
  address: string;
  chainId: number;
  state: MarketStateName;
  resolution: {
    phase: ResolutionPhaseName;
    proposedOutcome: number | null;
    challengeDeadline: string | null;
    voteRound: number;
    voteDeadline: string | null;
    finalOutcome: number | null;
  } | null;
}

export async function marketResolution(deps: Pick<VoteDeps, 'db' | 'chainId'>, address: string): Promise<MarketResolutionView> {
  const market = address.toLowerCase();
  const row = await deps.db.selectFrom('markets').select(['state']).where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
  if (!row) throw problem('MARKET_NOT_FOUND', `no market ${market} on chain ${deps.chainId}`);
  const r = await deps.db.selectFrom('market_resolutions').selectAll().where('chain_id', '=', deps.chainId).where('market', '=', market).executeTakeFirst();
  const record = r ? resolutionRecordFromJson(r.record) : null;
  return {
    address: market,
    chainId: deps.chainId,
    state: row.state,
    resolution: r
      ? {
          phase: r.phase,
          proposedOutcome: record?.proposedOutcome ?? null,
          challengeDeadline: r.challenge_deadline?.toISOString() ?? null,
          voteRound: r.vote_round,
          voteDeadline: r.vote_deadline?.toISOString() ?? null,
          finalOutcome: r.final_outcome,
        }
      : null,
  };
}

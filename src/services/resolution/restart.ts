/**
 * An integrity restart (`svc resolution restart <market> --reason …`): the operator replaces a vote round 1 that
 * cannot be trusted with round 2. The request is kept; the keeper opens round 2 on chain once (openVote, operation id
 * `…:open-vote:2`), the resolver's VoteOpened log closes round 1 as `replaced` and its ballots stop counting
 * (docs/resolution.md "Integrity restart"). The projection decides whether round 1 runs; the keeper checks the chain
 * before it sends, so a request for a round that already ended on chain is kept and never carried out.
 */
import { problem } from '../../core/error-codes.ts';
import type { VoteDeps } from './deps.ts';

export type RestartError = 'MARKET_NOT_FOUND' | 'RESOLUTION_STEP_REFUSED';

export async function requestIntegrityRestart(deps: Pick<VoteDeps, 'db' | 'chainId' | 'clock'>, address: string, reason: string): Promise<{ market: string; round: 2; requestedAt: Date; existing: boolean }> {
  const market = address.toLowerCase();
  const r = await deps.db.selectFrom('market_resolutions').select(['phase', 'vote_round']).where('chain_id', '=', deps.chainId).where('market', '=', market).executeTakeFirst();
  if (!r) {
    const known = await deps.db.selectFrom('markets').select('address').where('chain_id', '=', deps.chainId).where('address', '=', market).executeTakeFirst();
    if (!known) throw problem('MARKET_NOT_FOUND', `no market ${market} on chain ${deps.chainId}`);
  }
  const existing = await deps.db.selectFrom('resolution_restarts').select('requested_at').where('chain_id', '=', deps.chainId).where('market', '=', market).executeTakeFirst();
  if (existing) return { market, round: 2, requestedAt: existing.requested_at, existing: true };
  if (r?.phase !== 'voting' || r.vote_round !== 1) {
    throw problem('RESOLUTION_STEP_REFUSED', `market ${market} is not in vote round 1 (phase ${r?.phase ?? 'none'}, round ${r?.vote_round ?? 0}): only a running first round can be restarted`);
  }
  const requestedAt = deps.clock.now();
  const inserted = await deps.db.insertInto('resolution_restarts').values({ chain_id: deps.chainId, market, round: 2, reason, requested_at: requestedAt }).onConflict((oc) => oc.doNothing()).returning('requested_at').executeTakeFirst();
  if (!inserted) return requestIntegrityRestart(deps, address, reason); // a concurrent request was first
  return { market, round: 2, requestedAt, existing: false };
}

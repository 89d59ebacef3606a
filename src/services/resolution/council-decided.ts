// market.councilReview {phase: decided}, once per market and round (migration 0018's council_decisions): written by the
// council signature that reaches the threshold, or, when members sent councilDecide themselves, by the indexer just
// before the CouncilDecided log's {phase: executed}, in the transaction of either.
import type { Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { DB } from '../../db/schema.ts';
import { appendEvent } from '../events/outbox.ts';

export async function markCouncilDecided(trx: Transaction<DB>, deps: { chainId: number; clock: Clock }, market: string, round: number): Promise<void> {
  const marked = await trx
    .insertInto('council_decisions')
    .values({ chain_id: deps.chainId, market, round, decided_at: deps.clock.now() })
    .onConflict((oc) => oc.columns(['chain_id', 'market', 'round']).doNothing())
    .returning('round')
    .executeTakeFirst();
  if (marked) await appendEvent(trx, deps.clock, { type: 'market.councilReview', chainId: deps.chainId, marketAddress: market, payload: { phase: 'decided' } });
}

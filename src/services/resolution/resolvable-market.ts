// The market a resolution step names: one we registered on this chain, not cancelled. Shared by the steps' reads.
import { problem } from '../../core/error-codes.ts';
import type { MarketStateName } from '../../db/schema.ts';
import type { VoteDeps } from './deps.ts';

export interface ResolvableMarket {
  address: string;
  creator: string;
  outcomeCount: number;
  state: MarketStateName;
  resolveBy: Date;
}

export async function resolvableMarket(deps: Pick<VoteDeps, 'db' | 'chainId'>, address: string): Promise<ResolvableMarket> {
  const market = address.toLowerCase();
  const row = await deps.db
    .selectFrom('markets')
    .select(['creator', 'outcome_count', 'state', 'resolve_by', 'cancel_reason'])
    .where('chain_id', '=', deps.chainId)
    .where('address', '=', market)
    .executeTakeFirst();
  if (!row) throw problem('MARKET_NOT_FOUND', `no market ${market} on chain ${deps.chainId}`);
  if (row.cancel_reason !== null) throw problem('RESOLUTION_STEP_REFUSED', `market ${market} was cancelled (${row.cancel_reason}): it has nothing to resolve`);
  return { address: market, creator: row.creator.toLowerCase(), outcomeCount: row.outcome_count, state: row.state, resolveBy: row.resolve_by };
}

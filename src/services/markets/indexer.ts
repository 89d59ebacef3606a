/**
 * The chain indexer: reads the markets lane's logs in block order from the lane's first deployment block and
 * projects them into PostgreSQL (see projection/). One batch of blocks is applied in one transaction together
 * with the cursor (indexer/batch.ts); a reorg rolls the projection back to the newest block the chain still agrees
 * on (indexer/reorg.ts), and a market whose creation is gone from the chain is cancelled with reason
 * CREATION_REORGED (indexer/void-markets.ts; docs/markets.md, "Indexer"). This wires the steps of indexer/.
 */
import { runUntilCaughtUp } from './indexer/batch.ts';
import { indexerDeps, type IndexerStatus } from './indexer/deps.ts';
import { createPollLoop } from './indexer/poll-loop.ts';
import { projectionStatus } from './indexer/projection-status.ts';
import type { IndexerOptions, MarketIndexer } from './indexer/types.ts';

export type { IndexerOptions, MarketIndexer } from './indexer/types.ts';

export function createMarketIndexer(o: IndexerOptions): MarketIndexer {
  const deps = indexerDeps(o);
  const status: IndexerStatus = { last: null };
  const loop = createPollLoop({ pollMs: o.pollMs ?? 1_000, log: o.log, run: () => runUntilCaughtUp(deps, status) });
  const maxLagSeconds = o.maxHealthyLagSeconds ?? 60;
  return { ...loop, projection: () => projectionStatus(deps, status.last, maxLagSeconds) };
}

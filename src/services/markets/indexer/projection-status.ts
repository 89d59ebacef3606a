import type { ProjectionT } from '../../../wire/markets.ts';
import { readCursor } from './cursor.ts';
import type { HeadSeen, IndexerDeps } from './deps.ts';

/**
 * How fresh the projection is (docs/markets.md "The projection object"): fresh when the last run succeeded and the
 * cursor is within `maxLagSeconds` of the head it saw.
 */
export async function projectionStatus(deps: Pick<IndexerDeps, 'db' | 'chainId'>, last: HeadSeen | null, maxLagSeconds: number): Promise<ProjectionT> {
  const { db, chainId } = deps;
  const cursor = await readCursor(deps);
  if (!cursor || !last) {
    return { source: 'indexer', fresh: false, checkedAt: last?.at.toISOString() ?? null, cursors: [{ chainId, blockNumber: cursor?.block_number ?? null, lagSeconds: null, healthy: false }] };
  }
  const block = await db.selectFrom('indexed_blocks').select('block_time').where('chain_id', '=', chainId).where('block_number', '=', cursor.block_number).executeTakeFirst();
  const cursorTime = block ? Math.floor(block.block_time.getTime() / 1000) : last.headTime;
  const lagSeconds = BigInt(cursor.block_number) >= last.headNumber ? 0 : Math.max(0, last.headTime - cursorTime);
  const healthy = last.ok && lagSeconds <= maxLagSeconds;
  return { source: 'indexer', fresh: healthy, checkedAt: last.at.toISOString(), cursors: [{ chainId, blockNumber: cursor.block_number, lagSeconds, healthy }] };
}

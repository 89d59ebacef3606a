/**
 * One batch of the indexer: the blocks after the cursor, up to batchBlocks of them, applied in one transaction
 * together with the cursor, so a crash mid-batch leaves either all of it or none: nothing is counted twice on restart.
 * A cursor whose block hash the chain no longer has is a reorg (reorg.ts).
 */
import { readCursor, recordBlocks, writeCursor } from './cursor.ts';
import type { IndexerDeps, IndexerStatus } from './deps.ts';
import { applyRange } from './apply-logs.ts';
import { readRange, type BlockRange } from './read-range.ts';
import { rollBackReorg } from './reorg.ts';
import { endVoided, voidUnseenCreations } from './void-markets.ts';

/** Runs batches until the cursor reaches the head (less the confirmation depth); a failure marks the status unhealthy. */
export async function runUntilCaughtUp(deps: IndexerDeps, status: IndexerStatus): Promise<void> {
  try {
    while (await runBatch(deps, status)) {
      /* next batch */
    }
  } catch (err) {
    if (status.last) status.last = { ...status.last, ok: false };
    throw err;
  }
}

/** One batch. Returns true when more blocks remain. */
export async function runBatch(deps: IndexerDeps, status: IndexerStatus): Promise<boolean> {
  const { client } = deps;
  const head = await client.getBlock({ blockTag: 'latest' });
  const cursor = await readCursor(deps);
  let last = deps.fromBlock - 1n;
  if (cursor) {
    last = BigInt(cursor.block_number);
    const atCursor = await client.getBlock({ blockNumber: last }).catch(() => null);
    if (!atCursor || atCursor.hash !== cursor.block_hash) {
      await rollBackReorg(deps, last);
      return true;
    }
  }
  status.last = { at: deps.clock.now(), ok: true, headNumber: head.number, headTime: Number(head.timestamp) };
  // Only blocks at the confirmation depth are indexed (the depth counts the block itself).
  const deep = head.number - (deps.confirmations - 1n);
  if (last >= deep) return false;
  const from = last + 1n;
  const to = from + deps.batchBlocks - 1n < deep ? from + deps.batchBlocks - 1n : deep;
  const range = await readRange(deps, from, to);
  if (!range) return true; // the chain moved under us; the next batch sees the reorg
  await commitRange(deps, range);
  return to < deep;
}

/** Applies the range, records its blocks, voids what it proves gone and moves the cursor, in one transaction. */
async function commitRange(deps: IndexerDeps, range: BlockRange): Promise<void> {
  const { inserted, stopped, voided } = await deps.db.transaction().execute(async (trx) => {
    const { inserted, stopped } = await applyRange(trx, deps, range);
    await recordBlocks(trx, deps, range.blocks, range.to);
    const voided = await voidUnseenCreations(trx, deps, range.to);
    await writeCursor(trx, deps, range.to, range.toHash);
    return { inserted, stopped, voided };
  });
  endVoided(deps, voided);
  if (stopped.length > 0) deps.onMarketsStopped?.ended(stopped);
  if (range.logs.length + range.orderBookCreations.length + range.resolutions.length > 0 || voided.length > 0) deps.events.notify();
  if (inserted > 0) deps.log.info({ chainId: deps.chainId, markets: inserted, to: range.to.toString() }, 'indexer: markets registered');
}

// The indexer's cursor (the last block applied) and the block hashes it keeps to see a reorg.
import type { Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { IndexerDeps } from './deps.ts';

/** Block hashes kept for reorg detection; a reorg deeper than this restarts from the lane's first block. */
export const BLOCK_WINDOW = 256n;

export interface BlockStamp {
  hash: string;
  time: Date;
}

export const readCursor = (deps: Pick<IndexerDeps, 'db' | 'chainId'>) => deps.db.selectFrom('indexer_cursors').selectAll().where('chain_id', '=', deps.chainId).executeTakeFirst();

/** Moves the cursor, in the transaction that applied (or rolled back) everything up to it. */
export async function writeCursor(trx: Transaction<DB>, deps: Pick<IndexerDeps, 'chainId' | 'clock'>, blockNumber: bigint, blockHash: string): Promise<void> {
  const at = { block_number: blockNumber.toString(), block_hash: blockHash, updated_at: deps.clock.now() };
  await trx
    .insertInto('indexer_cursors')
    .values({ chain_id: deps.chainId, ...at })
    .onConflict((oc) => oc.column('chain_id').doUpdateSet(at))
    .execute();
}

/** Stores the hashes and times of the blocks a batch read, and forgets those older than the window. */
export async function recordBlocks(trx: Transaction<DB>, deps: Pick<IndexerDeps, 'chainId'>, blocks: ReadonlyMap<bigint, BlockStamp>, to: bigint): Promise<void> {
  for (const [number, b] of blocks) {
    await trx
      .insertInto('indexed_blocks')
      .values({ chain_id: deps.chainId, block_number: number.toString(), block_hash: b.hash, block_time: b.time })
      .onConflict((oc) => oc.columns(['chain_id', 'block_number']).doUpdateSet({ block_hash: b.hash, block_time: b.time }))
      .execute();
  }
  await trx.deleteFrom('indexed_blocks').where('chain_id', '=', deps.chainId).where('block_number', '<', (to - BLOCK_WINDOW).toString()).execute();
}

/**
 * A reorg shows as a stored block hash the chain no longer has: the indexer walks back to the newest stored block
 * the chain still agrees on, rolls the projection back to it and re-reads from there. Creations above it lose their
 * confirmation; those whose transaction the chain no longer knows are voided (void-markets.ts).
 */
import { getAddress, type Hex } from 'viem';
import type { Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { readMarketState, type MarketChainState } from '../market-state.ts';
import { rollbackAbove } from '../projection/rollback-above.ts';
import { writeCursor } from './cursor.ts';
import type { IndexerDeps } from './deps.ts';
import { rollbackResolutionsAbove } from './resolutions.ts';
import { endVoided, voidReorgedMarkets, type GoneCreation } from './void-markets.ts';

type Orphan = { address: string; created_tx: string };

/** Finds the newest stored block the chain still has, rolls back above it, and cancels creations that are gone. */
export async function rollBackReorg(deps: IndexerDeps, cursorNumber: bigint): Promise<void> {
  const { db, client, chainId } = deps;
  const ancestor = await commonAncestor(deps, cursorNumber);
  const ancestorBlock = await client.getBlock({ blockNumber: ancestor });
  const orphaned = await db.selectFrom('markets').select(['address', 'created_tx', 'question']).where('chain_id', '=', chainId).where('created_block', '>', ancestor.toString()).where('state', '<>', 'void').execute();
  const gone = await goneCreations(deps, orphaned);
  const refresh = await statesAtAncestor(deps, ancestor, orphaned);
  const voided = await db.transaction().execute(async (trx) => {
    await rollbackAbove(trx, chainId, ancestor);
    await rollbackResolutionsAbove(trx, deps, ancestor);
    await restoreStates(trx, deps, refresh);
    if (orphaned.length > 0) {
      await trx.updateTable('markets').set({ confirmed: false, updated_at: deps.clock.now() }).where('chain_id', '=', chainId).where('address', 'in', orphaned.map((m) => m.address)).execute();
    }
    const voided = await voidReorgedMarkets(trx, deps, gone);
    await writeCursor(trx, deps, ancestor, ancestorBlock.hash);
    return voided;
  });
  endVoided(deps, voided);
  deps.events.notify();
  deps.log.warn({ chainId, from: cursorNumber.toString(), ancestor: ancestor.toString(), cancelled: gone.length }, 'indexer: reorg rolled back');
}

/** The newest stored block whose hash the chain still has; before the lane's first block when none is. */
async function commonAncestor(deps: Pick<IndexerDeps, 'db' | 'client' | 'chainId' | 'fromBlock'>, cursorNumber: bigint): Promise<bigint> {
  const stored = await deps.db.selectFrom('indexed_blocks').select(['block_number', 'block_hash']).where('chain_id', '=', deps.chainId).where('block_number', '<=', cursorNumber.toString()).orderBy('block_number', 'desc').execute();
  for (const row of stored) {
    const block = await deps.client.getBlock({ blockNumber: BigInt(row.block_number) }).catch(() => null);
    if (block && block.hash === row.block_hash) return BigInt(row.block_number);
  }
  return deps.fromBlock - 1n;
}

/**
 * A creation whose transaction the chain no longer knows is gone for good; one that is pending or re-mined
 * elsewhere is confirmed again when the indexer reads its new log.
 */
async function goneCreations(deps: Pick<IndexerDeps, 'client'>, orphaned: readonly Orphan[]): Promise<GoneCreation[]> {
  const gone: GoneCreation[] = [];
  for (const m of orphaned) {
    const receipt = await deps.client.getTransactionReceipt({ hash: m.created_tx as Hex }).catch(() => null);
    const pending = receipt ? null : await deps.client.getTransaction({ hash: m.created_tx as Hex }).catch(() => null);
    if (!receipt && !pending) gone.push({ address: m.address, createdTx: m.created_tx });
  }
  return gone;
}

/** The chain-read state (prices, outstanding shares, creator fees) at the ancestor of every market traded above it. */
async function statesAtAncestor(deps: Pick<IndexerDeps, 'db' | 'client' | 'chainId'>, ancestor: bigint, orphaned: readonly Orphan[]): Promise<Map<string, MarketChainState>> {
  const touched = await deps.db.selectFrom('market_trades').select('market').distinct().where('chain_id', '=', deps.chainId).where('block_number', '>', ancestor.toString()).execute();
  const states = new Map<string, MarketChainState>();
  for (const { market } of touched) {
    if (orphaned.some((m) => m.address === market)) continue;
    states.set(market, await readMarketState(deps.client, getAddress(market), ancestor));
  }
  return states;
}

async function restoreStates(trx: Transaction<DB>, deps: Pick<IndexerDeps, 'chainId' | 'clock'>, states: ReadonlyMap<string, MarketChainState>): Promise<void> {
  for (const [market, s] of states) {
    await trx
      .updateTable('markets')
      .set({ prices: JSON.stringify(s.prices), outstanding: JSON.stringify(s.outstanding), creator_fees: s.creatorFees, updated_at: deps.clock.now() })
      .where('chain_id', '=', deps.chainId)
      .where('address', '=', market)
      .execute();
  }
}

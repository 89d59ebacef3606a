// Markets whose creation is gone from the chain are void (reason CREATION_REORGED, docs/markets.md "Indexer"):
// market.cancelled goes into the outbox, and the onMarketsVoided listener (the order service) cancels what rests on
// them in the same transaction and drops its in-memory state after the commit.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { appendEvent } from '../../events/outbox.ts';
import type { EndedMarket } from '../ended-markets.ts';
import type { IndexerDeps } from './deps.ts';

type VoidDeps = Pick<IndexerDeps, 'chainId' | 'clock' | 'onMarketsVoided'>;

/** A market whose creation transaction the chain no longer has, as it was read. */
export interface GoneCreation {
  address: string;
  createdTx: string;
}

/**
 * Voids the markets not void yet; returns those voided now. A market is voided only while its row still names the
 * creation found gone: a new creation registered at the same address meanwhile (the factory's same nonce, on a chain
 * that lost its blocks) is another market, and stays.
 */
export async function voidReorgedMarkets(trx: Transaction<DB>, deps: VoidDeps, creations: readonly GoneCreation[]): Promise<EndedMarket[]> {
  const { chainId, clock } = deps;
  const voided: EndedMarket[] = [];
  for (const { address, createdTx: goneTx } of creations) {
    const updated = await trx
      .updateTable('markets')
      .set({ state: 'void', cancel_reason: 'CREATION_REORGED', confirmed: false, updated_at: clock.now() })
      .where('chain_id', '=', chainId)
      .where('address', '=', address)
      .where(sql<boolean>`lower(created_tx) = ${goneTx.toLowerCase()}`)
      .where('state', '<>', 'void')
      .returning(['address', 'ledger_market_id', 'created_tx', 'question_hash'])
      .executeTakeFirst();
    if (!updated) continue;
    // Kept so that the transaction, mined again at another address, says where the market went (register-market.ts).
    const createdTx = updated.created_tx.toLowerCase();
    await trx
      .insertInto('reorged_creations')
      .values({ chain_id: chainId, created_tx: createdTx, address, question_hash: updated.question_hash, voided_at: clock.now(), relocated_to: null })
      .onConflict((oc) => oc.columns(['chain_id', 'created_tx']).doUpdateSet({ address, voided_at: clock.now(), relocated_to: null }))
      .execute();
    await appendEvent(trx, clock, { type: 'market.cancelled', chainId, marketAddress: address, payload: { reason: 'CREATION_REORGED', createdTx } });
    voided.push({ address, ledgerMarketId: updated.ledger_market_id === null ? null : BigInt(updated.ledger_market_id) });
  }
  if (voided.length > 0) await deps.onMarketsVoided?.ending(trx, voided);
  return voided;
}

/** Registered from a receipt (commit-deploy) but absent from the chain the indexer has now read past `to`. */
export async function voidUnseenCreations(trx: Transaction<DB>, deps: VoidDeps, to: bigint): Promise<EndedMarket[]> {
  const unseen = await trx.selectFrom('markets').select(['address', 'created_tx']).where('chain_id', '=', deps.chainId).where('confirmed', '=', false).where('state', '<>', 'void').where('created_block', '<=', to.toString()).execute();
  return voidReorgedMarkets(trx, deps, unseen.map((m) => ({ address: m.address, createdTx: m.created_tx })));
}

/** After the commit: the listener drops what it kept in memory for the voided markets. */
export function endVoided(deps: Pick<IndexerDeps, 'onMarketsVoided'>, voided: readonly EndedMarket[]): void {
  if (voided.length > 0) deps.onMarketsVoided?.ended(voided);
}

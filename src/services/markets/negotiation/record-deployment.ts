import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import type { MarketRow } from '../records.ts';
import { registerMarket, type MarketCreation, type RegisterOptions } from '../register-market.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';

export type CommitDeps = Pick<NegotiationDeps, 'db' | 'clock' | 'chain' | 'events' | 'indexer'>;

export interface CommittedDeploy {
  negotiation: NegotiationRow;
  market: MarketRow;
}

/** How a lane registers its creation: the negotiation pinned (or not), and the Idempotency-Key's recorder. */
export interface RecordOptions extends Omit<RegisterOptions, 'confirmed'> {
  /** Under an Idempotency-Key: records the deployment (by negotiation id) in the transaction that registers it. */
  recordEffect?: EffectRecorder;
}

/**
 * Registers the market a negotiation's factory transaction created, from the mined receipt: unconfirmed until the
 * indexer reads the same log, with market.created and market.live in the same transaction (registerMarket). The
 * negotiation turning deployed is the commit's effect: an Idempotency-Key records it in that transaction.
 */
export async function recordDeployment(deps: CommitDeps, row: NegotiationRow, creation: MarketCreation, { recordEffect, ...opts }: RecordOptions): Promise<CommittedDeploy> {
  const { db, clock, chain } = deps;
  const address = creation.address.toLowerCase();
  const market = await db.transaction().execute(async (trx) => {
    await registerMarket(trx, clock, creation, { ...opts, confirmed: false });
    // Also when the indexer registered it first (a creation it read before this commit).
    await trx.updateTable('negotiations').set({ status: 'deployed', market_address: address, deploy_tx_hash: creation.txHash, updated_at: clock.now() }).where('id', '=', row.id).execute();
    await recordEffect?.(trx, row.id);
    return trx.selectFrom('markets').selectAll().where('chain_id', '=', chain.chainId).where('address', '=', address).executeTakeFirstOrThrow();
  });
  deps.events.notify();
  deps.indexer.kick();
  const negotiation = await db.selectFrom('negotiations').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  return { negotiation, market };
}

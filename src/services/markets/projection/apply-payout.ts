// The market projection (docs/markets.md): a money-out log kept once, keyed by its log (chain, tx, log index).
import type { Transaction } from 'kysely';
import type { DB, MarketPayoutKind } from '../../../db/schema.ts';

/** A money-out log of a market (migration 0019). */
export interface PayoutLog {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockTime: Date;
  market: string;
  kind: MarketPayoutKind;
  recipient: string | null;
  amount: bigint;
  shares: bigint | null;
}

/** Keeps a money-out log once (a batch applied twice counts nothing twice). */
export async function applyPayout(trx: Transaction<DB>, p: PayoutLog): Promise<void> {
  await trx
    .insertInto('market_payouts')
    .values({
      chain_id: p.chainId,
      tx_hash: p.txHash,
      log_index: p.logIndex,
      block_number: p.blockNumber.toString(),
      block_time: p.blockTime,
      market: p.market,
      kind: p.kind,
      recipient: p.recipient?.toLowerCase() ?? null,
      amount: p.amount.toString(),
      shares: p.shares?.toString() ?? null,
    })
    .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
    .execute();
}

/** A market of the projection by its address or its creator's externalId, or the problem that says why not. */
import type { Kysely } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { DB } from '../../../db/index.ts';
import type { MarketRow } from '../records.ts';

/**
 * A market by its externalId on one chain (the creator's own id, unique per creator): the consumer chart's market_id
 * may be one. Two creators' markets sharing it are 400 INVALID_ID (ask by address).
 */
export async function findMarketByExternalId(db: Kysely<DB>, p: { externalId: string; chainId: number }): Promise<MarketRow> {
  const rows = await db.selectFrom('markets').selectAll().where('chain_id', '=', p.chainId).where('external_id', '=', p.externalId).limit(2).execute();
  if (rows.length > 1) throw problem('INVALID_ID', `externalId '${p.externalId}' names markets of several creators on chain ${p.chainId}: ask by market address`);
  if (rows.length === 0) throw problem('MARKET_NOT_FOUND', `no market with address or externalId '${p.externalId}' on chain ${p.chainId}`);
  return rows[0]!;
}

/** The projected market at `address` (any market, listed or not; the lowest chain id without `chainId`), or 404 MARKET_NOT_FOUND. */
export async function findMarket(db: Kysely<DB>, p: { address: string; chainId?: number }): Promise<MarketRow> {
  let qb = db.selectFrom('markets').selectAll().where('address', '=', p.address.toLowerCase());
  if (p.chainId !== undefined) qb = qb.where('chain_id', '=', p.chainId);
  const row = await qb.orderBy('chain_id').executeTakeFirst();
  if (!row) throw problem('MARKET_NOT_FOUND', `no market ${p.address}${p.chainId === undefined ? '' : ` on chain ${p.chainId}`}`);
  return row;
}

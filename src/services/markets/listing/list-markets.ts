// One page of listed markets in the requested order: GET /discover/markets and GET /api/v1/markets (docs/markets.md "Reads").
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { DB } from '../../../db/index.ts';
import type { MarketRow } from '../records.ts';
import { decodeCursor, encodeCursor, hasTrigram, listingCondition, volume24hOf, volumesAt, type ListingPage, type ListingRequest } from './shared.ts';

/** The decimals of each collateral symbol markets may hold (USDC 6, PM 18, the order books' PLAY 6). */
export type CollateralDecimals = Readonly<Record<string, number>>;

/** Decimals everything is scaled to when volumes of several collaterals are compared. */
const COMMON_DECIMALS = 18;

/**
 * A market's volume in base units of a common 18 decimals: what the volume_24h sort compares, so that markets of
 * several collaterals rank by whole tokens (one PM counts as one USDC), not by base units (docs/markets.md).
 */
function commonVolume(volume: RawBuilder<unknown>, decimals: CollateralDecimals) {
  const scales = Object.entries(decimals).map(([symbol, d]) => sql`WHEN ${symbol} THEN ${(10n ** BigInt(COMMON_DECIMALS - Math.min(d, COMMON_DECIMALS))).toString()}::numeric`);
  return scales.length === 0 ? volume : sql`${volume} * (CASE m.collateral_symbol ${sql.join(scales, sql` `)} ELSE 1 END)`;
}

/** One page of listed markets in the requested order. */
export async function listMarkets(db: Kysely<DB>, req: ListingRequest, decimals: CollateralDecimals = {}): Promise<ListingPage> {
  if (req.cursor !== undefined && req.sort !== 'new') {
    throw problem('INVALID_QUERY', `cursor pages only sort=new; sort=${req.sort} returns one page (use the limit)`, {
      errors: [{ path: 'query.cursor', message: 'cursor is valid only with sort=new' }],
    });
  }
  const after = req.cursor === undefined ? undefined : decodeCursor(req.cursor);
  const where = listingCondition(req.filter, req.now, await hasTrigram(db));
  const now = req.now.toISOString();
  let qb = db.selectFrom('markets as m').selectAll('m').where(where);
  switch (req.sort) {
    case 'new':
      if (after !== undefined) qb = qb.where('m.id', '<', after);
      qb = qb.orderBy('m.id', 'desc');
      break;
    case 'closing_soon':
      qb = qb.where('m.state', '=', 'open').where(sql<boolean>`m.close_time > ${now}::timestamptz`).orderBy('m.close_time', 'asc').orderBy('m.id', 'desc');
      break;
    case 'resolved_newest':
      // The projection keeps no resolution time yet: markets that closed last resolved last, near enough.
      qb = qb.where('m.state', 'in', ['resolved', 'void']).orderBy('m.close_time', 'desc').orderBy('m.id', 'desc');
      break;
    case 'volume_24h':
      qb = qb
        .leftJoin(volumesAt(req.now).as('v'), (join) => join.onRef('v.chain_id', '=', 'm.chain_id').onRef('v.market', '=', 'm.address'))
        .orderBy(commonVolume(sql`coalesce(v.volume, 0)`, decimals), 'desc')
        .orderBy('m.id', 'desc');
      break;
  }
  const fetched = (await qb.limit(req.limit + 1).execute()) as MarketRow[];
  const rows = fetched.slice(0, req.limit);
  const more = fetched.length > req.limit;
  return {
    rows,
    volume24h: await volume24hOf(db, rows, req.now),
    nextCursor: req.sort === 'new' && more ? encodeCursor(rows[rows.length - 1]!.id) : null,
  };
}

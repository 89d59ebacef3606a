/** GET /markets/{address}/related: listed markets of the same category and chain. */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../db/index.ts';
import type { MarketRow } from '../records.ts';

/** Listed markets of the same category and chain, open ones first, then newest. */
export async function relatedMarkets(db: Kysely<DB>, m: MarketRow, p: { limit: number }): Promise<MarketRow[]> {
  return db
    .selectFrom('markets')
    .selectAll()
    .where('chain_id', '=', m.chain_id)
    .where('category', '=', m.category)
    .where('address', '<>', m.address)
    .where('question', 'is not', null)
    .where(sql<boolean>`controls->>'policy' = 'active' AND controls->>'discovery' IN ('listed', 'graduated')`)
    .orderBy(sql`state = 'open'`, 'desc')
    .orderBy('id', 'desc')
    .limit(p.limit)
    .execute();
}

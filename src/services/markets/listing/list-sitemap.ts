// The listed markets a search engine may index: /markets/sitemap (docs/markets.md "Reads").
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/index.ts';
import { listingCondition } from './shared.ts';

export const SITEMAP_CAP = 50_000;

/** Listed markets, newest first, at most SITEMAP_CAP: what a search engine may index. */
export async function listSitemap(db: Kysely<DB>): Promise<{ chainId: number; address: string; question: string; updatedAt: Date }[]> {
  const rows = await db
    .selectFrom('markets as m')
    .select(['m.chain_id', 'm.address', 'm.question', 'm.updated_at'])
    .where(listingCondition({}, new Date(0), false))
    .orderBy('m.id', 'desc')
    .limit(SITEMAP_CAP)
    .execute();
  return rows.map((r) => ({ chainId: r.chain_id, address: r.address, question: r.question ?? '', updatedAt: r.updated_at }));
}

/** GET /markets/{address}/comments: the human comments on a market, a page at a time. */
import { getAddress } from 'viem';
import { sql, type Kysely } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import { isUuid } from '../../../core/ids.ts';
import type { DB } from '../../../db/index.ts';
import type { MarketCommentT } from '../../../wire/market-reads.ts';
import { subjectIdOf } from '../../../core/reputation/subject.ts';
import { tiersOfWallets } from '../../reputation/subjects.ts';
import type { MarketRow } from '../records.ts';

/**
 * Human comments on a market, newest first, each tagged with its author's current position and reputation tier. `cursor` is the
 * id of the last comment of the prior page; an id that is not a comment of this market is 400 INVALID_QUERY.
 */
export async function marketComments(db: Kysely<DB>, m: MarketRow, p: { limit: number; cursor?: string }): Promise<{ comments: MarketCommentT[]; nextCursor: string | null }> {
  let qb = db
    .selectFrom('market_comments')
    .selectAll()
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(p.limit + 1);
  if (p.cursor !== undefined) {
    const known =
      isUuid(p.cursor) &&
      (await db.selectFrom('market_comments').select('id').where('id', '=', p.cursor).where('chain_id', '=', m.chain_id).where('market', '=', m.address).executeTakeFirst());
    if (!known) {
      throw problem('INVALID_QUERY', 'cursor is not a comment of this market: pass nextCursor back unchanged', {
        errors: [{ path: 'query.cursor', message: 'unknown cursor' }],
      });
    }
    // The row comparison runs in the database, at its full timestamp precision.
    qb = qb.where(sql<boolean>`(created_at, id) < (SELECT created_at, id FROM market_comments WHERE id = ${p.cursor}::uuid)`);
  }
  const fetched = await qb.execute();
  const page = fetched.slice(0, p.limit);
  const authors = [...new Set(page.map((c) => c.author_wallet))];
  const positions =
    authors.length === 0
      ? []
      : await db
          .selectFrom('market_positions')
          .select(['holder', 'outcome', 'shares'])
          .where('chain_id', '=', m.chain_id)
          .where('market', '=', m.address)
          .where('holder', 'in', authors)
          .execute();
  const positionOf = (author: string) =>
    Array.from({ length: m.outcome_count }, (_, i) => positions.find((r) => r.holder === author && Number(r.outcome) === i)?.shares ?? '0');
  // Each author's reputation tag: the subject and tier as the last reputation fold left them (docs/reputation.md).
  const tiers = await tiersOfWallets(db, authors);
  const tagOf = (author: string) => {
    const t = tiers.get(author.toLowerCase())!;
    return { subjectId: subjectIdOf(t.key), tier: t.tier };
  };
  return {
    comments: page.map((c) => ({
      id: c.id,
      author: getAddress(c.author_wallet),
      body: c.body,
      createdAt: c.created_at.toISOString(),
      position: positionOf(c.author_wallet),
      reputation: tagOf(c.author_wallet),
    })),
    nextCursor: fetched.length > p.limit ? page[page.length - 1]!.id : null,
  };
}

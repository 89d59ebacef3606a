// The updater's statements are key lookups over tables that grow to millions of rows. On PGlite the planner's statistics
// are only as fresh as the last upkeep pass (src/db/upkeep.ts: PGlite has no autovacuum), and with stale ones it can
// pick a sequential scan or a bitmap scan of every pending leg for a 2000-row batch; inside the updater's transactions
// index paths are made the only choice.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

export async function preferIndexes(trx: Transaction<DB>): Promise<void> {
  await sql`SET LOCAL enable_seqscan = off`.execute(trx);
  await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
}

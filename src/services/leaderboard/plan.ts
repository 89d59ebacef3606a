// The updater's statements are key lookups over tables that grow to millions of rows. PGlite keeps no planner
// statistics (it has no autovacuum), and without them the planner can pick a sequential scan or a bitmap scan of every
// pending leg for a 2000-row batch; inside the updater's transactions index paths are made the only choice.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

export async function preferIndexes(trx: Transaction<DB>): Promise<void> {
  await sql`SET LOCAL enable_seqscan = off`.execute(trx);
  await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
}

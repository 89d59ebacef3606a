// Listing search without pg_trgm: a database whose extension was dropped falls back to substring matching
// (and never calls similarity()). Runs on PGlite in memory, or on a fresh PostgreSQL database.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';
import { listMarkets } from '../../src/services/markets/listing/list-markets.ts';
import { hasTrigram } from '../../src/services/markets/listing/shared.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { bareMarketRow } from '../support/market-rows.ts';

let database: Database;
let url: string | undefined;

beforeAll(async () => {
  url = onPostgres ? await freshPostgresUrl() : undefined;
  database = url ? await openDatabase({ databaseUrl: url }) : await migratedPGlite();
  await migrateToLatest(database.db);
  await sql`DROP EXTENSION IF EXISTS pg_trgm CASCADE`.execute(database.db);
  for (const question of ['Ethereum ETF approved', 'Will Bitcoin close above $150,000?']) {
    await database.db.insertInto('markets').values(bareMarketRow({ chainId: 8453, question, category: 'CRYPTO' })).execute();
  }
});
afterAll(async () => {
  await database?.close();
  if (url) await dropPostgres(url);
});

describe('listing search without pg_trgm', () => {
  it('matches substrings only', async () => {
    expect(await hasTrigram(database.db)).toBe(false);
    const search = async (s: string) => (await listMarkets(database.db, { filter: { search: s }, sort: 'new', limit: 20, now: new Date() })).rows.map((r) => r.question);
    expect(await search('ETF APPROVED')).toEqual(['Ethereum ETF approved']);
    expect(await search('bitcoin')).toEqual(['Will Bitcoin close above $150,000?']);
    expect(await search('etherum etf aproved')).toEqual([]);
  });
});

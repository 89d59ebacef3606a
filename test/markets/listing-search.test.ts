// Listing search without pg_trgm: a database whose extension was dropped falls back to substring matching
// (and never calls similarity()). Runs on PGlite in memory, or on a fresh PostgreSQL database.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLS } from '../../src/core/markets/states.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';
import { hasTrigram, listMarkets } from '../../src/services/markets/listing.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';

let database: Database;
let url: string | undefined;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

beforeAll(async () => {
  url = onPostgres ? await freshPostgresUrl() : undefined;
  database = await openDatabase(url ? { databaseUrl: url } : { pgliteDir: 'memory://' });
  await migrateToLatest(database.db);
  await sql`DROP EXTENSION IF EXISTS pg_trgm CASCADE`.execute(database.db);
  const now = new Date();
  for (const question of ['Ethereum ETF approved', 'Will Bitcoin close above $150,000?']) {
    await database.db
      .insertInto('markets')
      .values({
        chain_id: 8453,
        address: hex(20),
        pricing_model: 'automated',
        factory: hex(20),
        creator: hex(20),
        collateral_token: hex(20),
        collateral_symbol: 'USDC',
        outcome_count: 2,
        question,
        description: null,
        category: 'CRYPTO',
        outcomes: JSON.stringify(['Yes', 'No']),
        resolution_source: null,
        external_id: null,
        question_hash: hex(32),
        close_time: new Date(now.getTime() + 86_400_000),
        resolve_by: new Date(now.getTime() + 4 * 86_400_000),
        resolution_window_seconds: 259_200,
        liquidity: 1_000_000_000n,
        bond: 10n ** 20n,
        subsidy: 693_147_181n,
        protocol_fee_bps: 100,
        creator_fee_bps: 100,
        state: 'open',
        controls: JSON.stringify(DEFAULT_CONTROLS),
        prices: JSON.stringify(['500000000000000000', '500000000000000000']),
        outstanding: JSON.stringify(['0', '0']),
        created_block: '1',
        created_block_hash: hex(32),
        created_tx: hex(32),
        created_at: now,
        updated_at: now,
      })
      .execute();
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

// The embedded database's own settings (src/db/index.ts PGLITE_SETTINGS, docs/operations.md "Embedded database
// upkeep"): in effect on a new database and on one reopened from its folder, whose postgresql.conf is left as it was.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { withDirectHost } from '../../src/cli/operator-host.ts';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { openConfiguredDatabase, openDatabase, type Database } from '../../src/db/index.ts';
import { blankPGlite } from '../support/pglite-template.ts';

const setting = async (database: Database, name: string) => (await sql<{ v: string }>`SELECT current_setting(${name}) AS v`.execute(database.db)).rows[0]!.v;

describe('embedded database settings', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-pglite-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates WAL segments without zero-filling them, and leaves postgresql.conf as it was', async () => {
    const database = await blankPGlite(path.join(dir, 'data'));
    const conf = () => readFileSync(path.join(dir, 'data', 'postgresql.conf'), 'utf8');
    try {
      expect(await setting(database, 'wal_init_zero')).toBe('off');
    } finally {
      await database.close();
    }
    const before = conf();
    expect(before).not.toMatch(/^\s*wal_init_zero/m);
    const reopened = await openDatabase({ pgliteDir: path.join(dir, 'data') });
    try {
      expect(await setting(reopened, 'wal_init_zero')).toBe('off');
      expect(await setting(reopened, 'random_page_cost')).toBe('1.1');
      // Everything else initdb chose still holds (the time zone, say).
      expect(await setting(reopened, 'TimeZone')).toBe(before.match(/^timezone = '?([^'\s#]+)/m)?.[1]);
    } finally {
      await reopened.close();
    }
    expect(conf()).toBe(before);
  });

  it('plans a kept lookup of a few keys in a table of thousands of rows as an index probe per key, not a scan of the table', async () => {
    const database = await blankPGlite();
    const { db } = database;
    const planOf = async (text: string) => (await sql<{ 'QUERY PLAN': string }>`${sql.raw(`EXPLAIN ${text}`)}`.execute(db)).rows.map((r) => r['QUERY PLAN']).join('\n');
    const prepare = async () => {
      await sql`PREPARE keys(text[], numeric[]) AS SELECT b.balance FROM balances b JOIN unnest($1::text[], $2::numeric[]) AS k (account, asset) ON b.account = k.account AND b.asset = k.asset`.execute(db);
      const plan = await planOf(`EXECUTE keys(ARRAY['a1'], ARRAY[1])`);
      await sql`DEALLOCATE keys`.execute(db);
      return plan;
    };
    try {
      // The plan a kept statement runs with once PostgreSQL settles on one for it (the order batch's statements do, with
      // arrays of a dozen keys or more), whatever keys it is given.
      await sql`SET plan_cache_mode = force_generic_plan`.execute(db);
      // The shape of the order batch's read of its owners' ledger balances (~1,800 rows in the order bench).
      await sql`CREATE TABLE balances (account text, asset numeric, balance numeric, PRIMARY KEY (account, asset))`.execute(db);
      await sql`INSERT INTO balances SELECT '0x' || lpad(to_hex(i), 40, '0'), i % 7, i * 1000000 FROM generate_series(1, 2000) i`.execute(db);
      await sql`ANALYZE balances`.execute(db);
      expect(await prepare()).toMatch(/Index Scan using balances_pkey/);
      // At PostgreSQL's default page costs (random_page_cost 4: a page read from disk at random) the same statement
      // hashes every row of the table, each time it runs.
      await sql`SET random_page_cost = 4`.execute(db);
      expect(await prepare()).toMatch(/Seq Scan on balances/);
    } finally {
      await database.close();
    }
  });

  it('a command that opens the database itself does so with 16 MB of shared buffers; the service with 128, or PGLITE_SHARED_BUFFERS_MB', async () => {
    const data = path.join(dir, 'command', 'pg');
    await (await blankPGlite(data)).close();
    const sharedBuffers = async (env: Record<string, string>) => {
      const config = loadConfig({ DATA_DIR: path.join(dir, 'command'), ...env });
      const inCommand = await withDirectHost(config, createLogger('silent'), systemClock, async (host) => setting({ db: await host.db() } as Database, 'shared_buffers'));
      const service = await openConfiguredDatabase(config.database);
      try {
        return { config: config.database, inCommand, service: await setting(service, 'shared_buffers') };
      } finally {
        await service.close();
      }
    };
    expect(await sharedBuffers({})).toEqual({ config: { kind: 'pglite', dir: data }, inCommand: '16MB', service: '128MB' });
    expect(await sharedBuffers({ PGLITE_SHARED_BUFFERS_MB: '24' })).toEqual({ config: { kind: 'pglite', dir: data, sharedBuffersMb: 24 }, inCommand: '16MB', service: '24MB' });
    for (const bad of ['0', '1.5', '64MB', '-1', '1025']) expect(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: bad }), bad).toThrow(/PGLITE_SHARED_BUFFERS_MB/);
    // PostgreSQL's own setting: nothing to give PGlite.
    expect(loadConfig({ DATABASE_URL: 'postgres://db/svc', PGLITE_SHARED_BUFFERS_MB: '24' }).database).toEqual({ kind: 'postgres', url: 'postgres://db/svc' });
  });
});

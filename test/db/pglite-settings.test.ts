// The embedded database's own settings (src/db/index.ts PGLITE_SETTINGS, docs/operations.md "Embedded database
// upkeep"): in effect on a new database and on one reopened from its folder, whose postgresql.conf is left as it was.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.ts';
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
      // Everything else initdb chose still holds (the time zone, say).
      expect(await setting(reopened, 'TimeZone')).toBe(before.match(/^timezone = '?([^'\s#]+)/m)?.[1]);
    } finally {
      await reopened.close();
    }
    expect(conf()).toBe(before);
  });
});

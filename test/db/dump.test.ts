// A PGlite database's dump (Database.dump, src/db/index.ts compactDump): every committed row, and of the write-ahead log
// only the segment in use, cut after the checkpoint a start reads from. A copy opened from it writes on past the cut, and
// a dump of that copy opens again with everything.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { blankPGlite, BytesBlob, TEST_PGLITE_SETTINGS } from '../support/pglite-template.ts';

/** The regular files of a tarball: name and size (ustar headers of 512 bytes, sizes in octal). */
function tarFiles(bytes: Uint8Array): Map<string, number> {
  const files = new Map<string, number>();
  const text = (from: number, length: number) => new TextDecoder().decode(bytes.subarray(from, from + length)).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= bytes.length; ) {
    const name = text(at, 100);
    if (!name) break;
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    if (text(at + 156, 1) === '0' || text(at + 156, 1) === '') files.set(name.replace(/^\//, ''), size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

const SEGMENT = 16 * 1024 * 1024;
const walSegments = (files: Map<string, number>) => [...files].filter(([name]) => /^pg_wal\/[0-9A-F]{24}$/.test(name));

async function dumpOf(database: Database): Promise<{ blob: BytesBlob; files: Map<string, number> }> {
  const bytes = new Uint8Array(await (await database.dump!()).arrayBuffer());
  return { blob: new BytesBlob(bytes), files: tarFiles(bytes) };
}

const open = (dump: BytesBlob) => openDatabase({ pgliteDir: 'memory://', pgliteDump: dump, pgliteSettings: TEST_PGLITE_SETTINGS });
const count = async (database: Database, where = sql`true`) => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM notes WHERE ${where}`.execute(database.db)).rows[0]!.n);

describe('a PGlite dump', () => {
  it('keeps every committed row and one log segment cut short, and a copy writes on past the cut and dumps again', async () => {
    const first = await blankPGlite();
    let second: Database | undefined;
    let third: Database | undefined;
    try {
      await sql`CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)`.execute(first.db);
      // A few MB of log, so that the segment in use is well past its first pages.
      await sql`INSERT INTO notes SELECT g, repeat(md5(g::text), 20) FROM generate_series(1, 5000) g`.execute(first.db);
      const a = await dumpOf(first);
      const segments = walSegments(a.files);
      expect(segments).toHaveLength(1);
      expect(segments[0]![1]).toBeLessThan(SEGMENT / 16);

      second = await open(a.blob);
      expect(await count(second)).toBe(5000);
      // Past the cut: more log than the kept pages, into the same segment and the next.
      await sql`INSERT INTO notes SELECT g, repeat(md5(g::text), 20) FROM generate_series(5001, 30000) g`.execute(second.db);
      await sql`UPDATE notes SET body = 'changed' WHERE id % 2 = 0`.execute(second.db);
      const b = await dumpOf(second);
      expect(walSegments(b.files)).toHaveLength(1);

      third = await open(b.blob);
      expect(await count(third)).toBe(30000);
      expect(await count(third, sql`body = 'changed'`)).toBe(15000);
    } finally {
      await third?.close();
      await second?.close();
      await first.close();
    }
  });
});

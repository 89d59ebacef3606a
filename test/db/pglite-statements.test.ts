// The PGlite dialect's kept (named prepared) statements (src/db/pglite-dialect.ts): a statement run again is the
// kept one; values and rows come out as PGlite's query() gives them; a schema change is never answered from a stale
// statement; errors keep their SQLSTATE and leave the session usable; at most 500 are kept.
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/index.ts';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';
import { blankPGlite, blankPGliteInstance } from '../support/pglite-template.ts';

/** A dialect of its own on a new empty PGlite session (for a test that also talks to the session behind its back). */
async function onOwnSession(run: (pglite: PGlite, own: Kysely<Record<string, never>>) => Promise<void>): Promise<void> {
  const pglite = await blankPGliteInstance();
  const own = new Kysely<Record<string, never>>({ dialect: new PGliteDialect({ database: pglite }) });
  try {
    await run(pglite, own);
  } finally {
    await own.destroy();
  }
}

describe('PGlite kept statements', () => {
  let database: Database;
  const db = () => database.db;
  const kept = async () => (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db())).rows.map((r) => r.statement);

  beforeAll(async () => {
    database = await blankPGlite();
    await sql`CREATE TABLE t (id int PRIMARY KEY, label text, amount numeric(78, 0), big bigint, doc jsonb, tags text[], at timestamptz, ok boolean)`.execute(db());
  });
  afterAll(async () => database?.close());

  it('keeps a statement once and runs it again with other values; values and rows are what query() gives', async () => {
    const at = new Date('2026-11-24T12:00:00.000Z');
    const insert = (id: number, label: string | null) =>
      sql`INSERT INTO t (id, label, amount, big, doc, tags, at, ok) VALUES (${id}, ${label}, ${'123456789012345678901234567890'}, ${9007199254740993n}, ${JSON.stringify({ a: [1, 'x'] })}, ${['p', 'q']}::text[], ${at}, ${true})`.execute(db());
    await insert(1, 'one');
    await insert(2, null);
    const select = (id: number) => sql<Record<string, unknown>>`SELECT * FROM t WHERE id = ${id}`.execute(db());
    const [one, two] = [(await select(1)).rows[0], (await select(2)).rows[0]];
    expect(one).toEqual({ id: 1, label: 'one', amount: '123456789012345678901234567890', big: '9007199254740993', doc: { a: [1, 'x'] }, tags: ['p', 'q'], at, ok: true });
    expect(two).toMatchObject({ id: 2, label: null });
    // Each text is kept once, whatever the values.
    const statements = await kept();
    expect(statements.filter((s) => s.startsWith('SELECT * FROM t WHERE id = $1'))).toHaveLength(1);
    expect(statements.filter((s) => s.startsWith('INSERT INTO t'))).toHaveLength(1);
    const updated = await sql`UPDATE t SET label = ${'uno'} WHERE id = ${1}`.execute(db());
    expect(updated.numAffectedRows).toBe(1n);
  });

  it('answers the new shape after a schema change, through the dialect or behind its back', async () => {
    const all = async () => (await sql<Record<string, unknown>>`SELECT * FROM t WHERE id = ${1}`.execute(db())).rows[0]!;
    expect(Object.keys(await all())).not.toContain('extra');
    await sql`ALTER TABLE t ADD COLUMN extra int DEFAULT 7`.execute(db());
    expect((await all()).extra).toBe(7);

    // On a session whose schema changes without the dialect seeing it: the kept statement is refused (its result type
    // changed) and prepared again.
    await onOwnSession(async (pglite, own) => {
      await pglite.exec('CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1)');
      const row = async () => (await sql<Record<string, unknown>>`SELECT * FROM u WHERE id = ${1}`.execute(own)).rows[0]!;
      expect(await row()).toEqual({ id: 1 });
      await pglite.exec('ALTER TABLE u ADD COLUMN later text DEFAULT \'x\'');
      expect(await row()).toEqual({ id: 1, later: 'x' });
    });
  });

  it('keeps the SQLSTATE of an error, and the session (or its transaction, once rolled back) goes on', async () => {
    const dup = await sql`INSERT INTO t (id) VALUES (${1})`.execute(db()).catch((err: unknown) => err);
    expect((dup as { code?: string }).code).toBe('23505');
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await sql`INSERT INTO t (id) VALUES (${50})`.execute(trx);
          await sql`INSERT INTO t (id) VALUES (${50})`.execute(trx);
        }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await sql<{ n: string }>`SELECT count(*)::text AS n FROM t WHERE id = ${50}`.execute(db())).rows[0]!.n).toBe('0');
    const bad = await sql`SELECT nope FROM t WHERE id = ${1}`.execute(db()).catch((err: unknown) => err);
    expect((bad as { code?: string }).code).toBe('42703');
    expect((await sql<{ id: number }>`SELECT id FROM t WHERE id = ${1}`.execute(db())).rows).toEqual([{ id: 1 }]);
  });

  it('writes and reads the protocol itself as PGlite does: every type, escapes, long answers, errors with their fields', async () => {
    // The kept path writes its binds and reads its answers itself (src/db/pglite-wire.ts); query() is PGlite's own.
    await onOwnSession(async (pglite, own) => {
      await pglite.exec(`CREATE TABLE w (id int PRIMARY KEY, label text UNIQUE, tags text[], nums numeric[], ids uuid[], doc jsonb, at timestamptz, ok boolean, raw bytea, f float8)`);
      const tags = ['plain', 'with "quotes"', 'back\\slash', 'comma, and {braces}', 'ünïcødé 🎲', '', 'NULL'];
      const label = 'x "y" \\ z';
      const doc = { a: [1, 'é'], b: null };
      const at = new Date('2026-12-02T03:04:05.678Z');
      const insert = (id: number, l: string) =>
        sql`INSERT INTO w (id, label, tags, nums, ids, doc, at, ok, raw, f) VALUES (${id}, ${l}, ${tags}, ${['1', '-2.5', '340282366920938463463374607431768211456']},
          ${['3f1c2d4e-0000-4000-8000-000000000001']}, ${JSON.stringify(doc)}, ${at}, ${false}, ${Uint8Array.of(0, 1, 254, 255)}, ${1.5})`.execute(own);
      expect((await insert(1, label)).numAffectedRows).toBe(1n);
      const theirs = await pglite.query<Record<string, unknown>>(`SELECT * FROM w WHERE id = $1`, [1]);
      const ours = await sql<Record<string, unknown>>`SELECT * FROM w WHERE id = ${1}`.execute(own);
      expect(ours.rows).toEqual(theirs.rows);
      expect(ours.rows[0]).toMatchObject({ tags, label, doc, at, ok: false, f: 1.5 });
      // An answer of many rows (the backend hands it over in several chunks).
      const many = await sql<{ n: number; s: string }>`SELECT n, repeat('é', 200) || n AS s FROM generate_series(1, ${20_000}::int) AS n`.execute(own);
      expect(many.rows).toHaveLength(20_000);
      expect(many.rows[19_999]).toEqual({ n: 20_000, s: `${'é'.repeat(200)}20000` });
      // A unique violation keeps PGlite's error fields.
      const dup = await insert(2, label).catch((err: unknown) => err);
      const theirDup = await pglite.query(`INSERT INTO w (id, label) VALUES (3, $1)`, [label]).catch((err: unknown) => err);
      for (const field of ['message', 'code', 'severity', 'detail', 'schema', 'table', 'constraint', 'routine']) expect((dup as Record<string, unknown>)[field]).toEqual((theirDup as Record<string, unknown>)[field]);
      expect(dup).toMatchObject({ code: '23505', constraint: 'w_label_key' });
      // The session goes on.
      expect((await sql<{ n: string }>`SELECT count(*)::text AS n FROM w WHERE id > ${0}`.execute(own)).rows).toEqual([{ n: '1' }]);
    });
  });

  it("sends transaction control as one Query message, not through PGlite's query(); a rollback and a savepoint still work", async () => {
    await onOwnSession(async (pglite, own) => {
      await pglite.exec(`CREATE TABLE c (id int PRIMARY KEY)`);
      const query = pglite.query.bind(pglite);
      const viaQuery: string[] = [];
      pglite.query = ((text: string, ...rest: unknown[]) => (viaQuery.push(text), query(text, ...(rest as [])))) as typeof pglite.query;
      const trx = await own.startTransaction().execute();
      await sql`INSERT INTO c (id) VALUES (${1})`.execute(trx);
      const saved = await trx.savepoint('s1').execute();
      await sql`INSERT INTO c (id) VALUES (${3})`.execute(saved);
      await (await saved.rollbackToSavepoint('s1').execute()).commit().execute();
      await own.transaction().execute(async (trx) => {
        await sql`INSERT INTO c (id) VALUES (${2})`.execute(trx);
        throw new Error('roll it back');
      }).catch(() => undefined);
      expect(viaQuery.filter((text) => /^\s*(begin|commit|rollback|savepoint|release)\b/i.test(text))).toEqual([]);
      expect((await sql<{ id: number }>`SELECT id FROM c WHERE id > ${0} ORDER BY id`.execute(own)).rows).toEqual([{ id: 1 }]);
      expect(pglite.isInTransaction()).toBe(false);
    });
  });

  it("sends a transaction's BEGIN with its first statement, in the same call into the backend", async () => {
    await onOwnSession(async (pglite, own) => {
      await pglite.exec(`CREATE TABLE b (id int PRIMARY KEY)`);
      const raw = pglite.execProtocolRawStream.bind(pglite);
      let calls = 0;
      pglite.execProtocolRawStream = ((...args: Parameters<typeof raw>) => (calls++, raw(...args))) as typeof raw;
      const insert = (id: number, on: Kysely<Record<string, never>> = own) => sql`INSERT INTO b (id) VALUES (${id})`.execute(on);
      const ids = async () => (await sql<{ id: number }>`SELECT id FROM b WHERE id > ${0} ORDER BY id`.execute(own)).rows.map((r) => r.id);
      await insert(1); // kept from now on
      await ids();

      // BEGIN + INSERT in one call, COMMIT in another (three calls before).
      calls = 0;
      await own.transaction().execute((trx) => insert(2, trx));
      expect(calls).toBe(2);
      // A transaction that ran nothing was never begun: no call at all, and the session is not left in a transaction.
      calls = 0;
      await own.transaction().execute(async () => undefined);
      expect(calls).toBe(0);
      expect(pglite.isInTransaction()).toBe(false);

      // A statement through PGlite's own query() (DDL) still runs inside: the rollback undoes it.
      await own
        .transaction()
        .execute(async (trx) => {
          await sql`CREATE TABLE gone (id int)`.execute(trx);
          await insert(3, trx);
          throw new Error('roll it back');
        })
        .catch(() => undefined);
      expect((await pglite.query(`SELECT to_regclass('gone') AS t`)).rows).toEqual([{ t: null }]);
      // Two statements at once, the first of them new (prepared in an exchange of its own before it runs): both inside.
      await own
        .transaction()
        .execute(async (trx) => {
          await Promise.all([sql`INSERT INTO b (id) SELECT ${4}::int`.execute(trx), insert(5, trx)]);
          throw new Error('roll it back');
        })
        .catch(() => undefined);
      // A failing first statement: the transaction rolls back and the session goes on.
      await expect(own.transaction().execute((trx) => insert(1, trx))).rejects.toMatchObject({ code: '23505' });
      expect(pglite.isInTransaction()).toBe(false);
      expect(await ids()).toEqual([1, 2]);
    });
  });

  it('keeps at most 500 statements, closing the least recently used', async () => {
    for (let i = 0; i < 520; i++) await sql`SELECT ${sql.raw(String(i))} AS n, ${1}::int AS one`.execute(db());
    const statements = await kept();
    expect(statements.length).toBeLessThanOrEqual(500);
    expect(statements).toContain('SELECT 519 AS n, $1::int AS one');
    expect(statements).not.toContain('SELECT 0 AS n, $1::int AS one');
  });
});

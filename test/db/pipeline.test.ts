// Pipelined statements (src/db/pipeline.ts) and constant-text rows (src/db/unnest.ts) on both back ends: a pipeline's
// statements run in order, each seeing what the ones before it did, and are answered in order; a failure fails the call
// and the transaction; a transaction whose BEGIN went out unanswered (PostgreSQL) still rolls back and commits as one.
// PGlite runs a pipeline of kept statements in one exchange; on PostgreSQL the statements of one tick leave in one
// write, a transaction's BEGIN leaves in the write of its first statement (none for a transaction that sends nothing),
// and a hot statement is prepared once per connection, and again after a schema change refused it.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/index.ts';
import { SvcPgClient } from '../../src/db/pg-client.ts';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';
import { deferStep, pipelined, pipeliningDialect, runSteps, type Step } from '../../src/db/pipeline.ts';
import { jsonRows, unnestRows } from '../../src/db/unnest.ts';
import { blankPGliteInstance } from '../support/pglite-template.ts';
import { backends, type Backend } from './backends.ts';

type Loose = Kysely<DB> & Kysely<Record<string, Record<string, unknown>>>;

for (const b of await backends()) {
  describe.skipIf(b.skip)(`pipelines on ${b.name}`, () => {
    let backend: Backend;
    let db: Loose;
    let close: () => Promise<void>;
    beforeAll(async () => {
      backend = b.make();
      const database = await backend.fresh();
      db = database.db as Loose;
      close = () => backend.cleanup();
      await sql`CREATE TABLE p (id int PRIMARY KEY, label text)`.execute(db);
    });
    afterAll(async () => close?.());

    it('runs the statements in order, each seeing the ones before it, and answers them in order', async () => {
      const answers = await db.transaction().execute(async (trx) => {
        const insert = (id: number): Step<void> => ({ query: sql`INSERT INTO p (id, label) VALUES (${id}, ${`n${id}`})`.compile(trx), read: () => undefined });
        const count: Step<number> = { query: sql`SELECT count(*)::int AS n FROM p`.compile(trx), read: ({ rows }) => rows[0]!.n as number };
        return runSteps(trx, [insert(1), count, insert(2), null, count] as const);
      });
      expect(answers).toEqual([undefined, 1, undefined, undefined, 2]);
      expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM p`.execute(db)).rows[0]!.n).toBe(2);
    });

    it('a failing statement fails the call with its error, and nothing of the transaction stays', async () => {
      const attempt = db.transaction().execute(async (trx) =>
        pipelined(trx, [sql`INSERT INTO p (id, label) VALUES (10, 'ten')`.compile(trx), sql`INSERT INTO p (id, label) VALUES (1, 'again')`.compile(trx), sql`SELECT 1`.compile(trx)]).then((outcomes) => {
          expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected'].map((s, i) => (b.name === 'pglite' && i === 0 ? 'rejected' : s)));
          const failed = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
          throw failed.reason;
        }),
      );
      await expect(attempt).rejects.toMatchObject({ code: '23505' });
      expect((await sql`SELECT id FROM p WHERE id = 10`.execute(db)).rows).toEqual([]);
      // The connection is usable afterwards.
      expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM p`.execute(db)).rows[0]!.n).toBe(2);
    });

    it('a transaction rolls back what its first statement wrote, and an empty one commits', async () => {
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`INSERT INTO p (id, label) VALUES (20, 'twenty')`.execute(trx);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await sql`SELECT id FROM p WHERE id = 20`.execute(db)).rows).toEqual([]);
      await db.transaction().execute(async () => undefined);
      await db.transaction().execute(async (trx) => sql`INSERT INTO p (id, label) VALUES (21, 'twenty-one')`.execute(trx));
      expect((await sql`SELECT label FROM p WHERE id = 21`.execute(db)).rows).toEqual([{ label: 'twenty-one' }]);
    });

    it('a deferred step goes first in the next pipeline; when the pipeline fails it is told why', async () => {
      const seen = await db.transaction().execute(async (trx) => {
        let read = 0;
        deferStep(trx, () => ({ query: sql`INSERT INTO p (id, label) VALUES (30, 'deferred')`.compile(trx), read: () => void read++ }));
        const [labels] = await runSteps(trx, [{ query: sql`SELECT label FROM p WHERE id = 30`.compile(trx), read: ({ rows }) => rows }] as const);
        return { read, labels };
      });
      expect(seen).toEqual({ read: 1, labels: [{ label: 'deferred' }] });
      const told: unknown[] = [];
      await expect(
        db.transaction().execute(async (trx) => {
          deferStep(trx, () => ({ query: sql`INSERT INTO p (id, label) VALUES (30, 'twice')`.compile(trx), read: () => undefined, failed: (reason) => void told.push(reason) }));
          await runSteps(trx, [{ query: sql`SELECT 1`.compile(trx), read: () => undefined }] as const);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(told).toEqual([expect.objectContaining({ code: '23505' })]);
    });

    it('rows through unnest come back as they went in, whatever their characters, with NULLs', async () => {
      const tricky = ['plain', 'with "quotes"', 'back\\slash', 'comma, brace } {', "it's", 'ünïcødé ✓', '{"json": [1, "x"]}', '', 'NULL'];
      const rows = tricky.map((t, i) => [i, t, i % 3 === 0 ? null : new Date(Date.UTC(2026, 10, 24, 12, 0, i))]);
      const { rows: back } = await sql<{ n: number; t: string; at: Date | null }>`SELECT u.n::int AS n, u.t, u.at::timestamptz AS at FROM ${unnestRows('u', ['n', 't', 'at'], rows)} ORDER BY 1`.execute(db);
      expect(back).toEqual(rows.map(([n, t, at]) => ({ n, t, at })));
      // The statement's text is the same for any number of rows.
      const text = (n: number) => sql`SELECT * FROM ${unnestRows('u', ['a'], Array.from({ length: n }, (_, i) => [i]))}`.compile(db).sql;
      expect(text(1)).toBe(text(50));
    });

    it("rows through jsonRows come back in their columns' types, whatever their characters, one text for any count", async () => {
      await sql`CREATE TABLE j (id int PRIMARY KEY, big bigint, amount numeric(78, 0), label text, at timestamptz, day date, doc jsonb, ok boolean)`.execute(db);
      const at = new Date(Date.UTC(2026, 10, 24, 12, 0, 0, 123));
      const rows = [
        { id: 1, big: 9007199254740993n, amount: '123456789012345678901234567890', label: 'with "quotes", \\ and ünïcødé ✓', at, day: '2026-12-01', doc: { a: [1, 'x'], b: null }, ok: true },
        { id: 2, big: null, amount: null, label: null, at: null, day: null, doc: null, ok: false },
        // A column a row leaves out reads NULL.
        { id: 3 },
      ];
      await sql`INSERT INTO j (id, big, amount, label, at, day, doc, ok) SELECT id, big, amount, label, at, day, doc, ok FROM ${jsonRows('j', rows)}`.execute(db);
      const { rows: back } = await sql<Record<string, unknown>>`SELECT * FROM j ORDER BY id`.execute(db);
      expect(back).toEqual([
        { id: 1, big: '9007199254740993', amount: '123456789012345678901234567890', label: 'with "quotes", \\ and ünïcødé ✓', at, day: '2026-12-01', doc: { a: [1, 'x'], b: null }, ok: true },
        { id: 2, big: null, amount: null, label: null, at: null, day: null, doc: null, ok: false },
        { id: 3, big: null, amount: null, label: null, at: null, day: null, doc: null, ok: null },
      ]);
      const text = (n: number) => sql`SELECT * FROM ${jsonRows('j', Array.from({ length: n }, (_, i) => ({ id: i })))}`.compile(db).sql;
      expect(text(1)).toBe(text(50));
    });

  });
}

describe('PGlite pipelines', () => {
  it('runs a pipeline of kept statements in one exchange with the backend', async () => {
    const pglite = await blankPGliteInstance();
    const db = new Kysely<DB>({ dialect: pipeliningDialect(new PGliteDialect({ database: pglite }), { concurrent: false }) });
    try {
      const statements = () => [1, 2, 3, 4, 5].map((i) => sql`SELECT ${i}::int + 1 AS n`.compile(db));
      // Prepared (kept) by their first run; counted from the second.
      await db.connection().execute(async (conn) => pipelined(conn, statements()));
      // A kept statement's run goes to the backend raw (src/db/pglite-wire.ts); its preparation through PGlite's own parser.
      const exchange = pglite.execProtocolRawStream.bind(pglite);
      const prepare = pglite.execProtocolStream.bind(pglite);
      let exchanges = 0;
      pglite.execProtocolRawStream = ((...args: Parameters<typeof exchange>) => (exchanges++, exchange(...args))) as typeof pglite.execProtocolRawStream;
      pglite.execProtocolStream = ((...args: Parameters<typeof prepare>) => (exchanges++, prepare(...args))) as typeof pglite.execProtocolStream;
      const outcomes = await db.connection().execute(async (conn) => pipelined(conn, statements()));
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0] : o.reason))).toEqual([2, 3, 4, 5, 6].map((n) => ({ n })));
      expect(exchanges).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});

const postgres = (await backends()).find((b) => b.name === 'postgres' && !b.skip);

describe.skipIf(!postgres)('the PostgreSQL client (SvcPgClient)', () => {
  let backend: Backend;
  let url: string;
  beforeAll(async () => {
    backend = postgres!.make();
    url = await backend.freshUrl();
  });
  afterAll(async () => backend?.cleanup());

  /** A connected client of `Client`, with a count of the writes its socket made. */
  async function connected(Client: typeof pg.Client): Promise<{ client: pg.Client; writes: () => number }> {
    const client = new Client({ connectionString: url, pipeline: true } as pg.ClientConfig);
    await client.connect();
    const stream = (client as unknown as { connection: { stream: { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void } } }).connection.stream;
    let writes = 0;
    const [write, writev] = [stream._write.bind(stream), stream._writev?.bind(stream)];
    stream._write = (...a: unknown[]) => (writes++, write(...a));
    if (writev) stream._writev = (...a: unknown[]) => (writes++, writev(...a));
    return { client, writes: () => writes };
  }

  it('sends the statements of one tick in one write (a plain client writes each)', async () => {
    for (const [Client, expected] of [
      [SvcPgClient, 1],
      [pg.Client, 5],
    ] as const) {
      const { client, writes } = await connected(Client);
      try {
        const before = writes();
        const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => client.query('SELECT $1::int AS n', [i])));
        expect(answers.map((a) => a.rows[0].n)).toEqual([1, 2, 3, 4, 5]);
        expect(writes() - before).toBe(expected);
      } finally {
        await client.end();
      }
    }
  });

  it("sends a transaction's BEGIN in the write of its first statement, and nothing for a transaction that sends none", async () => {
    // The service's stack over one connection: pipelining in front of Kysely's PostgreSQL dialect, SvcPgClient under it.
    const pool = new pg.Pool({ connectionString: url, max: 1, pipeline: true, Client: SvcPgClient } as pg.PoolConfig);
    let writes = 0;
    pool.on('connect', (client) => {
      const stream = (client as unknown as { connection: { stream: { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void } } }).connection.stream;
      const [write, writev] = [stream._write.bind(stream), stream._writev?.bind(stream)];
      stream._write = (...a: unknown[]) => (writes++, write(...a));
      if (writev) stream._writev = (...a: unknown[]) => (writes++, writev(...a));
    });
    const db = new Kysely<DB>({ dialect: pipeliningDialect(new PostgresDialect({ pool }), { concurrent: true }) });
    try {
      await sql`SELECT 1`.execute(db); // connected
      const inTransaction = async (statements: number) => {
        const before = writes;
        const seen = await db.transaction().execute(async (trx) => {
          // A batch's first statements are built a turn after its BEGIN; they leave with it all the same.
          await new Promise<void>((resolve) => setImmediate(resolve));
          const ids: string[] = [];
          for (let i = 0; i < statements; i++) ids.push((await sql<{ x: string }>`SELECT pg_current_xact_id()::text AS x`.execute(trx)).rows[0]!.x);
          return ids;
        });
        // Every statement ran in the one transaction.
        return { writes: writes - before, transactions: new Set(seen).size };
      };
      // BEGIN with the first statement, the second alone, then the COMMIT.
      expect(await inTransaction(2)).toEqual({ writes: 3, transactions: 1 });
      expect(await inTransaction(0)).toEqual({ writes: 0, transactions: 0 });
      // A callback that throws before any statement rolls back nothing on the server, and the connection serves on.
      const before = writes;
      await expect(db.transaction().execute(async () => Promise.reject(new Error('refused before any statement')))).rejects.toThrow('refused before any statement');
      expect(writes - before).toBe(0);
      expect(await inTransaction(1)).toEqual({ writes: 2, transactions: 1 });
    } finally {
      await db.destroy();
    }
  });

  it('keeps a hot statement prepared, and prepares it again after a schema change refused it (0A000)', async () => {
    const { client } = await connected(SvcPgClient);
    try {
      await client.query('CREATE TABLE h (id int)');
      await client.query('INSERT INTO h VALUES (1)');
      const text = 'SELECT * FROM h WHERE id = $1';
      for (let i = 0; i < 4; i++) expect((await client.query(text, [1])).rows).toEqual([{ id: 1 }]);
      const prepared = async () => (await client.query('SELECT name FROM pg_prepared_statements')).rows.map((r: { name: string }) => r.name);
      expect((await prepared()).filter((n) => n.startsWith('svc_'))).toHaveLength(1);
      await client.query('ALTER TABLE h ADD COLUMN label text');
      await expect(client.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
      // Run unnamed until it is hot again, then prepared under a new name.
      for (let i = 0; i < 4; i++) expect((await client.query(text, [1])).rows).toEqual([{ id: 1, label: null }]);
      expect((await prepared()).filter((n) => n.startsWith('svc_'))).toHaveLength(2);
    } finally {
      await client.end();
    }
  });
});

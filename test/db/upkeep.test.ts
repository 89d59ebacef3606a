// The embedded database's upkeep (src/db/upkeep.ts): a pass analyzes the tables that changed enough since their last
// analyze, which makes a kept statement planned on a small table plan again (a seq scan becomes an index scan), vacuums
// the tables with enough dead rows, freezes the tables past the freeze age, and leaves the others alone. PostgreSQL's
// autovacuum does this there, and only the growth check runs (shared): a table that doubled before autovacuum's next look
// is analyzed by one process at a time.
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type DB } from '../../src/db/index.ts';
import pg from 'pg';
import { GROWTH_ANALYZE_LOCK, STATISTICS_TARGET, upkeepPass } from '../../src/db/upkeep.ts';
import { findPostgres, pgliteBackend, postgresBackend, type Backend } from './backends.ts';

const planOf = async (db: Kysely<DB>, text: string): Promise<string> =>
  (await sql<{ 'QUERY PLAN': string }>`${sql.raw(`EXPLAIN ${text}`)}`.execute(db)).rows.map((r) => r['QUERY PLAN']).join('\n');

const countersOf = async (db: Kysely<DB>, table: string) => {
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ dead: string; modified: string; analyzed: Date | null; vacuumed: Date | null }>`
    SELECT n_dead_tup::text AS dead, n_mod_since_analyze::text AS modified, last_analyze AS analyzed, last_vacuum AS vacuumed
      FROM pg_stat_user_tables WHERE relname = ${table}`.execute(db);
  return rows[0]!;
};

describe('embedded database upkeep', () => {
  let backend: Backend;
  let db: Kysely<DB>;
  beforeAll(async () => {
    backend = pgliteBackend();
    db = (await backend.fresh()).db;
  });
  afterAll(async () => backend?.cleanup());

  it('analyzes a grown table, and a statement kept since it was small plans again', async () => {
    // At PostgreSQL's default page costs (the embedded database's own, random_page_cost=1.1, plans this shape as an index
    // scan even on twenty rows: pglite-settings.test.ts), so the plan kept since the table was small is a scan.
    await sql`SET random_page_cost = 4`.execute(db);
    await sql`CREATE TABLE claims (principal text, k text, state text, PRIMARY KEY (principal, k))`.execute(db);
    await sql`INSERT INTO claims SELECT 'p' || i, 'k' || i, 'done' FROM generate_series(1, 20) i`.execute(db);
    await upkeepPass(db);
    // The shape of the idempotency service's grouped update, kept while the table is small: after five runs PostgreSQL
    // keeps one generic plan for it, made for twenty rows.
    await sql`PREPARE mark(text[], text[]) AS UPDATE claims SET state = 'x' FROM unnest($1::text[], $2::text[]) AS v(p, k) WHERE claims.principal = v.p AND claims.k = v.k`.execute(db);
    for (let i = 0; i < 8; i++) await sql`EXECUTE mark(ARRAY['p1', 'p2'], ARRAY['k1', 'k2'])`.execute(db);
    await sql`INSERT INTO claims SELECT 'p' || i, 'k' || i, 'done' FROM generate_series(21, 30000) i`.execute(db);
    expect(await planOf(db, `EXECUTE mark(ARRAY['p1'], ARRAY['k1'])`)).toMatch(/Seq Scan on claims/);

    const pass = await upkeepPass(db);
    expect(pass.analyzed).toContain('public.claims');
    expect((await countersOf(db, 'claims')).modified).toBe('0');
    // From a sample of 3,000 rows (STATISTICS_TARGET 10: a histogram of 11 bounds), not 30,000 (101): a shorter pause.
    const { rows: stats } = await sql<{ bounds: number }>`SELECT array_length(histogram_bounds, 1) AS bounds FROM pg_stats WHERE tablename = 'claims' AND attname = 'principal'`.execute(db);
    expect(stats[0]!.bounds).toBe(STATISTICS_TARGET + 1);
    const plan = await planOf(db, `EXECUTE mark(ARRAY['p1'], ARRAY['k1'])`);
    expect(plan).not.toMatch(/Seq Scan on claims/);
    expect(plan).toMatch(/Index Scan using claims_pkey/);
    await sql`DEALLOCATE mark`.execute(db);
    await sql`RESET random_page_cost`.execute(db);
  });

  it('checks growth between passes: analyzes a table that doubled since its last analyze, and nothing else', async () => {
    await sql`SET random_page_cost = 4`.execute(db);
    await sql`CREATE TABLE grown (id int PRIMARY KEY, v int)`.execute(db);
    await sql`CREATE TABLE slow (id int PRIMARY KEY, v int)`.execute(db);
    await sql`INSERT INTO grown SELECT i, 0 FROM generate_series(1, 1000) i`.execute(db);
    await sql`INSERT INTO slow SELECT i, 0 FROM generate_series(1, 1000) i`.execute(db);
    const first = await upkeepPass(db);
    expect(first.analyzed).toEqual(expect.arrayContaining(['public.grown', 'public.slow']));
    await sql`PREPARE probe(int[]) AS UPDATE grown SET v = v + 1 FROM unnest($1::int[]) AS u(id) WHERE grown.id = u.id`.execute(db);
    for (let i = 0; i < 8; i++) await sql`EXECUTE probe(ARRAY[1, 2])`.execute(db);
    // grown: 1,000 → 30,000 rows (past 2 × 1,000 + 500); slow: 1,000 → 1,400 (what the full pass would analyze, 10 %
    // past 50, but not doubled) and 400 dead rows (what it would vacuum).
    await sql`INSERT INTO grown SELECT i, 0 FROM generate_series(1001, 30000) i`.execute(db);
    await sql`INSERT INTO slow SELECT i, 0 FROM generate_series(1001, 1400) i`.execute(db);
    await sql`UPDATE slow SET v = 1 WHERE id <= 400`.execute(db);
    expect(await planOf(db, `EXECUTE probe(ARRAY[1])`)).toMatch(/Seq Scan on grown/);

    const check = await upkeepPass(db, { growthOnly: true });
    expect(check).toEqual({ analyzed: ['public.grown'], vacuumed: [], frozen: [] });
    expect(await planOf(db, `EXECUTE probe(ARRAY[1])`)).toMatch(/Index Scan using grown_pkey/);
    expect(Number((await countersOf(db, 'slow')).dead)).toBeGreaterThanOrEqual(400);
    // Nothing doubled since: the check reads the counters and does nothing.
    expect(await upkeepPass(db, { growthOnly: true })).toEqual({ analyzed: [], vacuumed: [], frozen: [] });
    const full = await upkeepPass(db);
    expect(full.analyzed).toContain('public.slow');
    expect(full.vacuumed).toContain('public.slow');
    await sql`DEALLOCATE probe`.execute(db);
    await sql`RESET random_page_cost`.execute(db);
  });

  it('vacuums a table whose dead rows pass the threshold, and leaves a quiet table alone', async () => {
    await sql`CREATE TABLE balances (id int PRIMARY KEY, amount numeric)`.execute(db);
    await sql`CREATE TABLE quiet (id int PRIMARY KEY)`.execute(db);
    await sql`INSERT INTO balances SELECT i, 0 FROM generate_series(1, 1000) i`.execute(db);
    await sql`INSERT INTO quiet SELECT i FROM generate_series(1, 10) i`.execute(db);
    await upkeepPass(db);
    const quietBefore = await countersOf(db, 'quiet');
    for (let round = 0; round < 3; round++) await sql`UPDATE balances SET amount = amount + 1`.execute(db);
    expect(Number((await countersOf(db, 'balances')).dead)).toBeGreaterThan(250);

    const pass = await upkeepPass(db);
    expect(pass.vacuumed).toContain('public.balances');
    const after = await countersOf(db, 'balances');
    expect(after.dead).toBe('0');
    expect(after.vacuumed).not.toBeNull();
    expect(pass.vacuumed).not.toContain('public.quiet');
    expect(pass.analyzed).not.toContain('public.quiet');
    expect(await countersOf(db, 'quiet')).toEqual(quietBefore);
  });

  it('freezes the tables older than the freeze age, system catalogs included', async () => {
    const ageOf = async () => Number((await sql<{ age: string }>`SELECT age(relfrozenxid)::text AS age FROM pg_class WHERE relname = 'balances'`.execute(db)).rows[0]!.age);
    const before = await ageOf();
    expect(before).toBeGreaterThan(0);
    // An age of 0 makes every table old enough.
    const pass = await upkeepPass(db, { freezeAge: 0 });
    expect(pass.frozen).toContain('public.balances');
    expect(pass.frozen).toContain('pg_catalog.pg_class');
    expect(await ageOf()).toBeLessThan(before);
    expect(pass.vacuumed).not.toContain('public.balances');
  });
});

const adminUrl = await findPostgres();

describe.skipIf(!adminUrl)('the growth check on PostgreSQL (shared)', () => {
  let backend: Backend;
  let db: Kysely<DB>;
  let url: string;
  let database: Database;
  const clients: pg.Client[] = [];
  const client = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    backend = postgresBackend(adminUrl!);
    url = await backend.freshUrl();
    // The service's own pool (its client keeps hot statements prepared), on the database the clients below write to.
    database = await openDatabase({ databaseUrl: url });
    db = database.db;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await database?.close();
    await backend?.cleanup();
  });

  it('analyzes a table that doubled before autovacuum looked, and a statement another connection kept plans again', async () => {
    const writer = await client();
    // Out of autovacuum's reach, so that only the check analyzes it (autovacuum could look in between).
    await writer.query('CREATE TABLE grown (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false)');
    await writer.query('INSERT INTO grown SELECT i, 0 FROM generate_series(1, 20) i');
    await writer.query('ANALYZE grown');
    // The pool's shape (pg-client.ts keeps hot statements prepared): a generic plan kept since the table held twenty rows.
    await writer.query('PREPARE probe(int[]) AS UPDATE grown SET v = v + 1 FROM unnest($1::int[]) AS u(id) WHERE grown.id = u.id');
    for (let i = 0; i < 8; i++) await writer.query('EXECUTE probe(ARRAY[1, 2])');
    await writer.query('INSERT INTO grown SELECT i, 0 FROM generate_series(21, 30000) i');
    await writer.query('SELECT pg_stat_force_next_flush()'); // its counters published as it goes idle (else within a second)
    const plan = async () => (await writer.query('EXPLAIN EXECUTE probe(ARRAY[1])')).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    expect(await plan()).toMatch(/Seq Scan on grown/);

    const check = await upkeepPass(db, { growthOnly: true, shared: true });
    expect(check).toEqual({ analyzed: ['public.grown'], vacuumed: [], frozen: [] });
    expect(await plan()).toMatch(/Index Scan using grown_pkey/);
    // At the server's statistics target (100: a histogram of up to 101 bounds), not the embedded database's 10.
    const { rows } = await sql<{ bounds: number }>`SELECT array_length(histogram_bounds, 1) AS bounds FROM pg_stats WHERE tablename = 'grown' AND attname = 'id'`.execute(db);
    expect(rows[0]!.bounds).toBe(101);
    expect(await upkeepPass(db, { growthOnly: true, shared: true })).toEqual({ analyzed: [], vacuumed: [], frozen: [] });
  });

  it('leaves a table to the process that is analyzing it, and analyzes it once that one is done', async () => {
    const writer = await client();
    await writer.query('CREATE TABLE busy (id int PRIMARY KEY) WITH (autovacuum_enabled = false)');
    await writer.query('INSERT INTO busy SELECT i FROM generate_series(1, 5000) i');
    await writer.query('SELECT pg_stat_force_next_flush()');
    const other = await client();
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [GROWTH_ANALYZE_LOCK, '"public"."busy"']);
    expect((await upkeepPass(db, { growthOnly: true, shared: true })).analyzed).not.toContain('public.busy');
    await other.query('COMMIT');
    expect((await upkeepPass(db, { growthOnly: true, shared: true })).analyzed).toEqual(['public.busy']);
  });

  it('runs only the growth check: a full pass on a shared database is refused', async () => {
    await expect(upkeepPass(db, { shared: true })).rejects.toThrow(/only the growth check/);
  });
});

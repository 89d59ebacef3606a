// Test helper: the database back ends every db suite runs against (PGlite in memory, and PostgreSQL
// when a server answers), each test file getting its own fresh databases that are dropped afterwards.
import { randomBytes } from 'node:crypto';
import { Migrator, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { migrateToLatest, openDatabase, type Database, type DB } from '../../src/db/index.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { blankPGlite } from '../support/pglite-template.ts';

/** DATABASE_URL if set, else the local trust-auth server. */
export const POSTGRES_ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Resolves to the admin URL if PostgreSQL answers within a few seconds, else undefined. */
export async function findPostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return POSTGRES_ADMIN_URL;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function admin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface Backend {
  kind: 'pglite' | 'postgres';
  /** Opens a new, empty database (PGlite: in memory; PostgreSQL: a new `svc_test_*` database). */
  fresh(): Promise<Database>;
  /** A URL for a new empty PostgreSQL database (PostgreSQL only), for tests that open it themselves. */
  freshUrl(): Promise<string>;
  /** Closes everything fresh() opened and drops every database this backend created. */
  cleanup(): Promise<void>;
}

export function pgliteBackend(): Backend {
  const opened: Database[] = [];
  return {
    kind: 'pglite',
    async fresh() {
      const database = await blankPGlite();
      opened.push(database);
      return database;
    },
    async freshUrl() {
      throw new Error('freshUrl is PostgreSQL-only');
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((d) => d.close()));
    },
  };
}

export function postgresBackend(adminUrl: string): Backend {
  const opened: Database[] = [];
  const created: string[] = [];
  const freshUrl = async (): Promise<string> => {
    const name = `svc_test_${randomBytes(6).toString('hex')}`;
    await admin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
    created.push(name);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    kind: 'postgres',
    freshUrl,
    async fresh() {
      const database = await openDatabase({ databaseUrl: await freshUrl() });
      opened.push(database);
      return database;
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((d) => d.close()));
      const names = created.splice(0);
      if (names.length === 0) return;
      await admin(adminUrl, async (c) => {
        // FORCE: a test that failed midway may have left a connection open.
        for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      });
    },
  };
}

/** The back ends to loop over; PostgreSQL is listed with `skip` set when no server answers. */
export async function backends(): Promise<Array<{ name: string; skip: boolean; make: () => Backend }>> {
  const adminUrl = await findPostgres();
  return [
    { name: 'pglite', skip: false, make: pgliteBackend },
    {
      name: adminUrl ? 'postgres' : `postgres (SKIPPED: no server at ${new URL(POSTGRES_ADMIN_URL).host})`,
      skip: adminUrl === undefined,
      make: () => postgresBackend(adminUrl ?? POSTGRES_ADMIN_URL),
    },
  ];
}

/** A fresh database of `backend` migrated up to and including the migration `name` (a migration's own test starts there). */
export async function migratedTo(backend: Backend, name: string): Promise<Kysely<unknown>> {
  const { db } = await backend.fresh();
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(name);
  if (error) throw error;
  return db as Kysely<unknown>;
}

/**
 * Inside a describe: a fresh database of the back end `choice` makes, migrated to the latest, for the describe's tests,
 * and dropped after them. Answers how to reach it once they run.
 */
export function migratedDatabase(choice: { make: () => Backend }): { db: () => Kysely<DB>; backend: () => Backend } {
  let backend: Backend | undefined;
  let db: Kysely<DB> | undefined;
  beforeAll(async () => {
    backend = choice.make();
    db = (await backend.fresh()).db;
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await backend?.cleanup();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('migratedDatabase: its database is made before the tests run');
    return v;
  };
  return { db: () => ready(db), backend: () => ready(backend) };
}

/** A promise with its resolve exposed, for ordering steps across concurrent transactions. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

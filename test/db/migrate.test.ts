// Migrations on both back ends: apply from empty, are idempotent, fail loudly, and do not race.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationError, migrateToLatest, openDatabase } from '../../src/db/index.ts';
import { MIGRATION_ADVISORY_LOCK_KEY } from '../../src/db/migrate.ts';
import { backends, type Backend } from './backends.ts';
import { migrations } from '../../src/db/migrations/index.ts';

/** Every migration, in apply order. */
const ALL = Object.keys(migrations).sort();

const TABLES = [
  'agents',
  'api_keys',
  'auth_nonces',
  'card_purchases',
  'claim_requests',
  'cluster_members',
  'council_decisions',
  'council_signatures',
  'deployments',
  'email_links',
  'event_sequence',
  'events',
  'faucet_grants',
  'fill_pack_purchases',
  'fill_usage',
  'human_verifications',
  'idempotency_records',
  'identities',
  'identity_link_codes',
  'identity_link_consents',
  'identity_members',
  'indexed_blocks',
  'indexer_cursors',
  'kv_settings',
  'leaderboard_creator_days',
  'leaderboard_days',
  'leaderboard_fill_cursor',
  'leaderboard_legs',
  'leaderboard_markets',
  'leaderboard_pending',
  'leaderboard_positions',
  'leaderboard_roles',
  'leaderboard_totals',
  'ledger_balances',
  'ledger_batches',
  'ledger_committed_balances',
  'ledger_operations',
  'mail_outbox',
  'market_comments',
  'market_frames',
  'market_payouts',
  'market_positions',
  'market_resolutions',
  'market_trade_events',
  'market_trades',
  'market_volume_window',
  'market_volumes',
  'markets',
  'negotiations',
  'order_event_cursors',
  'order_fills',
  'order_reservations',
  'order_shards',
  'orders',
  'outcome_transfers',
  'participation_credits',
  'participation_intents',
  'relay_purchases',
  'relayer_transactions',
  'reorged_creations',
  'reputation_cursors',
  'reputation_events',
  'reputation_subjects',
  'reputation_wallet_days',
  'reputation_wallet_volumes',
  'reputation_wallets',
  'resolution_logs',
  'resolution_restarts',
  'vote_ballots',
  'vote_tallies',
  'wallet_sessions',
  'webhook_deliveries',
  'webhook_endpoints',
];

for (const b of await backends()) {
  describe.skipIf(b.skip)(`migrations on ${b.name}`, () => {
    let backend: Backend;
    beforeAll(() => {
      backend = b.make();
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    it('apply from empty, then a second run applies nothing (two statements), and one it does not know is refused', async () => {
      const { db } = await backend.fresh();
      const logged: string[] = [];
      const first = await migrateToLatest(db, (m) => logged.push(m));
      expect(first.applied).toEqual(ALL);
      expect(logged).toEqual(ALL.map((m) => `applied migration ${m}`));

      const tables = (await db.introspection.getTables()).map((t) => t.name).sort();
      expect(tables).toEqual(TABLES);
      const counter = await db.selectFrom('event_sequence').selectAll().execute();
      expect(counter).toEqual([{ id: 1, last_seq: '0' }]);

      // An up-to-date database is recognised by its table's presence and the names in it: two statements, not the
      // Migrator's reads of the whole catalog, its lock and its table.
      let statements = 0;
      const counted = db.withPlugin({ transformQuery: (args) => (statements++, args.node), transformResult: async (args) => args.result });
      const second = await migrateToLatest(counted);
      expect(second.applied).toEqual([]);
      expect(statements).toBe(2);
      // The advisory lock was released: another session can take (and drop) it at once.
      await db.connection().execute(async (conn) => {
        const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${sql.lit(
          MIGRATION_ADVISORY_LOCK_KEY,
        )}) AS ok`.execute(conn);
        expect(rows[0]?.ok).toBe(true);
        await sql`SELECT pg_advisory_unlock(${sql.lit(MIGRATION_ADVISORY_LOCK_KEY)})`.execute(conn);
      });

      // A migration this code does not have (a newer release ran on the database) goes to the Migrator, which refuses.
      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_release', ${new Date().toISOString()})`.execute(db);
      const err = await migrateToLatest(db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as Error).message).toMatch(/corrupted migrations: previously executed migration 9999_from_a_newer_release is missing/);
    });

    it('a failing migration throws a clear error and applies nothing', async () => {
      const { db } = await backend.fresh();
      await sql`CREATE TABLE api_keys (id int)`.execute(db);
      const err = await migrateToLatest(db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as Error).message).toMatch(
        /^migration 0001_foundation failed \(no pending migration was applied\): relation "api_keys" already exists$/,
      );
      // The batch's transaction rolled back: later tables were not created, nothing is recorded.
      const tables = (await db.introspection.getTables()).map((t) => t.name);
      expect(tables).toEqual(['api_keys']);
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM kysely_migration`.execute(db);
      expect(rows[0]?.n).toBe('0');
    });

    it('concurrent migrators on one empty database: one applies, the others wait and apply nothing', async () => {
      if (backend.kind === 'pglite') {
        // One PGlite instance is one session: concurrent calls are serialised by the dialect's mutex.
        const { db } = await backend.fresh();
        const results = await Promise.all([migrateToLatest(db), migrateToLatest(db), migrateToLatest(db)]);
        expect(results.map((r) => r.applied).flat()).toEqual(ALL);
        return;
      }
      // Three processes' worth of pools on one fresh PostgreSQL database.
      const url = await backend.freshUrl();
      const dbs = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: url })));
      try {
        const results = await Promise.all(dbs.map((d) => migrateToLatest(d.db)));
        expect(results.map((r) => r.applied).flat()).toEqual(ALL);
      } finally {
        await Promise.all(dbs.map((d) => d.close()));
      }
    });

    it('pg_trgm can be created and used', async () => {
      const { db } = await backend.fresh();
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
      const { rows } = await sql<{ s: number }>`SELECT similarity('election 2028', 'elections 2028') AS s`.execute(db);
      expect(rows[0]?.s).toBeGreaterThan(0.5);
      await sql`CREATE TABLE t (title text)`.execute(db);
      await sql`CREATE INDEX t_title_trgm ON t USING gin (title gin_trgm_ops)`.execute(db);
    });
  });
}

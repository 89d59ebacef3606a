// Concurrent transactions: PGlite's dialect must isolate them like PostgreSQL does, and the event
// sequence must stay gap-free under concurrency and rollback on both back ends.
import diagnostics from 'node:diagnostics_channel';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely, type Transaction } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/index.ts';
import { PGLITE_HOLDS_CHANNEL, type PGliteHold } from '../../src/db/pglite-dialect.ts';
import { blankPGlite } from '../support/pglite-template.ts';
import { waitFor } from '../support/wait.ts';
import { backends, deferred, migratedDatabase, type Backend } from './backends.ts';

const NOW = new Date('2026-01-02T03:04:05.678Z');

async function nextSeq(trx: Transaction<DB>): Promise<string> {
  const row = await trx
    .updateTable('event_sequence')
    .set((eb) => ({ last_seq: eb('last_seq', '+', '1') }))
    .where('id', '=', 1)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  return row.last_seq;
}

async function currentSeq(db: Kysely<DB>): Promise<bigint> {
  const row = await db.selectFrom('event_sequence').select('last_seq').executeTakeFirstOrThrow();
  return BigInt(row.last_seq);
}

async function setting(db: Kysely<DB> | Transaction<DB>, key: string): Promise<void> {
  await db.insertInto('kv_settings').values({ key, value: '1', updated_at: NOW }).execute();
}

async function keys(db: Kysely<DB>): Promise<string[]> {
  return (await db.selectFrom('kv_settings').select('key').orderBy('key').execute()).map((r) => r.key);
}

/** Sessions of this database blocked on a lock (PostgreSQL only: PGlite has one session, and `db` would wait). */
async function lockWaiters(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
  return rows[0]!.n;
}

class Rollback extends Error {}

for (const b of await backends()) {
  describe.skipIf(b.skip)(`transactions on ${b.name}`, () => {
    const fresh = migratedDatabase(b);
    let backend: Backend;
    let db: Kysely<DB>;
    beforeAll(() => {
      [backend, db] = [fresh.backend(), fresh.db()];
    });

    it('a rollback never removes rows committed by others meanwhile', async () => {
      await db.deleteFrom('kv_settings').execute();
      const steps: string[] = [];
      const inserted = deferred();
      const rollBack = deferred();
      const a = db
        .transaction()
        .execute(async (trx) => {
          await setting(trx, 'a-rolled-back');
          inserted.resolve();
          await rollBack.promise;
          steps.push('A rolls back');
          throw new Rollback();
        })
        .catch((e: unknown) => {
          if (!(e instanceof Rollback)) throw e;
        });
      await inserted.promise;
      // Started while A is open: a committed transaction and a plain autocommit insert.
      const c = db.transaction().execute(async (trx) => {
        steps.push('C runs');
        await setting(trx, 'c-committed');
      });
      const d = setting(db, 'd-autocommit');
      try {
        if (backend.kind === 'postgres') {
          // Other sessions: both commit while A still holds its row.
          await Promise.all([c, d]);
          steps.push('C and D committed');
        }
        // On PGlite, C and D wait for A's turn to end (one connection at a time).
      } finally {
        rollBack.resolve();
      }
      await Promise.all([a, c, d]);
      expect(steps).toEqual(backend.kind === 'postgres' ? ['C runs', 'C and D committed', 'A rolls back'] : ['A rolls back', 'C runs']);
      expect(await keys(db)).toEqual(['c-committed', 'd-autocommit']);
    });

    it('concurrent writers get consecutive event sequence numbers', async () => {
      const before = await currentSeq(db);
      const firstHolds = deferred();
      const release = deferred();
      const writers = Array.from({ length: 5 }, () =>
        db.transaction().execute(async (trx) => {
          const seq = BigInt(await nextSeq(trx)) - before;
          if (seq === 1n) {
            // The first writer keeps the sequence row locked until every other writer is queued behind it.
            firstHolds.resolve();
            await release.promise;
          }
          return seq;
        }),
      );
      await firstHolds.promise;
      try {
        // PostgreSQL: four sessions blocked on the row lock. PGlite: the other four wait for the connection.
        if (backend.kind === 'postgres') await waitFor(async () => (await lockWaiters(db)) === 4, { what: 'the other four writers to block on the event_sequence row' });
      } finally {
        release.resolve();
      }
      const seqs = await Promise.all(writers);
      expect(seqs.sort((x, y) => Number(x - y))).toEqual([1n, 2n, 3n, 4n, 5n]);
    });

    it('a rolled-back writer leaves no gap, even while another writer waits on it', async () => {
      const before = await currentSeq(db);
      const steps: string[] = [];
      const bumped = deferred<string>();
      const rollBack = deferred();
      const first = db
        .transaction()
        .execute(async (trx) => {
          bumped.resolve(await nextSeq(trx));
          await rollBack.promise;
          steps.push('first rolls back');
          throw new Rollback();
        })
        .catch((e: unknown) => {
          if (!(e instanceof Rollback)) throw e;
        });
      expect(BigInt(await bumped.promise) - before).toBe(1n);
      // These writers wait (row lock on PostgreSQL, mutex on PGlite) and then reuse the number.
      const waiter = () =>
        db.transaction().execute(async (trx) => {
          const seq = BigInt(await nextSeq(trx)) - before;
          steps.push('a waiter takes a number');
          return seq;
        });
      const second = waiter();
      const third = waiter();
      try {
        if (backend.kind === 'postgres') await waitFor(async () => (await lockWaiters(db)) === 2, { what: 'both waiting writers to block on the event_sequence row' });
      } finally {
        rollBack.resolve();
      }
      await first;
      // Which waiter goes first is up to the server; together they must take 1 and 2.
      expect([await second, await third].sort((x, y) => Number(x - y))).toEqual([1n, 2n]);
      expect(steps).toEqual(['first rolls back', 'a waiter takes a number', 'a waiter takes a number']);
      expect((await currentSeq(db)) - before).toBe(2n);
    });

    it('savepoints roll back part of a transaction', async () => {
      await db.deleteFrom('kv_settings').execute();
      const trx = await db.startTransaction().execute();
      await setting(trx, 'kept');
      const sp = await trx.savepoint('sp1').execute();
      await setting(sp, 'undone');
      const back = await sp.rollbackToSavepoint('sp1').execute();
      await back.commit().execute();
      expect(await keys(db)).toEqual(['kept']);
    });

    it.runIf(b.name === 'pglite')('documented trap: `db` inside a transaction waits for that transaction', async () => {
      let outsideDone = false;
      let outside: Promise<unknown> = Promise.resolve();
      await db.transaction().execute(async (trx) => {
        await setting(trx, 'trap');
        // Awaiting this here would deadlock; we only check it does not run while trx is open. Without the
        // mutex it would reach PGlite ahead of the next query of trx, and trx would see its row.
        outside = setting(db, 'trap-outside').then(() => (outsideDone = true));
        const seen = await trx.selectFrom('kv_settings').select('key').where('key', '=', 'trap-outside').execute();
        expect(seen).toEqual([]);
        expect(outsideDone).toBe(false);
      });
      await outside;
      expect(outsideDone).toBe(true);
      expect(await keys(db)).toContain('trap-outside');
    });
  });
}

describe('PGlite dialect internals', () => {
  it('publishes each turn on the connection, with who took it and for how long, only while someone listens', async () => {
    const database = await blankPGlite();
    const seen: PGliteHold[] = [];
    const listen = (message: unknown) => void seen.push(message as PGliteHold);
    try {
      await sql`SELECT 1`.execute(database.db);
      expect(seen).toEqual([]);
      diagnostics.subscribe(PGLITE_HOLDS_CHANNEL, listen);
      const inside = deferred();
      const proceed = deferred();
      const trx = database.db.transaction().execute(async (t) => {
        await sql`SELECT 1`.execute(t);
        inside.resolve();
        await proceed.promise;
      });
      await inside.promise;
      // Asked for while the transaction holds the connection: it waits for the transaction's end.
      const after = sql`SELECT 2`.execute(database.db);
      await nextTurn();
      proceed.resolve();
      await Promise.all([trx, after]);
      expect(seen).toHaveLength(2);
      const [first, second] = seen as [PGliteHold, PGliteHold];
      expect(first.stack).toContain('transactions.test.ts');
      expect(first.waitedMs).toBeGreaterThanOrEqual(0);
      expect(second.waitedMs).toBeGreaterThan(0);
      diagnostics.unsubscribe(PGLITE_HOLDS_CHANNEL, listen);
      await sql`SELECT 3`.execute(database.db);
      expect(seen).toHaveLength(2);
    } finally {
      diagnostics.unsubscribe(PGLITE_HOLDS_CHANNEL, listen);
      await database.close();
    }
  });

  it('close waits for a running transaction to finish', async () => {
    const database = await blankPGlite();
    const steps: string[] = [];
    const started = deferred();
    const proceed = deferred();
    let committed = false;
    const trx = database.db.transaction().execute(async (t) => {
      started.resolve();
      await proceed.promise;
      await sql`SELECT 1`.execute(t);
      committed = true;
      steps.push('transaction done');
    });
    await started.promise;
    const closed = database.close().then(() => steps.push('closed'));
    // One event-loop turn lets close() get as far as it can without waiting; only then does the transaction
    // go on, and its query must still reach an open PGlite.
    await nextTurn();
    proceed.resolve();
    await closed;
    expect(committed).toBe(true);
    expect(steps).toEqual(['transaction done', 'closed']);
    await trx;
    await expect(sql`SELECT 1`.execute(database.db)).rejects.toThrow(/destroyed|not initialised/);
  });
});

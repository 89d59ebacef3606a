// Concurrent transactions: PGlite's dialect must isolate them like PostgreSQL does, and the event
// sequence must stay gap-free under concurrency and rollback on both back ends.
import { sql, type Kysely, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type DB } from '../../src/db/index.ts';
import { AsyncMutex } from '../../src/db/pglite-dialect.ts';
import { backends, deferred, sleep, type Backend } from './backends.ts';

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

class Rollback extends Error {}

for (const b of await backends()) {
  describe.skipIf(b.skip)(`transactions on ${b.name}`, () => {
    let backend: Backend;
    let db: Kysely<DB>;
    beforeAll(async () => {
      backend = b.make();
      db = (await backend.fresh()).db;
      await migrateToLatest(db);
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    it('a rollback never removes rows committed by others meanwhile', async () => {
      await db.deleteFrom('kv_settings').execute();
      const inserted = deferred();
      const a = db
        .transaction()
        .execute(async (trx) => {
          await setting(trx, 'a-rolled-back');
          inserted.resolve();
          await sleep(100);
          throw new Rollback();
        })
        .catch((e: unknown) => {
          if (!(e instanceof Rollback)) throw e;
        });
      await inserted.promise;
      // Started while A is open: a committed transaction and a plain autocommit insert.
      const c = db.transaction().execute((trx) => setting(trx, 'c-committed'));
      const d = setting(db, 'd-autocommit');
      await Promise.all([a, c, d]);
      expect(await keys(db)).toEqual(['c-committed', 'd-autocommit']);
    });

    it('concurrent writers get consecutive event sequence numbers', async () => {
      const before = await currentSeq(db);
      const seqs = await Promise.all(
        Array.from({ length: 5 }, () =>
          db.transaction().execute(async (trx) => {
            const seq = await nextSeq(trx);
            await sleep(5);
            return BigInt(seq) - before;
          }),
        ),
      );
      expect(seqs.sort((x, y) => Number(x - y))).toEqual([1n, 2n, 3n, 4n, 5n]);
    });

    it('a rolled-back writer leaves no gap, even while another writer waits on it', async () => {
      const before = await currentSeq(db);
      const bumped = deferred<string>();
      const first = db
        .transaction()
        .execute(async (trx) => {
          bumped.resolve(await nextSeq(trx));
          await sleep(100);
          throw new Rollback();
        })
        .catch((e: unknown) => {
          if (!(e instanceof Rollback)) throw e;
        });
      expect(BigInt(await bumped.promise) - before).toBe(1n);
      // This writer waits (row lock on PostgreSQL, mutex on PGlite) and then reuses the number.
      const second = db.transaction().execute(async (trx) => BigInt(await nextSeq(trx)) - before);
      const third = db.transaction().execute(async (trx) => BigInt(await nextSeq(trx)) - before);
      await first;
      // Which waiter goes first is up to the server; together they must take 1 and 2.
      expect([await second, await third].sort((x, y) => Number(x - y))).toEqual([1n, 2n]);
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
        // Awaiting this here would deadlock; we only check it does not run while trx is open.
        outside = db.selectFrom('kv_settings').selectAll().execute().then(() => (outsideDone = true));
        await sleep(100);
        expect(outsideDone).toBe(false);
      });
      await outside;
      expect(outsideDone).toBe(true);
    });
  });
}

describe('PGlite dialect internals', () => {
  it('AsyncMutex hands out turns in order and ignores double release', async () => {
    const mutex = new AsyncMutex();
    const order: number[] = [];
    const r1 = await mutex.lock();
    const p2 = mutex.lock().then((r) => {
      order.push(2);
      return r;
    });
    const p3 = mutex.lock().then((r) => {
      order.push(3);
      r();
    });
    await sleep(10);
    expect(order).toEqual([]);
    r1();
    r1(); // must not also release the turn of 2
    const r2 = await p2;
    await sleep(10);
    expect(order).toEqual([2]);
    r2();
    await p3;
    expect(order).toEqual([2, 3]);
  });

  it('close waits for a running transaction to finish', async () => {
    const database = await openDatabase({ pgliteDir: 'memory://' });
    const started = deferred();
    let committed = false;
    const trx = database.db.transaction().execute(async (t) => {
      started.resolve();
      await sleep(100);
      await sql`SELECT 1`.execute(t);
      committed = true;
    });
    await started.promise;
    await database.close();
    expect(committed).toBe(true);
    await trx;
    await expect(sql`SELECT 1`.execute(database.db)).rejects.toThrow(/destroyed|not initialised/);
  });
});

// The turns on the embedded database's one connection (src/db/turns.ts): foreground holders first, background holders
// held back by an expected foreground one and, while requests are about, for a moment after another background one;
// never starved: an overdue one goes after the foreground holder of the moment, one at a time. Time is a manual clock;
// the mutex itself is pure promises, so one turn of the event loop runs every continuation already queued.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';
import { AsyncMutex, DEFAULT_BACKGROUND_SHARE as SHARE, DEFAULT_QUIET_MS, type TurnPriority, type TurnTimer } from '../../src/db/turns.ts';
import { blankPGliteInstance } from '../support/pglite-template.ts';

const MAX_DEFER_MS = 40;

function manualTimer(): TurnTimer & { advance(ms: number): void } {
  let now = 0;
  const wakes: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    now: () => now,
    after(ms, fn) {
      const wake = { at: now + ms, fn, live: true };
      wakes.push(wake);
      return () => void (wake.live = false);
    },
    advance(ms) {
      now += ms;
      for (const wake of wakes.filter((w) => w.live && w.at <= now)) {
        wake.live = false;
        wake.fn();
      }
    },
  };
}

/** A mutex on a manual clock, and holders that note when they get their turn and release it when told. */
function turns() {
  const timer = manualTimer();
  const mutex = new AsyncMutex({ maxDeferMs: MAX_DEFER_MS, timer });
  const order: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (name: string, priority: TurnPriority) =>
    void mutex.lock(priority).then((release) => {
      order.push(name);
      releases.set(name, release);
    });
  /** Ends `name`'s turn and lets the next holder's continuation run. */
  const release = async (name: string) => {
    releases.get(name)!();
    await nextTurn();
  };
  return { mutex, timer, order, ask, release };
}

describe('AsyncMutex', () => {
  it('hands out turns in order and ignores double release', async () => {
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
    await nextTurn();
    expect(order).toEqual([]);
    r1();
    r1(); // must not also release the turn of 2
    const r2 = await p2;
    await nextTurn();
    expect(order).toEqual([2]);
    r2();
    await p3;
    expect(order).toEqual([2, 3]);
  });

  it('with a turn budget lets the event loop turn before a hand-over past the budget, not before one within it', async () => {
    const mutex = new AsyncMutex({ turnBudgetMs: 50 });
    const order: string[] = [];
    const handOver = async (busyMs: number) => {
      const release = await mutex.lock();
      const next = mutex.lock().then((r) => {
        order.push('next holder');
        r();
      });
      // Work of the holder without a turn of the event loop, and a callback waiting for the next turn.
      for (const start = performance.now(); performance.now() - start < busyMs; );
      setImmediate(() => order.push('event loop turn'));
      release();
      await next;
      await nextTurn();
    };
    // The mutex was made just now: a short hold hands over at once, in the same turn.
    await handOver(0);
    expect(order).toEqual(['next holder', 'event loop turn']);
    order.length = 0;
    // 60 ms without a turn: the next holder waits for one.
    await handOver(60);
    expect(order).toEqual(['event loop turn', 'next holder']);
  });

  it('gives the turn to a foreground holder before a background one that asked earlier', async () => {
    const t = turns();
    t.ask('holder', 'foreground');
    await nextTurn();
    t.ask('fold', 'background');
    t.ask('batch', 'foreground');
    t.ask('fold 2', 'background');
    await t.release('holder');
    expect(t.order).toEqual(['holder', 'batch']);
    await t.release('batch');
    await t.release('fold');
    expect(t.order).toEqual(['holder', 'batch', 'fold']);
    // A second background holder in a row waits a moment for requests' holders, which come first if they do.
    t.timer.advance(DEFAULT_QUIET_MS);
    await nextTurn();
    expect(t.order).toEqual(['holder', 'batch', 'fold', 'fold 2']);
  });

  it('after a background holder, gives requests a moment to come first while they are about, and none when they are not', async () => {
    const t = turns();
    t.ask('batch', 'foreground');
    await nextTurn();
    t.ask('fold', 'background');
    t.ask('upkeep', 'background');
    await t.release('batch');
    await t.release('fold');
    t.timer.advance(DEFAULT_QUIET_MS - 1);
    await nextTurn();
    expect(t.order).toEqual(['batch', 'fold']);
    t.ask('next batch', 'foreground');
    await nextTurn();
    await t.release('next batch');
    expect(t.order).toEqual(['batch', 'fold', 'next batch', 'upkeep']);

    // No request for as long as a background holder may be held back: background holders follow each other at once.
    t.timer.advance(MAX_DEFER_MS);
    t.ask('reputation', 'background');
    t.ask('ledger', 'background');
    await t.release('upkeep');
    await t.release('reputation');
    expect(t.order).toEqual(['batch', 'fold', 'next batch', 'upkeep', 'reputation', 'ledger']);
  });

  it('holds a background holder back while a foreground one is expected, even with the connection free', async () => {
    const t = turns();
    const gathered = t.mutex.expect();
    t.ask('fold', 'background');
    await nextTurn();
    expect(t.order).toEqual([]);
    t.ask('batch', 'foreground');
    await nextTurn();
    // The batch has its connection: the expectation ends (a second end does nothing).
    gathered();
    gathered();
    expect(t.order).toEqual(['batch']);
    await t.release('batch');
    expect(t.order).toEqual(['batch', 'fold']);

    // An expectation that ends without its holder asking holds nobody back any more.
    const abandoned = t.mutex.expect();
    t.ask('upkeep', 'background');
    await t.release('fold');
    t.timer.advance(DEFAULT_QUIET_MS);
    await nextTurn();
    expect(t.order).toEqual(['batch', 'fold']);
    abandoned();
    await nextTurn();
    expect(t.order).toEqual(['batch', 'fold', 'upkeep']);
  });

  it('lets an expectation lapse after the longest deferral, so one never ended holds nobody back for good', async () => {
    const t = turns();
    t.mutex.expect();
    t.ask('fold', 'background');
    t.timer.advance(MAX_DEFER_MS - 1);
    await nextTurn();
    expect(t.order).toEqual([]);
    t.timer.advance(1);
    await nextTurn();
    expect(t.order).toEqual(['fold']);
  });

  it('gives background holders that waited their longest the turn ahead of waiting foreground ones, within their share of the time', async () => {
    const t = turns();
    t.ask('batch 0', 'foreground');
    await nextTurn();
    t.ask('fold', 'background');
    t.ask('upkeep', 'background');
    for (const name of ['batch 1', 'batch 2', 'batch 3', 'batch 4']) t.ask(name, 'foreground');
    t.timer.advance(MAX_DEFER_MS);
    await t.release('batch 0');
    expect(t.order).toEqual(['batch 0', 'fold']);
    // A 10 ms turn: the requests have the next 10 × (1 / share - 1) ms, whatever the background waits for.
    t.timer.advance(10);
    await t.release('fold');
    await t.release('batch 1');
    t.timer.advance(10 * (1 / SHARE - 1) - 1);
    await t.release('batch 2');
    expect(t.order).toEqual(['batch 0', 'fold', 'batch 1', 'batch 2', 'batch 3']);
    t.timer.advance(1);
    await t.release('batch 3');
    expect(t.order).toEqual(['batch 0', 'fold', 'batch 1', 'batch 2', 'batch 3', 'upkeep']);
    await t.release('upkeep');
    expect(t.order).toEqual(['batch 0', 'fold', 'batch 1', 'batch 2', 'batch 3', 'upkeep', 'batch 4']);
  });

  it('keeps an overdue background holder waiting for an expected foreground one while the last background turn has the time', async () => {
    const t = turns();
    t.ask('batch', 'foreground');
    await nextTurn();
    t.ask('fold', 'background');
    t.ask('upkeep', 'background');
    t.timer.advance(MAX_DEFER_MS);
    await t.release('batch');
    expect(t.order).toEqual(['batch', 'fold']);
    const gathered = t.mutex.expect();
    t.timer.advance(10);
    await t.release('fold');
    expect(t.order).toEqual(['batch', 'fold']);
    t.ask('next batch', 'foreground');
    await nextTurn();
    gathered();
    await t.release('next batch');
    expect(t.order).toEqual(['batch', 'fold', 'next batch', 'upkeep']);
  });
});

describe('PGlite dialect: foreground and background Kyselys over one database', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('share one connection: a background statement waits for an expected foreground transaction, which runs first', async () => {
    const pglite = await blankPGliteInstance();
    const timer = manualTimer();
    const dialect = new PGliteDialect({ database: pglite, turns: { maxDeferMs: MAX_DEFER_MS, timer } });
    const db = new Kysely<Record<string, never>>({ dialect });
    const background = new Kysely<Record<string, never>>({ dialect: dialect.background() });
    closers.push(() => db.destroy(), () => background.destroy());
    await sql`CREATE TABLE turns (n int, by text)`.execute(db);

    const order: string[] = [];
    const gathered = dialect.expect();
    const fold = sql`INSERT INTO turns VALUES (1, 'background')`.execute(background).then(() => order.push('background'));
    await nextTurn();
    const batch = db.transaction().execute(async (trx) => {
      gathered();
      await sql`INSERT INTO turns VALUES (2, 'foreground')`.execute(trx);
      order.push('foreground');
    });
    await Promise.all([batch, fold]);
    expect(order).toEqual(['foreground', 'background']);
    const { rows } = await sql<{ by: string }>`SELECT by FROM turns ORDER BY n`.execute(db);
    expect(rows.map((r) => r.by)).toEqual(['background', 'foreground']);

    // Destroying the background Kysely leaves the database open for the other one.
    await background.destroy();
    expect(pglite.closed).toBe(false);
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });
});

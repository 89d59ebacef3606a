// The events outbox: written in the writer's transaction, globally sequenced without gaps, and
// delivered in order to subscribers that resume from a sequence number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { systemClock } from '../../src/core/clock.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createEventBus, type EventBus } from '../../src/services/events/bus.ts';
import { appendEvent, EVENTS_CHANNEL, readEventsAfter, type StoredEvent } from '../../src/services/events/outbox.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { waitFor } from '../support/wait.ts';

let database: Database;
let url: string | undefined;
let bus: EventBus;

beforeAll(async () => {
  url = onPostgres ? await freshPostgresUrl() : undefined;
  database = url ? await openDatabase({ databaseUrl: url }) : await migratedPGlite();
  await migrateToLatest(database.db);
  bus = createEventBus({ db: database.db, log: createLogger('silent'), pollMs: 50 });
});
afterAll(async () => {
  await bus?.close();
  await database?.close();
  if (url) await dropPostgres(url);
});

const append = (type: string, fail = false) =>
  database.db.transaction().execute(async (trx) => {
    const e = await appendEvent(trx, systemClock, { type, payload: { type } });
    if (fail) throw new Error('rolled back on purpose');
    return e;
  });

describe('events outbox', () => {
  it('gives gap-free sequence numbers even when a writer rolls back', async () => {
    const a = await append('a');
    await expect(append('b', true)).rejects.toThrow('rolled back');
    const c = await append('c');
    expect(c.seq).toBe(a.seq + 1n);
    const rows = await database.db.selectFrom('events').select(['seq', 'type']).orderBy('seq').execute();
    expect(rows.map((r) => r.type)).not.toContain('b');
    rows.forEach((r, i) => expect(BigInt(r.seq)).toBe(BigInt(i + 1)));
    expect(await bus.head()).toBe(c.seq);
  });

  it('delivers to a subscriber from its sequence on, in order, then live events', async () => {
    const head = await bus.head();
    await append('x1');
    await append('x2');
    const seen: StoredEvent[] = [];
    const sub = bus.subscribe({ afterSeq: head }, (e) => {
      seen.push(e);
    });
    await waitFor(() => seen.length >= 2, { what: 'the subscriber to catch up on x1 and x2' });
    await append('x3');
    bus.notify();
    await waitFor(() => seen.length >= 3, { what: 'the live event x3' });
    expect(seen.map((e) => e.type)).toEqual(['x1', 'x2', 'x3']);
    expect(seen.map((e) => e.seq)).toEqual([head + 1n, head + 2n, head + 3n]);
    expect(sub.position).toBe(head + 3n);
    sub.close();
  });

  it('resumes a new subscriber where the old one stopped, without repeats or gaps', async () => {
    const head = await bus.head();
    const first: bigint[] = [];
    const sub1 = bus.subscribe({ afterSeq: head }, (e) => {
      first.push(e.seq);
    });
    await append('r1');
    bus.notify();
    await waitFor(() => first.length >= 1, { what: 'the first subscriber to receive r1' });
    const resumeAt = sub1.position;
    sub1.close();
    await append('r2');
    await append('r3');
    const second: bigint[] = [];
    bus.subscribe({ afterSeq: resumeAt, filter: (e) => e.type.startsWith('r') }, (e) => {
      second.push(e.seq);
    });
    await waitFor(() => second.length >= 2, { what: 'the resumed subscriber to receive r2 and r3' });
    expect([...first, ...second]).toEqual([head + 1n, head + 2n, head + 3n]);
  });

  it('fans out to a thousand subscribers without holding the event loop, each receiving every event once, in order', async () => {
    const head = await bus.head();
    const n = 1_000;
    const seen: bigint[][] = Array.from({ length: n }, () => []);
    // On the first delivery to the first subscriber, a callback queued behind pending I/O (setImmediate) notes how many
    // subscribers had an event by then: all of them when the fan-out ran in one stretch, fewer when it let the loop turn.
    let servedBeforeTheLoopTurned: number | null = null;
    const subs = seen.map((list, i) =>
      bus.subscribe({ afterSeq: head, filter: (e) => e.type.startsWith('fan') }, (e) => {
        list.push(e.seq);
        if (i === 0 && list.length === 1) setImmediate(() => (servedBeforeTheLoopTurned = seen.filter((l) => l.length > 0).length));
      }),
    );
    const written = [await append('fan1'), await append('fan2'), await append('fan3')].map((e) => e.seq);
    bus.notify();
    await waitFor(() => seen.every((l) => l.length >= 3), { what: 'every subscriber to receive the three events' });
    expect(servedBeforeTheLoopTurned).not.toBeNull();
    expect(servedBeforeTheLoopTurned!).toBeLessThan(n);
    expect(seen.filter((l) => l.join() !== written.join())).toEqual([]); // once each, in order, for everyone
    for (const s of subs) s.close();
  });
});

describe('events a writer hands to the bus as it committed them', () => {
  // Keys of several lengths and bytes, nested, repeated in another order, with what JSON drops or turns into text.
  // ASCII keys of one length that only their bytes order (capitals, digits, punctuation) next to ones that are not.
  const payload = () => ({ zeta: 1, a: { bb: [1, { y: 2, x: 1 }], b: null, ä: 'ü', aa: true }, mid: undefined, at: new Date(0), é: 'e', ab: '1e-7', n: 1e-7, B: 1, _: 2, '~': 3, '0': 4, Ab: 5, aB: 6, 'a~': 7, zz: { Z: 1, z: 2, 'z ': 3 } });
  const appendOnly = (type: string) => database.db.transaction().execute(async (trx) => appendEvent(trx, systemClock, { type, payload: payload() }));

  it('keeps a payload as the text written (json, migration 0037): a read gives its keys in the order written, without what JSON drops', async () => {
    const written = await appendOnly('json-text');
    const row = await database.db.selectFrom('events').select('payload').where('seq', '=', written.seq.toString()).executeTakeFirstOrThrow();
    // jsonb would answer its own key order (shorter keys first: "0", "B", "_", "a", …).
    expect(JSON.stringify(row.payload)).toBe(JSON.stringify(payload()));
    const { rows } = await sql<{ type: string }>`SELECT pg_typeof(payload)::text AS type FROM events WHERE seq = ${written.seq.toString()}::bigint`.execute(database.db);
    expect(rows[0]!.type).toBe('json');
  });

  it('delivers events that follow the tail without reading them back, exactly as a read gives them', async () => {
    let reads = 0;
    const counting = database.db.withPlugin({ transformQuery: (args) => (reads++, args.node), transformResult: async (args) => args.result });
    const own = createEventBus({ db: counting, log: createLogger('silent'), pollMs: 60_000 });
    try {
      const seen: StoredEvent[] = [];
      own.subscribe({ afterSeq: await own.head() }, (e) => {
        seen.push(e);
      });
      // The tail caught up with a first event read from the outbox.
      await appendOnly('read-1');
      own.notify();
      await waitFor(() => seen.length >= 1, { what: 'the first event, read' });
      seen.length = 0;
      const written = [await appendOnly('handed-1'), await appendOnly('handed-2')];
      const before = reads;
      own.committed(written);
      await waitFor(() => seen.length >= 2, { what: 'the handed-on events' });
      expect(reads).toBe(before);
      const stored = await readEventsAfter(database.db, written[0]!.seq - 1n, 2);
      expect(JSON.stringify(seen.map(({ seq, ...e }) => ({ seq: String(seq), ...e })))).toBe(JSON.stringify(stored.map(({ seq, ...e }) => ({ seq: String(seq), ...e }))));
      // Not only the same JSON: the same values (a Date handed on as a Date would print the same).
      expect(seen.map((e) => e.payload)).toEqual(stored.map((e) => e.payload));
      expect(typeof seen[0]!.payload.at).toBe('string');

      // Their NOTIFY coming back (PostgreSQL: this process LISTENs too) reads nothing: the tail holds them. A NOTIFY
      // of a later event does read (a query starts at once, before the call returns).
      own.notify(written[1]!.seq);
      expect(reads).toBe(before);
      own.notify(written[1]!.seq + 1n);
      expect(reads).toBe(before + 1);

      // Events that do not follow the tail (another writer's came in between) are read, in order, once.
      const skipped = await appendOnly('not-handed');
      const next = await appendOnly('handed-3');
      own.committed([next]);
      await waitFor(() => seen.length >= 4, { what: 'the events read after a gap' });
      expect(reads).toBeGreaterThan(before);
      expect(seen.slice(2).map((e) => e.seq)).toEqual([skipped.seq, next.seq]);
    } finally {
      await own.close();
    }
  });
});

describe('a bus with no subscriber', () => {
  it('reads nothing at commits and nudges, and a later subscriber still gets every event after its sequence, in order', async () => {
    let reads = 0;
    const counting = database.db.withPlugin({ transformQuery: (args) => (reads++, args.node), transformResult: async (args) => args.result });
    const own = createEventBus({ db: counting, log: createLogger('silent'), pollMs: 60_000 });
    const append = (type: string) => database.db.transaction().execute(async (trx) => appendEvent(trx, systemClock, { type, payload: {} }));
    try {
      const from = await own.head();
      const before = reads;
      // Commits handed on (one after another's: a gap) and NOTIFYs of other processes' commits.
      await append('unseen-1');
      own.committed([await append('unseen-2')]);
      own.notify();
      own.notify(from + 10n);
      own.committed([await append('unseen-3')]);
      expect(reads).toBe(before);

      const seen: bigint[] = [];
      own.subscribe({ afterSeq: from }, (e) => {
        seen.push(e.seq);
      });
      const last = await append('after-subscribing');
      own.committed([last]);
      await waitFor(() => seen.at(-1) === last.seq, { what: 'the events from the subscriber’s sequence on' });
      expect(seen).toEqual((await readEventsAfter(database.db, from, 100)).map((e) => e.seq));
      expect(seen).toHaveLength(4);
    } finally {
      await own.close();
    }
  });
});

describe.skipIf(!onPostgres)('several processes on one PostgreSQL', () => {
  it("wakes a bus at another connection's commit through LISTEN/NOTIFY, not its poll", async () => {
    // A second "process": its own connection pool and a bus that would poll only once a minute.
    const other = await openDatabase({ databaseUrl: url! });
    const slow = createEventBus({ db: other.db, log: createLogger('silent'), pollMs: 60_000 });
    const unlisten = await other.listen!(EVENTS_CHANNEL, () => slow.notify());
    try {
      const seen: StoredEvent[] = [];
      slow.subscribe({ afterSeq: await slow.head() }, (e) => void seen.push(e));
      const written = await append('cross-process');
      await waitFor(() => seen.find((e) => e.seq === written.seq), { what: 'the event through NOTIFY (the poll is a minute away)' });
    } finally {
      await unlisten();
      await slow.close();
      await other.close();
    }
  });
});

// Idempotency-Key claims and answers of concurrent requests go into one statement each (group commit,
// docs/http.md "Idempotency-Key"), with the same answers one at a time would give: a new key is the request's, a key
// twice in one group is the first one's, a key sent with another request is refused, each answer lands on its own key.
// On the suite's database (PGlite, or a fresh PostgreSQL database with DATABASE_URL).
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { isProblemError } from '../../src/core/errors.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';
import { runSteps } from '../../src/db/pipeline.ts';
import { createIdempotencyService, type IdempotencyService } from '../../src/services/idempotency/idempotency.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';

const ROUTE = { method: 'POST', path: '/api/agent/v1/orderbook/place-order' };
const N = 20;

describe('Idempotency-Key claims and answers in groups', () => {
  let database: Database;
  let url: string | undefined;
  let statements = 0;
  let idem: IdempotencyService;
  let countingDb: Database['db'];

  beforeAll(async () => {
    if (onPostgres) {
      url = await freshPostgresUrl();
      database = await openDatabase({ databaseUrl: url });
      await migrateToLatest(database.db);
    } else {
      database = await migratedPGlite();
    }
    const counting: KyselyPlugin = {
      transformQuery: (args) => (statements++, args.node),
      transformResult: async (args) => args.result,
    };
    countingDb = database.db.withPlugin(counting);
    idem = createIdempotencyService({ db: countingDb, clock: systemClock });
  });
  afterAll(async () => {
    await database?.close();
    if (url) await dropPostgres(url);
  });

  const counted = async <T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> => {
    const before = statements;
    const result = await work();
    return { result, statements: statements - before };
  };

  it(`claims ${N} new keys sent at once in one statement, and stores their ${N} answers in one more`, async () => {
    const keys = Array.from({ length: N }, (_, i) => `group-${i}`);
    const claims = await counted(() => Promise.all(keys.map((k) => idem.claim('key:a', k, `hash-${k}`, ROUTE))));
    expect(claims.result.every((c) => c.kind === 'new')).toBe(true);
    expect(claims.statements).toBe(1);

    const answers = await counted(() => Promise.all(keys.map((k, i) => idem.complete('key:a', k, { status: 201, body: { order: i }, headers: { 'X-Order': String(i) } }))));
    expect(answers.statements).toBe(1);
    // Each answer on its own key: a retry replays it.
    for (const [i, k] of keys.entries()) {
      expect(await idem.claim('key:a', k, `hash-${k}`, ROUTE)).toEqual({ kind: 'replay', response: { status: 201, body: { order: i }, headers: { 'X-Order': String(i) } } });
    }
  });

  it('marks the effects one transaction records together in one statement; a claim another process took is refused alone', async () => {
    const keys = ['e-1', 'e-2', 'e-3', 'e-4'];
    await Promise.all(keys.map((k) => idem.claim('key:e', k, 'h', ROUTE)));
    // e-4's claim went to another process meanwhile.
    await database.db.updateTable('idempotency_records').set({ holder: 'another-process' }).where('idem_key', '=', 'e-4').execute();
    const outcome = await counted(() =>
      countingDb.transaction().execute(async (trx) => Promise.allSettled(keys.map((k, i) => idem.commitEffect(trx, 'key:e', k, `order-${i}`)))),
    );
    expect(outcome.statements).toBe(1);
    expect(outcome.result.map((s) => (s.status === 'rejected' && isProblemError(s.reason) ? s.reason.code : s.status))).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'IDEMPOTENCY_IN_PROGRESS']);
    expect(await Promise.all(keys.map((k) => idem.committedEffect('key:e', k)))).toEqual(['order-0', 'order-1', 'order-2', null]);
  });

  it('a key twice in one group is the first request’s: the second is in progress, or refused when it is another request', async () => {
    const settled = await Promise.allSettled([
      idem.claim('key:b', 'twice', 'hash-1', ROUTE),
      idem.claim('key:b', 'twice', 'hash-1', ROUTE),
      idem.claim('key:b', 'twice', 'hash-2', ROUTE),
      // The same key of another caller is another record.
      idem.claim('key:c', 'twice', 'hash-9', ROUTE),
    ]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: { kind: 'new' } });
    const code = (s: PromiseSettledResult<unknown>) => (s.status === 'rejected' && isProblemError(s.reason) ? s.reason.code : s.status);
    expect(code(settled[1]!)).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(code(settled[2]!)).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(settled[3]).toEqual({ status: 'fulfilled', value: { kind: 'new' } });
  });

  it('a released key in a group is claimed again; an answer for a key nobody holds changes nothing', async () => {
    await idem.claim('key:d', 'again', 'h', ROUTE);
    await idem.release('key:d', 'again');
    const [again, other] = await Promise.all([idem.claim('key:d', 'again', 'h', ROUTE), idem.claim('key:d', 'other', 'h', ROUTE)]);
    expect([again.kind, other.kind]).toEqual(['new', 'new']);
    await Promise.all([idem.complete('key:d', 'again', { status: 200, body: null, headers: {} }), idem.complete('key:d', 'nobody', { status: 200, body: 1, headers: {} })]);
    expect((await idem.claim('key:d', 'again', 'h', ROUTE)).kind).toBe('replay');
    expect((await idem.claim('key:d', 'nobody', 'h', ROUTE)).kind).toBe('new');
  });

  it("sends a transaction's effects with its next pipeline, first, in the same call to the database", async () => {
    const keys = ['p-1', 'p-2', 'p-3'];
    await Promise.all(keys.map((k) => idem.claim('key:p', k, 'h', ROUTE)));
    const calls = await database.db.transaction().execute(async (trx) => {
      let n = 0;
      const execute = trx.executeQuery.bind(trx);
      trx.executeQuery = ((...args: Parameters<typeof execute>) => (n++, execute(...args))) as typeof trx.executeQuery;
      const effects = keys.map((k, i) => idem.commitEffect(trx, 'key:p', k, `order-${i}`));
      // The next pipeline of the transaction reads what the effects wrote: they ran before it, in the same call.
      const [committed] = await runSteps(trx, [
        { query: sql`SELECT count(*)::int AS n FROM idempotency_records WHERE principal = 'key:p' AND state = 'committed'`.compile(trx), read: ({ rows }) => rows[0]!.n },
      ] as const);
      expect(committed).toBe(keys.length);
      await Promise.all(effects);
      return n;
    });
    expect(calls).toBe(1);
    expect(await Promise.all(keys.map((k) => idem.committedEffect('key:p', k)))).toEqual(['order-0', 'order-1', 'order-2']);
  });

  describe('records answered with their effect (answerWithEffect)', () => {
    const keyed = (key: string, requestHash = 'h') => ({ principal: 'key:w', key, requestHash, route: ROUTE });
    const answer = (i: number) => ({ status: 201, body: { order: i }, headers: {} });

    it('finds nothing for a new key; writes the records of one transaction, answers included, in one statement', async () => {
      const keys = ['w-1', 'w-2', 'w-3'];
      const found = await counted(() => Promise.all(keys.map((k) => idem.find(keyed(k)))));
      expect(found.result).toEqual([null, null, null]);
      expect(found.statements).toBe(1);
      const written = await counted(() => countingDb.transaction().execute(async (trx) => Promise.all(keys.map((k, i) => idem.recordAnswer(trx, keyed(k), `order-${i}`, answer(i))))));
      expect(written.statements).toBe(1);
      for (const [i, k] of keys.entries()) expect(await idem.find(keyed(k))).toEqual({ kind: 'replay', response: answer(i) });
      expect(await idem.committedEffect('key:w', 'w-1')).toBeNull(); // done, not merely committed
      await expect(idem.find(keyed('w-1', 'other'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    });

    it("a record another request wrote first refuses this one's (ClaimTakenOver) and is left as it was", async () => {
      await countingDb.transaction().execute(async (trx) => idem.recordAnswer(trx, keyed('w-race'), 'order-first', answer(1)));
      const outcome = await countingDb
        .transaction()
        .execute(async (trx) => Promise.allSettled([idem.recordAnswer(trx, keyed('w-fresh'), 'order-a', answer(2)), idem.recordAnswer(trx, keyed('w-race'), 'order-b', answer(3))]));
      expect(outcome.map((o) => (o.status === 'rejected' && isProblemError(o.reason) ? o.reason.code : o.status))).toEqual(['fulfilled', 'IDEMPOTENCY_IN_PROGRESS']);
      expect(await idem.find(keyed('w-race'))).toEqual({ kind: 'replay', response: answer(1) });
    });

    it('takes over a dead claim found in progress, and writes its effect over it; a refusal is stored once', async () => {
      await idem.claim('key:w', 'w-dead', 'h', ROUTE);
      await database.db.updateTable('idempotency_records').set({ created_at: new Date(Date.now() - 3_600_000) }).where('idem_key', '=', 'w-dead').execute();
      expect(await idem.find(keyed('w-dead'))).toEqual({ kind: 'new' });
      await countingDb.transaction().execute(async (trx) => idem.recordAnswer(trx, keyed('w-dead'), 'order-late', null));
      expect(await idem.find(keyed('w-dead'))).toEqual({ kind: 'committed', ref: 'order-late' });

      await idem.storeAnswer(keyed('w-refused'), { status: 404, body: { code: 'MARKET_NOT_FOUND' }, headers: {} });
      await idem.storeAnswer(keyed('w-refused'), { status: 500, body: null, headers: {} });
      expect(await idem.find(keyed('w-refused'))).toEqual({ kind: 'replay', response: { status: 404, body: { code: 'MARKET_NOT_FOUND' }, headers: {} } });
    });

    it("reads whether keys are recorded with a transaction's next pipeline, in one statement, leaving out this process's own claims", async () => {
      await countingDb.transaction().execute(async (trx) => idem.recordAnswer(trx, keyed('r-done'), 'order-1', answer(1)));
      await idem.claim('key:w', 'r-mine', 'h', ROUTE); // this process's claim in progress
      const read = await counted(() => countingDb.transaction().execute(async (trx) => Promise.all(['r-done', 'r-mine', 'r-none'].map((k) => idem.recorded(trx, keyed(k))))));
      expect(read.result).toEqual([true, false, false]);
      expect(read.statements).toBe(1);
    });

    it('holds a key in the process while its request runs', () => {
      const release = idem.hold('key:w', 'w-held');
      expect(() => idem.hold('key:w', 'w-held')).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_IN_PROGRESS' }));
      idem.hold('key:other', 'w-held')();
      release();
      expect(typeof idem.hold('key:w', 'w-held')).toBe('function');
    });
  });
});

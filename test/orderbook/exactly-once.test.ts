// Exactly once under an Idempotency-Key: the placement and its idempotency record commit in one transaction, so a
// crash after the order committed and before its answer was stored leaves a retry nothing to run again. Before,
// the retry met IDEMPOTENCY_IN_PROGRESS for the 60 s lease and then placed (and filled) the order a second time.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.ts';
import { registerWallet } from '../support/agents.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket, expectReservationsAgree } from '../support/orderbook.ts';

const A = '/api/agent/v1';
const clock = new ManualClock(new Date());
let server: TestServer;
let crashes = 0;

beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { REGISTRATION_PATHS: 'wallet', LEDGER_BATCH_INTERVAL_MS: '3600000' },
    // The process "dies" right after the handler: its effect is committed, its answer never stored.
    idempotencyFaults: {
      beforeComplete: () => {
        if (crashes > 0) {
          crashes -= 1;
          throw new Error('simulated crash before the response is stored');
        }
      },
    },
  });
});
afterAll(async () => server?.close());

describe('place-order under an Idempotency-Key, with a crash between the commit and the stored answer', () => {
  it('places one order: the retry, before and after the lease, answers that order as a replay', async () => {
    const agent = await registerWallet(server, undefined, 'exactly-once');
    await gas(server, agent.account.address);
    const market = await createOrderBookMarket(server, agent, 'Will exactly-once placement hold under a crash?', new Date(clock.now().getTime() + 7 * 86_400_000));
    const place = () =>
      server.call('POST', `${A}/orderbook/place-order`, {
        key: agent.key,
        idempotencyKey: 'place-once',
        body: { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' },
        unchecked: true,
      });
    const orders = () => server.runtime.database.db.selectFrom('orders').select('id').where('agent_id', '=', agent.agentId).execute();

    crashes = 1;
    const crashed = await place();
    expect(crashed.status).toBe(500);
    expect(crashed.body.code).toBe('INTERNAL_ERROR');
    const [placed, ...more] = await orders();
    expect(more).toEqual([]);

    const retry = await place();
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ id: placed!.id, status: 'resting', remaining: '10000000' });

    clock.advance(61_000); // past the lease a crashed claim used to be taken over after
    const late = await place();
    expect(late.status).toBe(201);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(late.body.id).toBe(placed!.id);
    expect(await orders()).toHaveLength(1);
    const record = await server.runtime.database.db.selectFrom('idempotency_records').select(['state', 'effect_ref']).where('idem_key', '=', 'place-once').executeTakeFirstOrThrow();
    expect(record).toEqual({ state: 'done', effect_ref: placed!.id });
  });

  it('an order that fails inside its transaction leaves no effect: the retry runs once', async () => {
    const agent = await registerWallet(server, undefined, 'exactly-once-refused');
    const body = { market: '0x00000000000000000000000000000000000000aa', outcome: 0, action: 'buy', price: '0.4', shares: '10000000' };
    const first = await server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: 'no-market', body, unchecked: true });
    expect(first.status).toBe(404);
    const again = await server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: 'no-market', body, unchecked: true });
    expect(again.status).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps the answer the placement gave: a retry after the crash replays it even once the order has filled since', async () => {
    const [maker, taker] = [await registerWallet(server, undefined, 'answer-kept-maker'), await registerWallet(server, undefined, 'answer-kept-taker')];
    await gas(server, maker.account.address);
    const market = await createOrderBookMarket(server, maker, 'Will the first answer be the one replayed?', new Date(clock.now().getTime() + 7 * 86_400_000));
    const place = () =>
      server.call('POST', `${A}/orderbook/place-order`, {
        key: maker.key,
        idempotencyKey: 'answer-kept',
        body: { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '10000000' },
        unchecked: true,
      });
    crashes = 1;
    expect((await place()).status).toBe(500);
    // The other side of the book fills the order completely (a buy of the other outcome at 0.6 mints the pair).
    const fill = await server.call('POST', `${A}/orderbook/place-order`, {
      key: taker.key,
      idempotencyKey: 'answer-kept-fill',
      body: { market: market.address, outcome: 1, action: 'buy', price: '0.6', shares: '10000000' },
    });
    expect(fill.body).toMatchObject({ status: 'filled', filled: '10000000' });

    const retry = await place();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // What the placement answered when it committed, not the order as it is now.
    expect(retry.body).toMatchObject({ status: 'resting', filled: '0', remaining: '10000000', fills: [] });
    const now = await server.call('GET', `${A}/orderbook/orders?market=${market.address}`, { key: maker.key });
    expect(now.body.orders).toMatchObject([{ id: retry.body.id, status: 'filled', filled: '10000000' }]);
  });

  it("writes the key's record once, answer included, in the transaction that writes the order", async () => {
    const agent = await registerWallet(server, undefined, 'one-write');
    await gas(server, agent.account.address);
    const market = await createOrderBookMarket(server, agent, 'Will the record be written with the order?', new Date(clock.now().getTime() + 7 * 86_400_000));
    const placed = await server.call('POST', `${A}/orderbook/place-order`, {
      key: agent.key,
      idempotencyKey: 'one-write',
      body: { market: market.address, outcome: 0, action: 'buy', price: '0.3', shares: '10000000' },
    });
    expect(placed.status).toBe(201);
    const db = server.runtime.database.db;
    // xmin: the transaction that wrote a row's current version. A claim answered later would carry another one.
    const { rows } = await sql<{ record: string; order: string; state: string; body: unknown }>`
      SELECT r.xmin::text AS record, o.xmin::text AS order, r.state, r.response_body AS body
        FROM idempotency_records r, orders o WHERE r.idem_key = 'one-write' AND o.id = ${placed.body.id}::uuid`.execute(db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.record).toBe(rows[0]!.order);
    expect(rows[0]!.state).toBe('done');
    expect(rows[0]!.body).toEqual(placed.body);

    // A retry is the first answer byte for byte (an answer kept as jsonb came back with its keys reordered).
    const retry = await server.call('POST', `${A}/orderbook/place-order`, {
      key: agent.key,
      idempotencyKey: 'one-write',
      body: { market: market.address, outcome: 0, action: 'buy', price: '0.3', shares: '10000000' },
    });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(placed.text);
  });

  it("finds a retry's record with its batch's first statements: the retry places nothing and the others of the batch commit together", async () => {
    const agent = await registerWallet(server, undefined, 'retry-in-batch');
    await gas(server, agent.account.address);
    const market = await createOrderBookMarket(server, agent, 'Will a retry leave its batch alone?', new Date(clock.now().getTime() + 7 * 86_400_000));
    const body = (price: string) => ({ market: market.address, outcome: 0 as const, action: 'buy' as const, price, shares: '10000000' });
    const first = await server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: 'retry-in-batch-1', body: body('0.2') });
    expect(first.status).toBe(201);

    // Three placements joining one batch, as execute.ts makes them under keys: a retry of the first, and two new ones.
    const { idempotency, orderbook, keys } = server.runtime.services;
    const principal = await keys.authenticate(agent.key);
    const placeKeyed = (key: string, price: string) => {
      const keyed = { principal: `key:${principal.keyId}`, key, requestHash: `hash-${key}`, route: { method: 'POST', path: `${A}/orderbook/place-order` } };
      const recorder = Object.assign((trx: Parameters<typeof idempotency.recordAnswer>[0], ref: string, output?: unknown) => idempotency.recordAnswer(trx, keyed, ref, { status: 201, body: output, headers: {} }), {
        alreadyRecorded: (trx: Parameters<typeof idempotency.recordAnswer>[0]) => idempotency.recorded(trx, keyed),
      });
      return orderbook.place(principal, { ...body(price), tif: 'GTC', postOnly: false, shares: 10_000_000n }, recorder);
    };
    const before = orderbook.stats().transactions;
    const [retry, second, third] = await Promise.allSettled([placeKeyed('retry-in-batch-1', '0.2'), placeKeyed('retry-in-batch-2', '0.21'), placeKeyed('retry-in-batch-3', '0.22')]);
    expect(retry.status === 'rejected' && (retry.reason as { code?: string }).code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect([second.status, third.status]).toEqual(['fulfilled', 'fulfilled']);
    // One transaction: the retry was set aside before matching, so the batch never failed and was never split.
    expect(orderbook.stats().transactions - before).toBe(1);
    const orders = await server.runtime.database.db.selectFrom('orders').select('id').where('agent_id', '=', agent.agentId).where('market', '=', market.address.toLowerCase()).execute();
    expect(orders).toHaveLength(3);
  });
});

describe('a key another request recorded while the batch ran', () => {
  it('its record is not made, so the batch does not commit; alone, that order is refused and the others are placed', async () => {
    const agent = await registerWallet(server, undefined, 'record-race');
    await gas(server, agent.account.address);
    const market = await createOrderBookMarket(server, agent, 'Will a raced record stop its batch?', new Date(clock.now().getTime() + 7 * 86_400_000));
    const body = (price: string) => ({ market: market.address, outcome: 0 as const, action: 'buy' as const, price, shares: '10000000' });
    // An earlier placement, so the trader and the market are known (place-order.ts): nothing is awaited before the three
    // below join the market's queue, and they make one batch however slowly the database answers (on a busy CI machine
    // the first's look-ups came back a turn before the others', and it went alone).
    const earlier = await server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: 'record-race-0', body: body('0.1') });
    expect(earlier.status).toBe(201);
    const { idempotency, orderbook, keys } = server.runtime.services;
    const principal = await keys.authenticate(agent.key);
    const keyedOf = (key: string) => ({ principal: `key:${principal.keyId}`, key, requestHash: `hash-${key}`, route: { method: 'POST', path: `${A}/orderbook/place-order` } });
    // Another request's answered record of the first key, written after this batch looked for one: as the race between
    // the batch's first statements and its last (the placements here do not look, so the batch meets it there).
    await server.runtime.database.db.transaction().execute((trx) => idempotency.recordAnswer(trx, keyedOf('raced-1'), 'someone-else', { status: 201, body: { id: 'someone-else' }, headers: {} }));
    const placeKeyed = (key: string, price: string) =>
      orderbook.place(principal, { ...body(price), tif: 'GTC', postOnly: false, shares: 10_000_000n }, (trx, ref, output) =>
        idempotency.recordAnswer(trx, keyedOf(key), ref, { status: 201, body: output, headers: {} }),
      );
    const before = orderbook.stats().transactions;
    const [raced, second, third] = await Promise.allSettled([placeKeyed('raced-1', '0.11'), placeKeyed('raced-2', '0.12'), placeKeyed('raced-3', '0.13')]);
    expect(raced.status === 'rejected' && (raced.reason as { code?: string }).code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect([second.status, third.status]).toEqual(['fulfilled', 'fulfilled']);
    // The batch rolled back, then each alone: two of those commit.
    expect(orderbook.stats().transactions - before).toBe(2);
    const orders = await server.runtime.database.db.selectFrom('orders').select('price_bps').where('agent_id', '=', agent.agentId).orderBy('price_bps').execute();
    expect(orders.map((o) => o.price_bps)).toEqual([1000, 1200, 1300]);
    expect(await idempotency.find(keyedOf('raced-1'))).toEqual({ kind: 'replay', response: { status: 201, body: { id: 'someone-else' }, headers: {} } });
    expect(await idempotency.find(keyedOf('raced-2'))).toMatchObject({ kind: 'replay', response: { status: 201, body: { id: (second as PromiseFulfilledResult<{ id: string }>).value.id } } });
  });
});

describe('reservations kept per owner', () => {
  it('hold exactly what the resting orders reserve, after everything above', async () => {
    await expectReservationsAgree(server);
  });
});

// The order loop honours the shard fence (docs/operations.md "Order books"): on PostgreSQL, when a market's shard row
// names another process (it took the shard over while this one had not noticed), a placement and a cancel on that
// market are refused with 503 and Retry-After and write nothing; once the row names this process again, they go
// through. A PostgreSQL runtime is its deployment's only member here, so it owns every shard and routes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idemKey, registerWallet } from '../support/agents.ts';
import { onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { gas } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { SHARDS } from '../../src/services/cluster/shards.ts';

const A = '/api/agent/v1';
let server: TestServer;

describe.skipIf(!onPostgres)('the order loop behind the shard fence (skipped without DATABASE_URL)', () => {
  beforeAll(async () => {
    server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_SIGNUP_GRANT: '1000000000', FILLS_FREE_PER_MONTH: '1000' } });
  });
  afterAll(async () => server?.close());

  it('refuses to change a book whose shard another process owns, and writes nothing', async () => {
    const alice = await registerWallet(server, undefined, 'fence-alice');
    await gas(server, alice.account.address);
    const market = await createOrderBookMarket(server, alice, 'Will the fence hold this book?', new Date(Date.now() + 30 * 86_400_000));
    const post = (path: string, body: unknown) => server.call('POST', `${A}${path}`, { key: alice.key, body, idempotencyKey: idemKey('fence') });
    const bid = { market: market.address, outcome: 0, action: 'buy', price: '0.4', shares: '1000000' };
    const resting = await post('/orderbook/place-order', bid);
    // The cluster's state in the message: in session 17's CI and again in session 21 this first placement met a process
    // that owned no shard. The cause: test/cluster/cluster.test.ts, running meanwhile, ended every database's leader
    // connection, this one's too; it now ends only its own.
    expect(resting.status, `${resting.text}; cluster: ${JSON.stringify(server.runtime.services.cluster.status())}`).toBe(201);

    const db = server.runtime.database.db;
    const shard = Number(market.marketId % BigInt(SHARDS));
    const me = server.runtime.services.cluster.memberId!;
    expect((await db.selectFrom('order_shards').select('owner').where('shard', '=', shard).executeTakeFirstOrThrow()).owner).toBe(me);
    // Another process took the shard (its row names it); this process still holds the lock and thinks it owns it.
    await db.updateTable('order_shards').set({ owner: 'another-process' }).where('shard', '=', shard).execute();
    const orders = async () => (await db.selectFrom('orders').select('id').where('market', '=', market.address).execute()).length;
    const before = await orders();
    const placed = await post('/orderbook/place-order', bid);
    expect([placed.status, placed.body.code, placed.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
    const cancelled = await post('/orderbook/cancel-order', { orderId: resting.body.id });
    expect([cancelled.status, cancelled.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(await orders()).toBe(before);
    expect((await db.selectFrom('orders').select('status').where('id', '=', resting.body.id).executeTakeFirstOrThrow()).status).toBe('resting');

    // The row names this process again: the book takes orders and cancels.
    await db.updateTable('order_shards').set({ owner: me }).where('shard', '=', shard).execute();
    expect((await post('/orderbook/place-order', bid)).status).toBe(201);
    const done = await post('/orderbook/cancel-order', { orderId: resting.body.id });
    expect([done.status, done.body.status]).toEqual([200, 'cancelled']);
  });
});

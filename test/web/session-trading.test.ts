// The trading loop with a wallet session in place of an API key (docs/web.md "Trading with a wallet session"): what
// the web app does for a signed-in wallet. Real SIWE sign-in, real chain and book; nothing mocked.
import { parseUnits, type Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idemKey, newAccount, newClient, registerWallet } from '../support/agents.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { createMarket, fund, gas, sendApprovals } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { sessionHeaders, signedInWallet, signIn as sessionSignIn } from '../support/sessions.ts';

const A = '/api/agent/v1';
let server: TestServer;
let lmsr: Address;
let book: string;

beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  const creator = await registerWallet(server);
  await gas(server, creator.account.address);
  await fund(server, creator.account.address);
  lmsr = (await createMarket(server, creator.key, creator.account)).market.address;
  book = (await createOrderBookMarket(server, creator, 'Will the session book resolve Yes?', new Date(Date.now() + 30 * 86_400_000))).address;
});
afterAll(async () => {
  await server?.close();
});

const signIn = (account: PrivateKeyAccount) => sessionSignIn(server, account);

/** A call of the web app: the session cookie and the CSRF guard, no key. */
const asSession = (cookie: string, method: 'GET' | 'POST', path: string, body?: unknown, o: { guard?: boolean; key?: string } = {}): Promise<CallResult> =>
  server.call(method, `${A}${path}`, {
    body,
    key: o.key,
    headers: sessionHeaders(cookie, o),
    idempotencyKey: method === 'POST' && path.startsWith('/orderbook/') ? idemKey('session') : undefined,
  });

const buy = { market: '', outcome: 0, side: 'buy', shares: parseUnits('10', 6).toString() };

describe('a wallet session in place of a key', () => {
  it('quotes, asks for the approval, and prepares a trade its own wallet signs', async () => {
    const { account: alice, cookie } = await signedInWallet(server);
    const quote = await asSession(cookie, 'POST', '/trade/quote', { ...buy, market: lmsr });
    expect(quote.status, quote.text).toBe(200);
    expect(BigInt(quote.body.amount)).toBeGreaterThan(0n);

    const missing = await asSession(cookie, 'POST', '/trade/prepare', { ...buy, market: lmsr });
    expect([missing.status, missing.body.code], missing.text).toEqual([409, 'APPROVAL_REQUIRED']);
    await sendApprovals(server, alice, missing.body.approvals);
    const prepared = await asSession(cookie, 'POST', '/trade/prepare', { ...buy, market: lmsr });
    expect(prepared.status, prepared.text).toBe(200);
    expect(prepared.body.transaction.from).toBe(alice.address);
    expect(prepared.body.intent.recipient).toBe(alice.address);
  });

  it('places, lists and cancels its own orders, with its fill allowance, as the agent of its wallet', async () => {
    const alice = newAccount();
    const cookie = await signIn(alice);
    const placed = await asSession(cookie, 'POST', '/orderbook/place-order', { market: book, outcome: 0, action: 'buy', price: '0.4', shares: '2000000' });
    expect(placed.status, placed.text).toBe(201);
    expect(placed.body).toMatchObject({ status: 'resting', remaining: '2000000' });
    // The first trading call of a wallet no agent holds made one on the wallet path, with the signup grant.
    const agent = await server.runtime.database.db.selectFrom('agents').selectAll().where('wallet_address', '=', alice.address.toLowerCase()).executeTakeFirstOrThrow();
    expect(agent.registration_path).toBe('wallet');

    const listed = await asSession(cookie, 'GET', `/orderbook/orders?market=${book}&status=resting`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.orders.map((o: { id: string }) => o.id)).toEqual([placed.body.id]);
    const allowance = await asSession(cookie, 'GET', '/orderbook/fill-allowance');
    expect(allowance.status, allowance.text).toBe(200);
    expect(allowance.body.fills).toMatchObject({ enabled: expect.any(Boolean), remaining: expect.any(Number) });

    const cancelled = await asSession(cookie, 'POST', '/orderbook/cancel-order', { orderId: placed.body.id });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ id: placed.body.id, status: 'cancelled' });
  });

  it("acts as the agent already bound to the wallet: the agent's key sees the session's orders", async () => {
    const bot = await registerWallet(server, undefined, 'session-bot');
    const cookie = await signIn(bot.account);
    const placed = await asSession(cookie, 'POST', '/orderbook/place-order', { market: book, outcome: 1, action: 'buy', price: '0.25', shares: '1000000' });
    expect(placed.status, placed.text).toBe(201);
    const byKey = await server.call('GET', `${A}/orderbook/orders?market=${book}`, { key: bot.key });
    expect(byKey.body.orders.map((o: { id: string }) => o.id)).toEqual([placed.body.id]);
  });

  it("cannot cancel another wallet's order", async () => {
    const alice = await signIn(newAccount());
    const mallory = await signIn(newAccount());
    const placed = await asSession(alice, 'POST', '/orderbook/place-order', { market: book, outcome: 1, action: 'buy', price: '0.3', shares: '1000000' });
    expect(placed.status, placed.text).toBe(201);
    const refused = await asSession(mallory, 'POST', '/orderbook/cancel-order', { orderId: placed.body.id });
    expect([refused.status, refused.body.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    expect((await asSession(mallory, 'GET', '/orderbook/orders')).body.orders).toEqual([]);
    const still = await asSession(alice, 'GET', `/orderbook/orders?status=resting`);
    expect(still.body.orders.map((o: { id: string }) => o.id)).toContain(placed.body.id);
  });

  it('is refused without a session, with an unusable one, and for a cookie write without the CSRF guard', async () => {
    const none = await server.call('POST', `${A}/trade/quote`, { body: { ...buy, market: lmsr }, headers: newClient() });
    expect([none.status, none.body.code]).toEqual([401, 'API_KEY_REQUIRED']);
    const unknown = await asSession(`svc_session=svc_ws_${'A'.repeat(43)}`, 'POST', '/trade/quote', { ...buy, market: lmsr });
    expect([unknown.status, unknown.body.code, unknown.body.reason]).toEqual([401, 'WALLET_AUTH_REQUIRED', 'SESSION_UNKNOWN']);

    const cookie = await signIn(newAccount());
    // A cross-site form or fetch cannot add a custom header without a CORS preflight svc never grants.
    const forged = await asSession(cookie, 'POST', '/orderbook/place-order', { market: book, outcome: 0, action: 'buy', price: '0.2', shares: '1000000' }, { guard: false });
    expect([forged.status, forged.body.code, forged.body.reason]).toEqual([403, 'FORBIDDEN', 'CSRF_GUARD_MISSING']);
    // Reads need no guard.
    expect((await asSession(cookie, 'GET', '/orderbook/orders', undefined, { guard: false })).status).toBe(200);
  });

  it('lets a key win over the session, and keeps the session off every other capability', async () => {
    const cookie = await signIn(newAccount());
    const readOnly = await server.key('read-only');
    const keyed = await asSession(cookie, 'POST', '/trade/quote', { ...buy, market: lmsr }, { key: readOnly });
    expect([keyed.status, keyed.body.code]).toEqual([403, 'INSUFFICIENT_TIER']);
    // The key's own orders (it belongs to no agent), not the session's wallet's.
    const listed = await asSession(cookie, 'GET', '/orderbook/orders', undefined, { key: readOnly });
    expect([listed.status, listed.body.code]).toEqual([403, 'FORBIDDEN']);
    for (const path of ['/me', '/webhooks']) {
      const res = await asSession(cookie, 'GET', path);
      expect([res.status, res.body.code], path).toEqual([401, 'API_KEY_REQUIRED']);
    }
  });
});

describe('a wallet no agent holds, while the wallet registration path is closed', () => {
  it('opens no account through a session: 403 FEATURE_DISABLED', async () => {
    const closed = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    try {
      const account = newAccount();
      const cookie = await sessionSignIn(closed, account);
      const res = await closed.call('GET', `${A}/orderbook/fill-allowance`, { headers: sessionHeaders(cookie, { guard: false }) });
      expect([res.status, res.body.code, res.body.reason]).toEqual([403, 'FEATURE_DISABLED', 'AGENT_REGISTRATION_CLOSED']);
      expect(await closed.runtime.database.db.selectFrom('agents').select('id').where('wallet_address', '=', account.address.toLowerCase()).execute()).toEqual([]);
    } finally {
      await closed.close();
    }
  });
});

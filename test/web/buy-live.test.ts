// What the web app's Buy PM page and live updates need from the server, without a key (docs/web.md "Buying PM" and
// "Live updates"): a signed-in wallet buys PM by permit with its session alone; a keyless event stream gets public
// market events and never an agent's private ones, at a budget and a connection cap per client address.
import { parseSignature, parseUnits, type Address, type PrivateKeyAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { idemKey, newClient, registerWallet } from '../support/agents.ts';
import { startTestServer, type CallResult, type TestServer } from '../support/harness.ts';
import { gas, tokens } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';
import { sessionHeaders, signedInWallet } from '../support/sessions.ts';
import { waitFor } from '../support/wait.ts';

const E = '/api/v1/economy';
let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', EVENTS_MAX_KEYLESS_PER_ADDRESS: '2', EVENTS_HEARTBEAT_MS: '100' } });
  base = await server.runtime.listen();
});
afterAll(async () => server?.close());

const asSession = (cookie: string, method: 'GET' | 'POST', path: string, body?: unknown, o: { guard?: boolean } = {}): Promise<CallResult> =>
  server.call(method, `${E}${path}`, {
    body,
    headers: sessionHeaders(cookie, o),
    idempotencyKey: method === 'POST' ? idemKey('buy') : undefined,
  });

async function permitBody(account: PrivateKeyAccount, paymentAmount: bigint, minPmOut: bigint) {
  const client = server.runtime.services.chain.client;
  const usdc = tokens(server).USDC;
  const sale = server.runtime.deployments.PmSale!.address as Address;
  const nonce = (await client.readContract({ address: usdc, abi: loadArtifact('TestUSDC').abi, functionName: 'nonces', args: [account.address] } as never)) as bigint;
  const deadline = Math.floor(server.runtime.clock.now().getTime() / 1000) + 3600;
  const signature = await account.signTypedData({
    domain: { name: 'Test USD Coin', version: '1', chainId: server.config.chain.id, verifyingContract: usdc },
    types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
    primaryType: 'Permit',
    message: { owner: account.address, spender: sale, value: paymentAmount, nonce, deadline: BigInt(deadline) },
  });
  const { v, r, s } = parseSignature(signature);
  return { paymentAmount: paymentAmount.toString(), minPmOut: minPmOut.toString(), deadline, v: Number(v), r, s };
}

describe('buying PM with a wallet session and no key', () => {
  it('reads the terms as a visitor, and buys PM by permit with the session cookie alone', async () => {
    const visitor = `svc_visitor=${server.runtime.services.visitors.issue()}`;
    const terms = await server.call('GET', `${E}/purchase-terms`, { headers: { ...newClient(), cookie: visitor } });
    expect(terms.status, terms.text).toBe(200);
    expect(terms.body.methods.card).toMatchObject({ available: false, unavailableReason: 'NOT_CONFIGURED' });

    const { account: buyer, cookie } = await signedInWallet(server, { usdc: parseUnits('20', 6), pm: 0n });
    const grant = await asSession(cookie, 'GET', '/signup-grant');
    expect(grant.status, grant.text).toBe(200);

    const paymentAmount = parseUnits('5', 6);
    const pmOut = (paymentAmount * 10n ** 18n) / BigInt(server.config.economy.priceUsdcPerPm);
    const body = await permitBody(buyer, paymentAmount, pmOut);
    // A cookie write without the CSRF guard is refused before anything is read from the chain.
    const forged = await asSession(cookie, 'POST', '/relay-purchase', body, { guard: false });
    expect([forged.status, forged.body.code, forged.body.reason]).toEqual([403, 'FORBIDDEN', 'CSRF_GUARD_MISSING']);
    const bought = await asSession(cookie, 'POST', '/relay-purchase', body);
    expect(bought.status, bought.text).toBe(200);
    expect(bought.body).toMatchObject({ buyer: buyer.address.toLowerCase(), pmReceived: pmOut.toString() });
    const pm = await server.runtime.services.chain.client.readContract({ address: tokens(server).PM, abi: loadArtifact('TestUSDC').abi, functionName: 'balanceOf', args: [buyer.address] } as never);
    expect(pm).toBe(pmOut);

    // No card provider here: the checkout says so in its reason.
    const card = await asSession(cookie, 'POST', '/checkout-session', { usd: 5 });
    expect([card.status, card.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
  });

  it('refuses a keyless call without a session as before, and an unknown session in words', async () => {
    const none = await server.call('POST', `${E}/relay-purchase`, { body: {}, headers: newClient(), idempotencyKey: idemKey('buy') });
    expect([none.status, none.body.code]).toEqual([401, 'API_KEY_REQUIRED']);
    const unknown = await asSession(`svc_session=svc_ws_${'A'.repeat(43)}`, 'GET', '/signup-grant');
    expect([unknown.status, unknown.body.code]).toEqual([401, 'WALLET_AUTH_REQUIRED']);
  });
});

type Envelope = { type: string; marketAddress: string | null; private: boolean; data: Record<string, unknown> };

describe('the event stream without a key', () => {
  it('gives a visitor public market events and no private ones', async () => {
    const visitor = `svc_visitor=${server.runtime.services.visitors.issue()}`;
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/agent/v1/events/ws`, { headers: { cookie: visitor, 'x-forwarded-for': '198.51.100.7' } });
    const messages: { op: string; event?: Envelope; sequence?: string | null }[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as (typeof messages)[number]));
    await waitFor(() => messages.find((m) => m.op === 'welcome'), { what: 'the welcome message' });
    ws.send(JSON.stringify({ op: 'subscribe' }));
    await waitFor(() => messages.find((m) => m.op === 'subscribed'), { what: 'the subscribed message' });

    const maker = await registerWallet(server, undefined, 'live-maker');
    await gas(server, maker.account.address);
    const book = await createOrderBookMarket(server, maker, 'Will a visitor see this market go live?', new Date(Date.now() + 7 * 86_400_000));
    const placed = await server.call('POST', '/api/agent/v1/orderbook/place-order', { key: maker.key, idempotencyKey: idemKey('live'), body: { market: book.address, outcome: 0, action: 'buy', price: '0.4', shares: '1000000' } });
    expect(placed.status, placed.text).toBe(201);
    const events = () => messages.filter((m) => m.op === 'event').map((m) => m.event!);
    await waitFor(() => events().find((e) => e.type === 'market.live' && e.marketAddress === book.address), { what: 'market.live for the visitor' });
    // A crossing order from another agent: the fill is public as market.trade, its reports stay private.
    const taker = await registerWallet(server, undefined, 'live-taker');
    const crossed = await server.call('POST', '/api/agent/v1/orderbook/place-order', { key: taker.key, idempotencyKey: idemKey('live'), body: { market: book.address, outcome: 1, action: 'buy', price: '0.6', shares: '1000000' } });
    expect(crossed.status, crossed.text).toBe(201);
    const trade = await waitFor(() => events().find((e) => e.type === 'market.trade' && e.marketAddress === book.address), { what: 'the fill as market.trade' });
    expect(trade).toMatchObject({ private: false, data: { kind: 'orderbook', outcome: 1, side: 'buy', shares: '1000000', price: '0.6' } });
    // The stream's position (in each heartbeat) passes the maker's execution:report: had it been sent, it would be here.
    const report = await waitFor(() => server.runtime.database.db.selectFrom('events').select('seq').where('type', '=', 'execution:report').where('agent_id', '=', taker.agentId).orderBy('seq', 'desc').executeTakeFirst(), {
      what: 'the private report in the outbox',
    });
    await waitFor(() => messages.some((m) => m.op === 'heartbeat' && typeof m.sequence === 'string' && BigInt(m.sequence) >= BigInt(report.seq)), { what: 'the stream to pass the report' });
    ws.close();
    expect(events().every((e) => !e.private)).toBe(true);
    expect(events().some((e) => e.type === 'execution:report')).toBe(false);
  });

  it('caps keyless streams per client address with 429, while a key is not capped', async () => {
    const from = { 'x-forwarded-for': '203.0.113.9' };
    const open = async (headers: Record<string, string>) => {
      const abort = new AbortController();
      const res = await fetch(`${base}/api/agent/v1/events/stream`, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
      return { res, close: () => abort.abort() };
    };
    const [a, b] = [await open(from), await open(from)];
    expect([a.res.status, b.res.status]).toEqual([200, 200]);
    const third = await open(from);
    expect(third.res.status).toBe(429);
    expect(await third.res.json()).toMatchObject({ code: 'RATE_LIMITED', reason: 'KEYLESS_STREAMS_PER_ADDRESS' });
    const keyed = await open({ ...from, authorization: `Bearer ${await server.key('read-only')}` });
    expect(keyed.res.status).toBe(200);
    keyed.close();
    a.close();
    // A closed stream frees its place.
    await waitFor(async () => {
      const again = await open(from);
      again.close();
      return again.res.status === 200;
    }, { what: 'a place freed by the closed stream' });
    b.close();
  });
});

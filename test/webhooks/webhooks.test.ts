// Webhooks end to end (docs/events.md "Webhooks"): a real server delivers to receivers this test starts on 127.0.0.1,
// and every request a receiver gets is verified with the `standardwebhooks` library. A public market event is delivered
// signed; a 500 is retried after the backoff and then delivered; a 410 disables the endpoint at once; agent A's
// endpoint never receives agent B's private event; during a secret rotation either secret verifies; a replay sends a
// delivery again; the last failed attempt fails the delivery and 5 days of failures disable the endpoint; a pending
// delivery survives a restart; targets on private addresses are refused unless the operator allows them. Time is a
// ManualClock the test moves, with the dispatcher's runOnce(); no sleeps.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { isPublicAddress } from '../../src/core/webhooks/addresses.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../src/core/webhooks/policy.ts';
import { appendEvent } from '../../src/services/events/outbox.ts';
import { checkTarget } from '../../src/services/webhooks/target.ts';
import { idemKey, registerWallet } from '../support/agents.ts';
import { dropPostgres, freshPostgresUrl, onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { gas, post, terms } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

const A = '/api/agent/v1';
const ENV = { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCH_INTERVAL_MS: '60000' };

type Envelope = { id: string; type: string; sequence: string; timestamp: string; chainId: number | null; marketAddress: string | null; private: boolean; data: Record<string, unknown> };
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  envelope: Envelope;
  /** Which of the receiver's secrets verify this request (standardwebhooks, at the receiver's clock). */
  verifiedBy: string[];
}

/** Whether the standardwebhooks library accepts the request under `secret` when the receiver's clock reads `nowMs`. */
function verifies(secret: string, body: string, headers: IncomingHttpHeaders, nowMs: number): boolean {
  // The library checks webhook-timestamp against Date.now(); the receiver lives at the test's clock. verify() is
  // synchronous, so nothing else runs while Date.now reads that clock.
  const realNow = Date.now;
  Date.now = () => nowMs;
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    Date.now = realNow;
  }
}

/** A webhook receiver on 127.0.0.1: answers each request with the next queued status (200 when none), keeps them all. */
async function startReceiver(now: () => number) {
  const requests: Received[] = [];
  const answers: number[] = [];
  const secrets: string[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, body, envelope: JSON.parse(body) as Envelope, verifiedBy: secrets.filter((s) => verifies(s, body, req.headers, now())) });
      res.statusCode = answers.shift() ?? 200;
      res.end(res.statusCode === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hooks/svc`;
  return {
    url,
    requests,
    answers,
    secrets,
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const newMarket = () => `0x${randomBytes(20).toString('hex')}`;

describe('webhooks on a server that allows private targets', () => {
  let server: TestServer;
  const clock = new ManualClock();
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await startReceiver(() => clock.now().getTime());
    receivers.push(r);
    return r;
  };
  let alice: Awaited<ReturnType<typeof registerWallet>>;
  let bob: Awaited<ReturnType<typeof registerWallet>>;

  beforeAll(async () => {
    server = await startTestServer({ clock, env: ENV });
    alice = await registerWallet(server, undefined, 'hooks-alice');
    bob = await registerWallet(server, undefined, 'hooks-bob');
  });
  afterAll(async () => {
    await server?.close();
    for (const r of receivers) await r.close();
  });

  const runOnce = () => server.runtime.services.webhookDispatcher.runOnce();
  const call = (method: string, url: string, key: string, body?: unknown) => server.call(method, `${A}${url}`, { key, body, ...(method === 'GET' ? {} : { idempotencyKey: idemKey('wh') }) });
  /** Registers an endpoint of `agent` for `r`, and gives `r` its secret. */
  const register = async (agent: { key: string }, r: Receiver, body: Record<string, unknown> = {}) => {
    const res = await call('POST', '/webhooks', agent.key, { url: r.url, ...body });
    expect(res.status, res.text).toBe(201);
    r.secrets.push(res.body.secret);
    return res.body as { endpoint: { id: string }; secret: string };
  };
  /** A public event written to the outbox as any writer does (in its own transaction). */
  const publish = async (market: string, type = 'market.resolved', payload: Record<string, unknown> = { outcome: 1, isVoid: false }) => {
    const stored = await server.runtime.database.db.transaction().execute((trx) => appendEvent(trx, clock, { type, chainId: server.config.chain.id, marketAddress: market, payload }));
    server.runtime.services.events.notify();
    return stored;
  };
  const deliveries = async (key: string, endpointId: string) => {
    const res = await call('GET', `/webhooks/${endpointId}/deliveries`, key);
    expect(res.status, res.text).toBe(200);
    return res.body.deliveries as { id: string; eventId: string; eventType: string; status: string; attempts: number; nextAttemptAt: string | null; lastStatusCode: number | null; lastError: string | null }[];
  };

  it('publishes the verification recipe, the retry schedule and the management endpoints in GET /webhooks/discovery', async () => {
    const res = await server.call('GET', `${A}/webhooks/discovery`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.verification.signedContent).toBe('${webhook-id}.${webhook-timestamp}.${raw body}');
    expect(Object.keys(res.body.request.headers)).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
    expect(res.body.retries).toMatchObject({ delaysSeconds: [5, 300, 1800, 7200, 18000, 36000, 36000], maxAttempts: 8 });
    expect(res.body.targets.privateTargetsAllowed).toBe(true);
    expect(res.body.management.map((m: { method: string; path: string }) => `${m.method} ${m.path}`).sort()).toEqual(
      [
        'POST /webhooks',
        'GET /webhooks',
        'GET /webhooks/:id',
        'PATCH /webhooks/:id',
        'DELETE /webhooks/:id',
        'POST /webhooks/:id/rotate-secret',
        'GET /webhooks/:id/deliveries',
        'POST /webhooks/:id/deliveries/:deliveryId/replay',
      ]
        .map((n) => n.replace(' /', ` ${A}/`))
        .sort(),
    );
  });

  it('delivers a public market event signed so that standardwebhooks verifies it, and shows the secret only once', async () => {
    const r = await receiver();
    const idem = idemKey('reg');
    const created = await server.call('POST', `${A}/webhooks`, { key: alice.key, idempotencyKey: idem, body: { url: r.url, description: 'markets', filter: { kinds: ['market.*'] } } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    r.secrets.push(created.body.secret);
    const id = created.body.endpoint.id as string;
    // Shown once: not in a retry of the same request, nor in any read.
    const retried = await server.call('POST', `${A}/webhooks`, { key: alice.key, idempotencyKey: idem, body: { url: r.url, description: 'markets', filter: { kinds: ['market.*'] } } });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ endpoint: { id }, secret: null });
    for (const read of [await call('GET', '/webhooks', alice.key), await call('GET', `/webhooks/${id}`, alice.key)]) {
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain(created.body.secret.slice(6, 20));
    }
    expect((await call('GET', '/webhooks', alice.key)).body.endpoints.map((e: { id: string }) => e.id)).toEqual([id]);
    const sealed = await server.runtime.database.db.selectFrom('webhook_endpoints').select('secret_sealed').where('id', '=', id).executeTakeFirstOrThrow();
    expect(sealed.secret_sealed).not.toContain(created.body.secret.slice(6, 20));

    await gas(server, alice.account.address);
    const book = await createOrderBookMarket(server, alice, 'Will the webhook carry the live event?', new Date(clock.now().getTime() + 20 * 86_400_000));
    await runOnce();
    const got = r.requests.filter((q) => q.envelope.marketAddress === book.address);
    expect(got.map((q) => q.envelope.type).sort()).toEqual(['market.created', 'market.live']); // in any order: sequence orders them
    for (const q of got) {
      expect(q.verifiedBy).toEqual([created.body.secret]);
      expect(q.headers).toMatchObject({ 'webhook-id': q.envelope.id, 'webhook-timestamp': String(Math.floor(clock.now().getTime() / 1000)), 'content-type': 'application/json' });
      expect(q.envelope).toMatchObject({ id: `evt_${q.envelope.sequence}`, private: false, chainId: server.config.chain.id });
    }
    // A changed byte does not verify: the signature covers the body.
    expect(verifies(created.body.secret, got[0]!.body.replace('"private":false', '"private":true'), got[0]!.headers, clock.now().getTime())).toBe(false);
    const log = await deliveries(alice.key, id);
    expect(log.filter((d) => got.some((q) => q.envelope.id === d.eventId)).map((d) => [d.eventType, d.status, d.attempts, d.lastStatusCode])).toEqual([
      ['market.live', 'delivered', 1, 200],
      ['market.created', 'delivered', 1, 200],
    ]);
    // The scope guards the management endpoints.
    const readOnly = await server.key('read-only');
    expect((await call('GET', '/webhooks', readOnly)).body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it("never sends agent B's private event to agent A's endpoint, and never shows A's endpoints to B", async () => {
    const [ra, rb] = [await receiver(), await receiver()];
    const mine = await register(alice, ra);
    await register(bob, rb, { filter: { kinds: ['negotiation.countered'] } });
    // Terms outside the schedule: the protocol counters them and tells the proposer alone (negotiation.countered).
    const proposed = await post(server, bob.key, '/negotiate/propose', terms({ liquidity: '1000', creatorFeeBps: 450, collateral: 'PM', closeTime: new Date(clock.now().getTime() + 7 * 86_400_000).toISOString() }));
    expect(proposed.status, proposed.text).toBe(201);
    expect(proposed.body.negotiation.status).toBe('countered');
    await runOnce();
    const countered = rb.requests.filter((q) => q.envelope.type === 'negotiation.countered');
    expect(countered).toHaveLength(1);
    expect(countered[0]!.envelope).toMatchObject({ private: true, data: { negotiationId: proposed.body.negotiation.id } });
    expect(countered[0]!.verifiedBy).toEqual(rb.secrets);
    expect(ra.requests.filter((q) => q.envelope.type === 'negotiation.countered')).toEqual([]);
    const aliceRows = await server.runtime.database.db.selectFrom('webhook_deliveries').select('event_seq').where('endpoint_id', '=', mine.endpoint.id).execute();
    expect(aliceRows.map((r) => r.event_seq)).not.toContain(countered[0]!.envelope.sequence);
    // Another agent's endpoint is as absent as a missing one.
    for (const [method, url] of [['GET', `/webhooks/${mine.endpoint.id}`], ['PATCH', `/webhooks/${mine.endpoint.id}`], ['DELETE', `/webhooks/${mine.endpoint.id}`], ['GET', `/webhooks/${mine.endpoint.id}/deliveries`]] as const) {
      const res = await call(method, url, bob.key, method === 'PATCH' ? { description: 'mine now' } : undefined);
      expect([method, res.status, res.body.code]).toEqual([method, 404, 'WEBHOOK_NOT_FOUND']);
    }
    expect((await call('DELETE', `/webhooks/${mine.endpoint.id}`, alice.key)).body).toEqual({ id: mine.endpoint.id, deleted: true });
  });

  it('retries a 500 after the backoff and then delivers; a replay sends it again with the same webhook-id', async () => {
    const r = await receiver();
    const market = newMarket();
    const { endpoint } = await register(alice, r, { filter: { markets: [market.toUpperCase().replace('0X', '0x')] } });
    r.answers.push(500);
    const event = await publish(market);
    await runOnce();
    expect(r.requests.map((q) => q.envelope.id)).toEqual([`evt_${event.seq}`]);
    let [delivery] = await deliveries(alice.key, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500: no' });
    const due = Date.parse(delivery!.nextAttemptAt!) - clock.now().getTime();
    expect(due).toBeGreaterThanOrEqual(5_000);
    expect(due).toBeLessThanOrEqual(5_500);

    await runOnce(); // not due yet
    expect(r.requests).toHaveLength(1);
    clock.advance(due);
    await runOnce();
    expect(r.requests).toHaveLength(2);
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([`evt_${event.seq}`, `evt_${event.seq}`]);
    expect(r.requests[1]!.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000))); // each attempt its own time
    expect(r.requests.every((q) => q.verifiedBy.length === 1)).toBe(true);
    [delivery] = await deliveries(alice.key, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });

    const replayed = await call('POST', `/webhooks/${endpoint.id}/deliveries/${delivery!.id}/replay`, alice.key);
    expect(replayed.status, replayed.text).toBe(202);
    expect(replayed.body).toMatchObject({ id: delivery!.id, status: 'pending', attempts: 0 });
    await runOnce();
    expect(r.requests).toHaveLength(3);
    expect(r.requests[2]).toMatchObject({ headers: { 'webhook-id': `evt_${event.seq}` }, verifiedBy: r.secrets });
    expect((await deliveries(alice.key, endpoint.id))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('disables an endpoint at once when it answers 410, and resumes where it stopped when enabled again', async () => {
    const r = await receiver();
    const market = newMarket();
    const { endpoint } = await register(alice, r, { filter: { markets: [market] } });
    r.answers.push(410);
    await publish(market);
    await runOnce();
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.verifiedBy).toEqual(r.secrets);
    const gone = await call('GET', `/webhooks/${endpoint.id}`, alice.key);
    expect(gone.body).toMatchObject({ status: 'disabled', disabledReason: 'GONE' });
    expect((await deliveries(alice.key, endpoint.id))[0]).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });

    // Nothing more is sent, and nothing can be replayed, while it is disabled.
    const later = await publish(market);
    await runOnce();
    expect(r.requests).toHaveLength(1);
    const [first] = await deliveries(alice.key, endpoint.id);
    const refused = await call('POST', `/webhooks/${endpoint.id}/deliveries/${first!.id}/replay`, alice.key);
    expect([refused.status, refused.body.code]).toEqual([409, 'WEBHOOK_DISABLED']);

    const enabled = await call('PATCH', `/webhooks/${endpoint.id}`, alice.key, { status: 'active' });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', disabledReason: null });
    await runOnce();
    expect(r.requests.map((q) => q.envelope.sequence)).toEqual([r.requests[0]!.envelope.sequence, later.seq.toString()]);
    expect(r.requests[1]!.verifiedBy).toEqual(r.secrets);
  });

  it('signs with both secrets during a rotation overlap, then with the new one only', async () => {
    const r = await receiver();
    const market = newMarket();
    const { endpoint, secret: first } = await register(alice, r, { filter: { markets: [market] } });
    const idem = idemKey('rot');
    const rotated = await server.call('POST', `${A}/webhooks/${endpoint.id}/rotate-secret`, { key: alice.key, idempotencyKey: idem, body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    const second = rotated.body.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(Date.parse(rotated.body.previousSecretExpiresAt)).toBe(clock.now().getTime() + 86_400_000);
    const again = await server.call('POST', `${A}/webhooks/${endpoint.id}/rotate-secret`, { key: alice.key, idempotencyKey: idem, body: {} });
    expect(again.body).toMatchObject({ secret: null, endpoint: { id: endpoint.id } });
    r.secrets.push(second);

    await publish(market);
    await runOnce();
    const during = r.requests.at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(during.verifiedBy).toEqual([first, second]); // a receiver holding either secret accepts it

    clock.advance(86_400_000 + 1_000);
    await publish(market);
    await runOnce();
    const after = r.requests.at(-1)!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(after.verifiedBy).toEqual([second]);
    expect((await call('GET', `/webhooks/${endpoint.id}`, alice.key)).body.previousSecretExpiresAt).toBeNull();
  });

  it('fails a delivery after its last attempt, and disables an endpoint whose attempts failed for 5 days', async () => {
    const r = await receiver();
    const market = newMarket();
    const { endpoint } = await register(alice, r, { filter: { markets: [market] } });
    r.answers.push(...new Array<number>(20).fill(503));
    await publish(market);
    await runOnce();
    for (const delay of RETRY_DELAYS_SECONDS) {
      clock.advance(delay * 1100 + 1_000); // the delay and its most jitter
      await runOnce();
    }
    expect(r.requests).toHaveLength(MAX_ATTEMPTS);
    expect(r.requests.every((q) => q.verifiedBy.length === 1)).toBe(true);
    const [failed] = await deliveries(alice.key, endpoint.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastStatusCode: 503, nextAttemptAt: null });
    const view = (await call('GET', `/webhooks/${endpoint.id}`, alice.key)).body;
    expect(view).toMatchObject({ status: 'active', failingSince: expect.any(String) });

    clock.advance(5 * 86_400_000);
    await publish(market);
    await runOnce();
    expect(r.requests).toHaveLength(MAX_ATTEMPTS + 1);
    expect((await call('GET', `/webhooks/${endpoint.id}`, alice.key)).body).toMatchObject({ status: 'disabled', disabledReason: 'FAILING' });
    const [latest] = await deliveries(alice.key, endpoint.id);
    expect(latest).toMatchObject({ status: 'abandoned', attempts: 1, lastStatusCode: 503 });
  });

  it('refuses to target this service itself, and refuses credentials in the URL', async () => {
    for (const url of ['http://svc.test/api/agent/v1/me', 'http://user:pw@127.0.0.1:9/hook']) {
      const res = await call('POST', '/webhooks', alice.key, { url });
      expect([url, res.status, res.body.code]).toEqual([url, 400, 'WEBHOOK_TARGET_REFUSED']);
    }
    expect((await call('POST', '/webhooks', alice.key, { url: 'ftp://127.0.0.1/hook' })).status).toBe(400);
  });
});

describe('webhooks across a restart', () => {
  it('keeps a pending delivery and delivers it after the restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-webhooks-restart-'));
    const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
    let clock = new ManualClock();
    const r = await startReceiver(() => clock.now().getTime());
    try {
      const first = await startTestServer({ dataDir, persistent: true, databaseUrl, clock, env: ENV });
      let endpointId: string;
      let seq: bigint;
      try {
        const agent = await registerWallet(first, undefined, 'hooks-restart');
        const created = await first.call('POST', `${A}/webhooks`, { key: agent.key, idempotencyKey: idemKey('wr'), body: { url: r.url, filter: { kinds: ['market.resolved'] } } });
        expect(created.status, created.text).toBe(201);
        r.secrets.push(created.body.secret);
        endpointId = created.body.endpoint.id;
        r.answers.push(500);
        const stored = await first.runtime.database.db.transaction().execute((trx) => appendEvent(trx, clock, { type: 'market.resolved', chainId: 8453, marketAddress: newMarket(), payload: { outcome: 2, isVoid: false } }));
        seq = stored.seq;
        await first.runtime.services.webhookDispatcher.runOnce();
        expect(r.requests).toHaveLength(1);
      } finally {
        await first.close();
      }
      clock = new ManualClock(new Date(clock.now().getTime() + 10_000));
      const second = await startTestServer({ dataDir, persistent: true, databaseUrl, clock, env: ENV });
      try {
        await second.runtime.services.webhookDispatcher.runOnce();
        expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([`evt_${seq}`, `evt_${seq}`]);
        // The secret sealed before the restart still signs.
        expect(r.requests[1]!.verifiedBy).toEqual(r.secrets);
        const row = await second.runtime.database.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow();
        expect(row).toMatchObject({ status: 'delivered', attempts: 2, last_status_code: 200 });
      } finally {
        await second.close();
      }
    } finally {
      await r.close();
      if (databaseUrl) await dropPostgres(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('webhook targets', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => server?.close());

  it('refuses loopback, private, link-local and metadata targets when private targets are not allowed', async () => {
    const agent = await registerWallet(server, undefined, 'hooks-targets');
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:192.168.1.1]/hook', 'https://100.64.0.1/']) {
      const res = await server.call('POST', `${A}/webhooks`, { key: agent.key, idempotencyKey: idemKey('t'), body: { url } });
      expect([url, res.status, res.body.code]).toEqual([url, 400, 'WEBHOOK_TARGET_REFUSED']);
    }
    expect((await server.call('GET', `${A}/webhooks/discovery`)).body.targets.privateTargetsAllowed).toBe(false);
  });

  it('checks every address a host name resolves to', async () => {
    const policy = (addresses: string[]) => ({ allowPrivate: false, ownOrigins: [], resolve: async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) });
    await expect(checkTarget(policy(['93.184.215.14']), 'https://hooks.example/in#frag')).resolves.toBe('https://hooks.example/in');
    await expect(checkTarget(policy(['93.184.215.14', '10.0.0.7']), 'https://hooks.example/in')).rejects.toMatchObject({ code: 'WEBHOOK_TARGET_REFUSED' });
    await expect(checkTarget(policy(['fd00:ec2::254']), 'https://hooks.example/in')).rejects.toMatchObject({ code: 'WEBHOOK_TARGET_REFUSED' });
    await expect(checkTarget({ ...policy([]), resolve: async () => Promise.reject(new Error('ENOTFOUND')) }, 'https://nowhere.example/')).rejects.toMatchObject({ code: 'WEBHOOK_TARGET_REFUSED' });
  });

  it('tells public addresses from the rest', () => {
    const publicOnes = ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
    const others = ['127.0.0.1', '0.0.0.0', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '224.0.0.1', '255.255.255.255', '198.18.0.1', '::', '::1', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:c0a8:101::1', '2001:db8::1', 'not-an-ip'];
    expect(publicOnes.filter((a) => !isPublicAddress(a))).toEqual([]);
    expect(others.filter((a) => isPublicAddress(a))).toEqual([]);
  });

  it('refuses WEBHOOK_ALLOW_PRIVATE_TARGETS on a live environment', () => {
    expect(() => loadConfig({ SVC_ENVIRONMENT: 'live', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(ConfigError);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks.allowPrivateTargets).toBe(true);
  });
});

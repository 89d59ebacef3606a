// A process suite (docs/testing.md "Process suites"): two real `svc start` processes on one PostgreSQL database and one
// chain. A runs the whole service and its embedded anvil; B joins as another API process (SVC_ROLE=api, CHAIN_RPC_URL
// at A's anvil, the same operator key and tokens: docs/architecture.md "Several processes"). Writes go through A and
// through B. A WebSocket subscriber on A and an SSE subscriber on B each receive every event meant for their agent (the
// outbox, read at the end) exactly once, in order, whichever process wrote it; and one webhook endpoint receives each
// delivery once (verified with the standardwebhooks library, one attempt each in the database) although both
// processes run the dispatcher. PostgreSQL only: PGlite is one process's database (its folder is locked to it).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { freePort, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { AGENT_API, call, createOrderBook, registerAgent, type Agent } from '../crash/client.ts';
import { onPostgres } from '../support/harness.ts';
import { settledShards } from '../support/cluster.ts';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';
import { waitFor } from '../support/wait.ts';

type Envelope = { id: string; type: string; sequence: string; marketAddress: string | null; private: boolean };
/** Orders alice places through each process (each one an execution:report for her, and a webhook delivery). */
const ORDERS_EACH = 8;
const COMMON = {
  LOG_LEVEL: 'warn',
  REGISTRATION_PATHS: 'wallet',
  TRUST_PROXY: 'true',
  LEDGER_SIGNUP_GRANT: '1000000000000000',
  FILLS_FREE_PER_MONTH: '1000000000',
  EVENTS_HEARTBEAT_MS: '100',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

/** A WebSocket subscriber: every event and the sequence of the last heartbeat. */
function wsSubscriber(base: string, key: string, fromSequence: string) {
  const events: Envelope[] = [];
  let subscribed = false;
  let beat: string | null = null;
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${AGENT_API}/events/ws`, { headers: { authorization: `Bearer ${key}` } });
  ws.on('open', () => ws.send(JSON.stringify({ op: 'subscribe', fromSequence })));
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { op: string; event?: Envelope; sequence?: string | null };
    if (m.op === 'subscribed') subscribed = true;
    if (m.op === 'heartbeat') beat = m.sequence ?? null;
    if (m.op === 'event') events.push(m.event!);
  });
  ws.on('error', () => undefined);
  return { events, ready: () => subscribed, lastBeat: () => beat, close: () => ws.close() };
}

/** An SSE subscriber read frame by frame (heartbeat comments included), as a browser's EventSource would receive it. */
function sseSubscriber(base: string, key: string, fromSequence: string) {
  const events: Envelope[] = [];
  const abort = new AbortController();
  let open = false;
  let beat: string | null = null;
  const frame = (text: string) => {
    let type = 'message';
    let data: string | null = null;
    for (const line of text.split('\n')) {
      if (line.startsWith(': heartbeat')) beat = line.slice(': heartbeat'.length).trim();
      else if (line.startsWith('event: ')) type = line.slice(7);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (data !== null && type !== 'closing') events.push(JSON.parse(data) as Envelope);
  };
  void (async () => {
    const res = await fetch(`${base}${AGENT_API}/events/stream?fromSequence=${fromSequence}`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, signal: abort.signal });
    if (res.status !== 200 || !res.body) throw new Error(`SSE stream answered ${res.status}`);
    open = true;
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        frame(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
      }
    }
  })().catch(() => undefined); // the abort at the end
  return { events, ready: () => open, lastBeat: () => beat, close: () => abort.abort() };
}

/** A webhook receiver on 127.0.0.1 that verifies every request with standardwebhooks and counts each webhook-id. */
async function webhookReceiver() {
  const secrets: string[] = [];
  const counts = new Map<string, number>();
  let unverified = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = new Webhook(secrets[0]!).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as Envelope;
        counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
        res.statusCode = 204;
      } catch {
        unverified++;
        res.statusCode = 400;
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    secrets,
    counts,
    unverified: () => unverified,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// PGlite is one process's database: two processes need PostgreSQL (DATABASE_URL; .ci/run's process-suite step on it).
describe.skipIf(!onPostgres)("two API processes on one PostgreSQL and one chain (skipped without DATABASE_URL: PGlite is one process's database)", () => {
  let folder: ProcessFolder;
  let dataDirB: string;
  let database: Database;
  const running = new Set<SvcProcess>();
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

  beforeAll(async () => {
    folder = await processFolder('svc-two-a-');
    dataDirB = mkdtempSync(path.join(tmpdir(), 'svc-two-b-'));
    receiver = await webhookReceiver();
  });
  afterAll(async () => {
    for (const s of running) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
    await receiver?.close();
    await database?.close();
    await folder?.remove();
    if (dataDirB) rmSync(dataDirB, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>): Promise<SvcProcess> => {
    const svc = spawnSvc(['start'], env);
    running.add(svc);
    void svc.exited.then(() => running.delete(svc));
    await svc.waitForLine(/^svc: ready in /, 90_000);
    return svc;
  };
  const stop = (svc: SvcProcess) =>
    new Promise<void>((resolve) => {
      svc.child.once('exit', () => resolve());
      svc.child.kill('SIGINT');
    });

  it('delivers every event to subscribers of either process once, in order, and each webhook once', async () => {
    const a = await start({ ...folder.env, ...COMMON });
    const rpcUrl = `http://127.0.0.1:${folder.anvilPort}`;
    database = await openDatabase({ databaseUrl: folder.databaseUrl! });
    const [alice, bob] = [await registerAgent(folder.base, 1, 'two-alice'), await registerAgent(folder.base, 2, 'two-bob')];

    // One endpoint, registered once (through A), for everything alice may receive.
    const registered = await call(folder.base, 'POST', `${AGENT_API}/webhooks`, { key: alice.key, idempotencyKey: 'two-processes-webhook', body: { url: receiver.url } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    receiver.secrets.push(registered.body.secret as string);
    const endpointId = registered.body.endpoint.id as string;
    const webhookFrom = BigInt(registered.body.endpoint.cursorSequence as string);

    // B: the same database, A's anvil as an external node, A's operator key and tokens; no writers of its own.
    const token = async (name: string) => (await database.db.selectFrom('deployments').select('address').where('name', '=', name).executeTakeFirstOrThrow()).address;
    const portB = await freePort();
    const baseB = `http://127.0.0.1:${portB}`;
    const b = await start({
      ...COMMON,
      DATA_DIR: dataDirB,
      PORT: String(portB),
      DATABASE_URL: folder.databaseUrl!,
      SVC_ROLE: 'api',
      CHAIN_RPC_URL: rpcUrl,
      CHAIN_NAME: 'Base (local anvil)',
      CHAIN_CONFIRMATIONS: '1',
      SVC_ENVIRONMENT: 'test',
      OPERATOR_PRIVATE_KEY: readFileSync(path.join(folder.dataDir, 'operator.key'), 'utf8').trim(),
      PM_TOKEN_ADDRESS: await token('ParticipationToken'),
      USDC_TOKEN_ADDRESS: await token('TestUSDC'),
    });
    expect(b.stdout()).toContain('role: api');
    expect(b.stdout()).not.toContain('ledger: loading committed balances');
    // B takes its share of the order-book shards from A over a few ticks; a book moving meanwhile answers 503 (retried by
    // a client with its Idempotency-Key: test/cluster/). This suite is about events: it places once the split is done.
    await settledShards(database.db, 2);

    const head = (await database.db.selectFrom('event_sequence').select('last_seq').where('id', '=', 1).executeTakeFirstOrThrow()).last_seq;
    const onA = wsSubscriber(folder.base, alice.key, String(head));
    const onB = sseSubscriber(baseB, alice.key, String(head));
    await waitFor(() => onA.ready() && onB.ready(), { what: 'the WebSocket subscription on A and the SSE stream on B' });

    let orders = 0;
    const place = (base: string, agent: Agent, market: string, priceBps: number) =>
      call(base, 'POST', `${AGENT_API}/orderbook/place-order`, { key: agent.key, idempotencyKey: `two-${agent.name}-${++orders}`, body: { market, outcome: 0, action: 'buy', price: String(priceBps / 10_000), shares: '1000000' } });
    // Through A: a market and orders of both agents on it. Through B: another market and an order of alice's on it.
    // (A market's order book lives in the memory of the process that places on it: each market's orders go through one.)
    const aliceOrders: string[] = [];
    const placed = async (...args: Parameters<typeof place>) => {
      const res = await place(...args);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      if (args[1] === alice) aliceOrders.push(res.body.id as string);
    };
    const marketA = await createOrderBook(folder.base, rpcUrl, alice, 'Will both processes hear of this market made through A?');
    const marketB = await createOrderBook(baseB, rpcUrl, alice, 'Will both processes hear of this market made through B?');
    for (let i = 0; i < ORDERS_EACH; i++) {
      await placed(folder.base, alice, marketA, 3000 + 100 * i);
      await placed(baseB, alice, marketB, 3000 + 100 * i);
    }
    await placed(folder.base, bob, marketA, 2000);
    await placed(baseB, bob, marketB, 2000);

    // What alice is meant to see: every public event and her own private ones since `head`, from the outbox itself
    // (read again until both subscribers agree with it: the indexer on A may still be adding events).
    type Row = { seq: string; type: string; market_address: string | null; agent_id: string | null; payload: unknown };
    let meant: Row[] = [];
    const meantNow = async () =>
      (meant = (await database.db.selectFrom('events').select(['seq', 'type', 'market_address', 'agent_id', 'payload']).where('seq', '>', head).orderBy('seq').execute())
        .map((r) => ({ ...r, seq: String(r.seq) }))
        .filter((r) => r.agent_id === null || r.agent_id === alice.agentId));
    const sequences = (events: Envelope[]) => events.map((e) => e.sequence).join();
    const agree = async () => {
      const want = (await meantNow()).map((r) => r.seq).join();
      return sequences(onA.events) === want && sequences(onB.events) === want;
    };
    await waitFor(agree, { what: 'both subscribers to hold exactly the outbox events meant for alice', timeoutMs: 30_000 });
    // Both carry on past the last event (a heartbeat reports their position), and nothing more has come.
    const last = meant.at(-1)!.seq;
    await waitFor(() => BigInt(onA.lastBeat() ?? '0') >= BigInt(last) && BigInt(onB.lastBeat() ?? '0') >= BigInt(last), { what: 'a heartbeat at the last event on both' });
    expect(await agree()).toBe(true);

    // Writes through either process reached both: the markets' public events and alice's order reports on each.
    const kindsOn = (market: string) => meant.filter((r) => r.market_address === market).map((r) => r.type);
    for (const market of [marketA, marketB]) expect(kindsOn(market)).toEqual(expect.arrayContaining(['market.created', 'market.live']));
    const reported = meant.filter((r) => r.type === 'execution:report').map((r) => (r.payload as { orderId: string }).orderId);
    expect(aliceOrders).toHaveLength(2 * ORDERS_EACH);
    expect(reported).toEqual(expect.arrayContaining(aliceOrders));
    const bobsReports = await database.db.selectFrom('events').select('seq').where('agent_id', '=', bob.agentId).where('seq', '>', head).execute();
    expect(bobsReports.length).toBeGreaterThanOrEqual(2); // bob's reports exist; neither subscriber of alice's saw them
    expect(onA.events.every((e) => !bobsReports.some((r) => String(r.seq) === e.sequence))).toBe(true);

    // The webhook: every event meant for alice after the endpoint's start, once each, every request verified; in the
    // database each delivery was claimed once (one attempt), by whichever process got there first.
    const forHook = async () =>
      (await database.db.selectFrom('events').select(['seq', 'agent_id']).where('seq', '>', webhookFrom.toString()).orderBy('seq').execute())
        .filter((r) => r.agent_id === null || r.agent_id === alice.agentId)
        .map((r) => `evt_${r.seq}`);
    const deliveries = () => database.db.selectFrom('webhook_deliveries').select(['event_seq', 'status', 'attempts']).where('endpoint_id', '=', endpointId).orderBy('event_seq').execute();
    let hooked: string[] = [];
    await waitFor(
      async () => {
        hooked = await forHook();
        const rows = await deliveries();
        return rows.length === hooked.length && rows.every((d) => d.status === 'delivered') && hooked.every((id) => receiver.counts.has(id));
      },
      { what: 'every webhook delivery, delivered', timeoutMs: 30_000 },
    );
    expect(hooked).toEqual(expect.arrayContaining(meant.map((r) => `evt_${r.seq}`)));
    expect((await deliveries()).map((d) => [`evt_${d.event_seq}`, d.status, d.attempts])).toEqual(hooked.map((id) => [id, 'delivered', 1]));
    expect([...receiver.counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect([...receiver.counts.keys()].sort()).toEqual([...hooked].sort());
    expect(receiver.unverified()).toBe(0);

    onA.close();
    onB.close();
    await stop(b);
    await stop(a);
  }, 300_000);
});

// A process suite (docs/testing.md "Process suites"): the real `svc start`, a WebSocket client of one agent receiving
// its order reports and every public event while orders are placed, the service SIGKILLed mid-stream and started
// again, more orders, and the client resuming from the last sequence it handled. In the end it has seen every event
// meant for it (the outbox, read after the service stopped) exactly once, in order, and nothing private of another
// agent.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../../src/db/index.ts';
import { spawnSvc, type SvcProcess } from '../cli/svc-process.ts';
import { AGENT_API, call, createOrderBook, registerAgent, type Agent } from '../crash/client.ts';
import { onPostgres } from '../support/harness.ts';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';
import { waitFor } from '../support/wait.ts';

type Envelope = { id: string; type: string; sequence: string; private: boolean };
let folder: ProcessFolder;
let env: Record<string, string>;
let svc: SvcProcess;
const running = new Set<SvcProcess>();

beforeAll(async () => {
  folder = await processFolder('svc-events-');
  env = { ...folder.env, LOG_LEVEL: 'warn', REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', LEDGER_SIGNUP_GRANT: '1000000000000000', FILLS_FREE_PER_MONTH: '1000000000', EVENTS_HEARTBEAT_MS: '100' };
});
afterAll(async () => {
  for (const s of running) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
  await folder?.remove();
});

async function start(): Promise<void> {
  svc = spawnSvc(['start'], env);
  running.add(svc);
  const s = svc;
  void s.exited.then(() => running.delete(s));
  await svc.waitForLine(/^svc: ready in /, 90_000);
}

/** A client that keeps what it received and the last sequence it handled. */
function client(key: string, fromSequence: string | null) {
  const received: Envelope[] = [];
  const ws = new WebSocket(`${folder.base.replace(/^http/, 'ws')}${AGENT_API}/events/ws`, { headers: { authorization: `Bearer ${key}` } });
  let subscribed = false;
  let heartbeats = 0;
  ws.on('open', () => ws.send(JSON.stringify({ op: 'subscribe', ...(fromSequence ? { fromSequence } : {}) })));
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { op: string; event?: Envelope };
    if (m.op === 'subscribed') subscribed = true;
    if (m.op === 'heartbeat') heartbeats++;
    if (m.op === 'event') received.push(m.event!);
  });
  ws.on('error', () => undefined); // the SIGKILL resets the socket
  return { ws, received, ready: () => subscribed, heartbeats: () => heartbeats };
}

describe(`events across a SIGKILL (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('resumes from the last sequence handled: every event once, in order, nothing of another agent', async () => {
    await start();
    const [alice, bob] = [await registerAgent(folder.base, 1, 'events-alice'), await registerAgent(folder.base, 2, 'events-bob')];
    const market = await createOrderBook(folder.base, `http://127.0.0.1:${folder.anvilPort}`, alice, 'Will the events survive a SIGKILL?');
    const place = (agent: Agent, price: number) =>
      call(folder.base, 'POST', `${AGENT_API}/orderbook/place-order`, { key: agent.key, idempotencyKey: `ev-${agent.name}-${price}`, body: { market, outcome: 0, action: 'buy', price: String(price / 10_000), shares: '1000000' } });

    // From the very first event on: the whole outbox so far, then live orders of both agents.
    const first = client(alice.key, '0');
    await waitFor(first.ready, { what: 'the first subscription' });
    for (const price of [3000, 3100, 3200]) {
      expect((await place(alice, price)).status).toBe(201);
      expect((await place(bob, price)).status).toBe(201);
    }
    await waitFor(() => first.received.filter((e) => e.type === 'execution:report').length >= 3, { what: "alice's three order reports before the kill" });
    svc.child.kill('SIGKILL');
    await svc.exited;
    const last = first.received.at(-1)!.sequence;

    await start();
    for (const price of [3300, 3400]) {
      expect((await place(alice, price)).status).toBe(201);
      expect((await place(bob, price)).status).toBe(201);
    }
    const second = client(alice.key, last);
    await waitFor(second.ready, { what: 'the resumed subscription' });
    await waitFor(() => second.received.filter((e) => e.type === 'execution:report').length >= 2, { what: "alice's two order reports after the restart" });
    const beats = second.heartbeats();
    await waitFor(() => second.heartbeats() > beats, { what: 'a heartbeat after the last report' }); // nothing more on its way
    second.ws.close();
    await new Promise<void>((resolve) => {
      svc.child.once('exit', () => resolve());
      svc.child.kill('SIGINT');
    });

    // What was meant for alice: every public event and her own private ones, from the outbox itself.
    const database = await openDatabase(folder.databaseUrl ? { databaseUrl: folder.databaseUrl } : { pgliteDir: path.join(folder.dataDir, 'pg') });
    try {
      const rows = await database.db.selectFrom('events').select(['seq', 'agent_id']).orderBy('seq').execute();
      const meant = rows.filter((r) => r.agent_id === null || r.agent_id === alice.agentId).map((r) => String(r.seq));
      const seen = [...first.received, ...second.received].map((e) => e.sequence);
      expect(seen).toEqual(meant); // each once, in order, none lost across the kill
      expect(rows.some((r) => r.agent_id === bob.agentId)).toBe(true); // bob's reports existed, and alice never saw them
    } finally {
      await database.close();
    }
  });
});

// The webhook dispatcher on the events' hot path (docs/events.md "Webhooks"), on the real database and real receivers
// on 127.0.0.1 (every request verified with the standardwebhooks library): while no endpoint is active its passes
// touch the database not at all; an endpoint registered in this process wakes it at once, one registered by another
// process at the slow recheck; and a receiver that holds its requests open holds up only its own deliveries, with at
// most PER_ENDPOINT_IN_FLIGHT attempts at once.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { createSecretBox } from '../../src/core/webhooks/secret-box.ts';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createEventBus, type EventBus } from '../../src/services/events/bus.ts';
import { appendEvents } from '../../src/services/events/outbox.ts';
import { createWebhookDispatcher, PER_ENDPOINT_IN_FLIGHT, type WebhookDispatcher } from '../../src/services/webhooks/dispatcher.ts';
import { createWebhookService, type WebhookDeps } from '../../src/services/webhooks/webhooks.ts';
import { dropPostgres, freshPostgresUrl, onPostgres } from '../support/harness.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { waitFor } from '../support/wait.ts';

/** Counts the statements run through the Kysely instance it is plugged into (raw `sql` too; BEGIN and COMMIT not). */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** A receiver that verifies every request and answers 200 at once, or holds it open until released. */
async function startReceiver(hold = false) {
  const secrets: string[] = [];
  const received: { id: string; type: string; verified: boolean }[] = [];
  const held: (() => void)[] = [];
  let open = 0;
  let maxOpen = 0;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Open from the request's arrival until this receiver answers it.
    open++;
    maxOpen = Math.max(maxOpen, open);
    const answer = () => {
      open--;
      res.end('ok');
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verified = secrets.some((s) => {
        try {
          new Webhook(s).verify(body, req.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const envelope = JSON.parse(body) as { id: string; type: string };
      received.push({ id: envelope.id, type: envelope.type, verified });
      if (hold) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`,
    secrets,
    received,
    held,
    maxOpen: () => maxOpen,
    release: () => held.splice(0).forEach((answer) => answer()),
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

let database: Database;
let url: string | undefined;
let bus: EventBus;
let deps: WebhookDeps;
let agentId: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  url = onPostgres ? await freshPostgresUrl() : undefined;
  database = url ? await openDatabase({ databaseUrl: url }) : await migratedPGlite();
  await migrateToLatest(database.db);
  const log = createLogger('silent');
  bus = createEventBus({ db: database.db, log, pollMs: 50 });
  deps = { db: database.db, clock: systemClock, log, secrets: createSecretBox(randomBytes(32)), targets: { allowPrivate: true, ownOrigins: [] } };
  agentId = randomUUID();
  await database.db.insertInto('agents').values({ id: agentId, name: 'hooks-dispatcher', wallet_address: null, email: null, registration_path: 'wallet', owner_email: null, claimed_at: null, created_at: new Date() }).execute();
});
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
  await bus?.close();
  await database?.close();
  if (url) await dropPostgres(url);
});

const publish = async (...types: string[]) => {
  const stored = await database.db.transaction().execute((trx) => appendEvents(trx, systemClock, types.map((type) => ({ type, payload: { n: randomUUID() } }))));
  bus.notify();
  return stored;
};
const dispatcher = (extra: Partial<Parameters<typeof createWebhookDispatcher>[0]> = {}): WebhookDispatcher => {
  const d = createWebhookDispatcher({ ...deps, bus, intervalMs: 60_000, ...extra });
  cleanups.push(() => d.stop());
  return d;
};
const receiver = async (hold = false) => {
  const r = await startReceiver(hold);
  cleanups.push(async () => {
    r.release();
    await r.close();
  });
  return r;
};

describe('the webhook dispatcher', () => {
  it('does not touch the database while no endpoint is active, and wakes at once when one is registered here', async () => {
    const counter = new StatementCounter();
    const counted = { ...deps, db: database.db.withPlugin(counter) };
    const d = dispatcher(counted);
    await d.runOnce(); // looks once: no endpoint
    const afterFirstLook = counter.count;
    expect(afterFirstLook).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) {
      await publish('test.idle');
      await d.runOnce();
      d.kick();
    }
    await d.runOnce();
    expect(counter.count).toBe(afterFirstLook); // 21 passes later: not one statement

    const r = await receiver();
    const service = createWebhookService({ ...counted, nudge: () => d.endpointsChanged() });
    const registered = await service.register(agentId, { url: r.url, filter: { kinds: ['test.here'] } });
    r.secrets.push(registered.secret!);
    const [event] = await publish('test.here');
    await d.runOnce();
    expect(r.received).toEqual([{ id: `evt_${event!.seq}`, type: 'test.here', verified: true }]);
    await service.update(agentId, registered.endpoint.id, { status: 'disabled' });
  });

  it('follows the event bus only while an endpoint is active, and a pass follows every event while one is', async () => {
    // The real bus, watched: how many subscriptions the dispatcher holds on it.
    let following = 0;
    const watched: EventBus = {
      ...bus,
      subscribe: (options, onEvent) => {
        const subscription = bus.subscribe(options, onEvent);
        following++;
        return {
          get position() {
            return subscription.position;
          },
          close: () => {
            following--;
            subscription.close();
          },
        };
      },
    };
    const d = dispatcher({ bus: watched });
    d.start();
    await d.runOnce(); // after start's own pass: no endpoint is active
    await publish('test.unfollowed');
    expect(following).toBe(0);

    // Registered here: it follows the bus again, and the bus alone wakes it for the event (its timer is a minute away).
    const r = await receiver();
    const service = createWebhookService({ ...deps, nudge: () => d.endpointsChanged() });
    const registered = await service.register(agentId, { url: r.url, filter: { kinds: ['test.followed'] } });
    r.secrets.push(registered.secret!);
    await waitFor(() => following === 1, { what: 'the dispatcher to follow the bus' });
    const [event] = await publish('test.followed');
    await waitFor(() => r.received.length > 0, { what: 'the delivery woken by the bus' });
    expect(r.received).toEqual([{ id: `evt_${event!.seq}`, type: 'test.followed', verified: true }]);

    // Disabled: no endpoint is active again, and it lets go of the bus.
    await service.update(agentId, registered.endpoint.id, { status: 'disabled' });
    await waitFor(() => following === 0, { what: 'the dispatcher to let go of the bus' });
    await d.stop();
  });

  it('finds an endpoint another process registered at its slow recheck', async () => {
    const d = dispatcher({ activeRecheckMs: 100 });
    await d.runOnce(); // nothing active: it stops looking
    d.start();
    const r = await receiver();
    // Another process's service: it nudges its own dispatcher, not this one.
    const registered = await createWebhookService(deps).register(agentId, { url: r.url, filter: { kinds: ['test.elsewhere'] } });
    r.secrets.push(registered.secret!);
    const [event] = await publish('test.elsewhere');
    await waitFor(() => r.received.length > 0, { what: 'the delivery after the recheck' });
    expect(r.received).toEqual([{ id: `evt_${event!.seq}`, type: 'test.elsewhere', verified: true }]);
    await d.stop();
    await createWebhookService(deps).update(agentId, registered.endpoint.id, { status: 'disabled' });
  });

  it('lets a receiver that holds its requests open hold up only its own deliveries, at most PER_ENDPOINT_IN_FLIGHT at once', async () => {
    const d = dispatcher();
    const service = createWebhookService({ ...deps, nudge: () => d.endpointsChanged() });
    const [slow, fast] = [await receiver(true), await receiver()];
    const s = await service.register(agentId, { url: slow.url, filter: { kinds: ['test.slow'] } });
    const f = await service.register(agentId, { url: fast.url, filter: { kinds: ['test.fast'] } });
    slow.secrets.push(s.secret!);
    fast.secrets.push(f.secret!);
    d.start();

    const total = PER_ENDPOINT_IN_FLIGHT + 4;
    const slowEvents = await publish(...new Array<string>(total).fill('test.slow'));
    await waitFor(() => slow.held.length === PER_ENDPOINT_IN_FLIGHT, { what: `the slow receiver to hold ${PER_ENDPOINT_IN_FLIGHT} requests` });
    // While those hang (up to the 15 s attempt timeout), the other endpoint's delivery goes out at once.
    const [fastEvent] = await publish('test.fast');
    await waitFor(() => fast.received.length === 1, { what: "the fast receiver's delivery while the slow one holds its requests", timeoutMs: 5_000 });
    expect(fast.received).toEqual([{ id: `evt_${fastEvent!.seq}`, type: 'test.fast', verified: true }]);
    // The pass that sent it claimed nothing more of the slow endpoint: the rest wait, unclaimed, for room.
    const waiting = await database.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', s.endpoint.id).where('attempts', '=', 0).execute();
    expect([slow.held.length, waiting.length]).toEqual([PER_ENDPOINT_IN_FLIGHT, total - PER_ENDPOINT_IN_FLIGHT]);

    // Answered, they make room for the rest; every delivery arrives once, verified, and never more than the limit at once.
    slow.release();
    await waitFor(
      () => {
        slow.release();
        return slow.received.length === total;
      },
      { what: 'every slow delivery' },
    );
    slow.release();
    expect(slow.received.map((q) => q.id).sort()).toEqual(slowEvents.map((e) => `evt_${e.seq}`).sort());
    expect(slow.received.every((q) => q.verified)).toBe(true);
    expect(slow.maxOpen()).toBe(PER_ENDPOINT_IN_FLIGHT);
    await d.stop();
  });
});

// Migration 0035 on both back ends, from a database at 0034 holding order events as they were written before it: each
// order event moves into its execution:report in the outbox, which gets the event's place in its agent's sequence and
// its body in the wire's units (payloads written before 2026-11-24 carried the engine's: priceBps, whole shares);
// order_events and the outbox's unused agent index go. An order event without its report stops the migration.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireEventOf } from '../../src/core/orderbook/order-events.ts';
import { MigrationError, migrateToLatest } from '../../src/db/index.ts';
import { backends, migratedTo, type Backend } from './backends.ts';

const BEFORE = '0034_order_reservations';

async function writeOrderEvent(db: Kysely<unknown>, agent: string, stored: Record<string, unknown>, report: Record<string, unknown> | null, outboxSeq: number): Promise<void> {
  await sql`SET session_replication_role = replica`.execute(db);
  await sql`INSERT INTO order_events (agent_id, seq, order_id, type, fill_id, payload, created_at)
    VALUES (${agent}::uuid, ${stored.seq as string}::bigint, ${stored.orderId as string}::uuid, ${stored.type as string}, NULL, ${JSON.stringify(stored)}::jsonb, now())`.execute(db);
  await sql`SET session_replication_role = origin`.execute(db);
  if (report) await writeOutbox(db, outboxSeq, 'execution:report', agent, report);
}

async function writeOutbox(db: Kysely<unknown>, seq: number, type: string, agent: string | null, payload: Record<string, unknown>): Promise<void> {
  await sql`INSERT INTO events (seq, type, chain_id, market_address, agent_id, payload, created_at)
    VALUES (${seq}, ${type}, 8453, NULL, ${agent}::uuid, ${JSON.stringify(payload)}::jsonb, now())`.execute(db);
}

for (const b of await backends()) {
  describe.skipIf(b.skip)(`migration 0035 on ${b.name}`, () => {
    let backend: Backend;
    beforeAll(() => {
      backend = b.make();
    });
    afterAll(async () => backend?.cleanup());

    it("moves every order event into its execution:report, by its agent's sequence and in the wire's units", async () => {
      const db = await migratedTo(backend, BEFORE);
      const [alice, bob, order] = [randomUUID(), randomUUID(), randomUUID()];
      // Written before 2026-11-24: the report carried the stored body (engine units).
      const accepted = { seq: '1', type: 'accepted', orderId: order, outcome: 0, action: 'buy', priceBps: 5700, shares: '12', tif: 'GTC', postOnly: false };
      await writeOrderEvent(db, alice, accepted, accepted, 1);
      await writeOutbox(db, 2, 'market.trade', null, { kind: 'orderbook', fillId: '7', outcome: 0, side: 'buy', shares: '3000000', price: '0.57' });
      // Written since: the report carried the wire's units already.
      const fill = { seq: '2', type: 'fill', orderId: order, fillId: '7', kind: 'MINT', outcome: 0, priceBps: 5700, shares: '3', ledgerSeq: '40', final: false, role: 'maker', fee: '0', remaining: '9' };
      await writeOrderEvent(db, alice, fill, wireEventOf(fill), 3);
      const cancelled = { seq: '1', type: 'cancelled', orderId: randomUUID(), reason: 'owner', cancelled: '4' };
      await writeOrderEvent(db, bob, cancelled, cancelled, 4);

      await migrateToLatest(db);

      const rows = await sql<{ seq: string; agent_id: string | null; agent_seq: string | null; payload: Record<string, unknown> }>`
        SELECT seq::text, agent_id::text, agent_seq::text, payload FROM events ORDER BY seq`.execute(db);
      const { priceBps: _, ...acceptedRest } = accepted;
      expect(rows.rows).toEqual([
        { seq: '1', agent_id: alice, agent_seq: '1', payload: { ...acceptedRest, price: '0.57', shares: '12000000' } },
        { seq: '2', agent_id: null, agent_seq: null, payload: expect.objectContaining({ kind: 'orderbook' }) },
        { seq: '3', agent_id: alice, agent_seq: '2', payload: wireEventOf(fill) },
        { seq: '4', agent_id: bob, agent_seq: '1', payload: { ...cancelled, cancelled: '4000000', remaining: '0' } },
      ]);
      const tables = await sql<{ n: string }>`SELECT count(*)::text AS n FROM pg_class WHERE relname IN ('order_events', 'events_agent_id_seq_idx')`.execute(db);
      expect(tables.rows[0]!.n).toBe('0');
      // One order event per place in its agent's sequence.
      const again = await sql`INSERT INTO events (seq, type, agent_id, agent_seq, payload, created_at) VALUES (5, 'execution:report', ${alice}::uuid, 2, '{}'::jsonb, now())`.execute(db).catch((e: unknown) => e);
      expect(again).toMatchObject({ code: '23505' });
    });

    it('refuses to drop an order event that has no execution:report, and applies nothing', async () => {
      const db = await migratedTo(backend, BEFORE);
      const lonely = { seq: '1', type: 'accepted', orderId: randomUUID(), outcome: 1, action: 'sell', priceBps: 4000, shares: '2', tif: 'IOC', postOnly: false };
      await writeOrderEvent(db, randomUUID(), lonely, null, 1);
      const err = await migrateToLatest(db).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as Error).message).toMatch(/migration 0035_order_events_in_outbox failed .*1 order event\(s\) have no execution:report in the outbox/);
      const left = await sql<{ n: string }>`SELECT count(*)::text AS n FROM order_events`.execute(db);
      expect(left.rows[0]!.n).toBe('1');
    });
  });
}

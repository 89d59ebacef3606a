// Test helpers for play-money order books: the create loop with pricingModel ORDERBOOK, run as an agent would.
import { sql } from 'kysely';
import { expect } from 'vitest';
import { idemKey, type registerWallet } from './agents.ts';
import type { TestServer } from './harness.ts';
import { sendTx } from './markets.ts';

const A = '/api/agent/v1';

/** Propose, accept, prepare-deploy, send from the agent's wallet (it needs gas), commit-deploy; answers the market's address and ledger marketId. */
export async function createOrderBookMarket(
  server: TestServer,
  agent: Awaited<ReturnType<typeof registerWallet>>,
  question: string,
  closeTime: Date,
): Promise<{ address: string; marketId: bigint }> {
  const post = (path: string, body?: unknown) => server.call('POST', `${A}${path}`, { key: agent.key, body, idempotencyKey: idemKey('obm') });
  const terms = { question, category: 'TECH', pricingModel: 'ORDERBOOK', closeTime: closeTime.toISOString(), resolutionSource: 'https://example.org/resolution' };
  const proposed = await post('/negotiate/propose', terms);
  expect(proposed.status).toBe(201);
  expect(proposed.body.negotiation.terms).toMatchObject({ pricingModel: 'ORDERBOOK', collateral: 'PLAY', liquidity: '0', outcomes: ['Yes', 'No'] });
  const id = proposed.body.negotiation.id as string;
  expect((await post(`/negotiate/${id}/accept`)).status).toBe(200);
  const prepared = await post(`/negotiate/${id}/prepare-deploy`);
  expect(prepared.status).toBe(200);
  expect(prepared.body).toMatchObject({ approvalsMissing: [], transaction: { to: server.runtime.services.chain.lane().orderbookFactory } });
  const receipt = await sendTx(server, agent.account, prepared.body.transaction);
  const committed = await post(`/negotiate/${id}/commit-deploy`, { txHash: receipt.transactionHash });
  expect(committed.status).toBe(200);
  expect(committed.body.market.address.toLowerCase()).toBe(prepared.body.predictedMarketAddress.toLowerCase());
  const row = await server.runtime.database.db.selectFrom('markets').select(['address', 'ledger_market_id']).where('address', '=', committed.body.market.address.toLowerCase()).executeTakeFirstOrThrow();
  return { address: row.address, marketId: BigInt(row.ledger_market_id!) };
}

/**
 * What order_reservations holds (migration 0034: kept by every placement, fill and cancel) is exactly what the resting
 * orders reserve, summed per owner and ledger asset as the migration summed it (rows at zero left out).
 */
export async function expectReservationsAgree(server: TestServer): Promise<void> {
  const { db } = server.runtime.database;
  const kept = await sql<{ owner: string; asset_id: string; reserved: string }>`
    SELECT owner, asset_id::text, reserved::text FROM order_reservations WHERE reserved <> 0 ORDER BY owner, asset_id`.execute(db);
  const summed = await sql<{ owner: string; asset_id: string; reserved: string }>`
    SELECT owner, (CASE WHEN action = 'buy' THEN 0 ELSE market_id::numeric * 256 + outcome END)::text AS asset_id, sum(reserved)::text AS reserved
    FROM orders WHERE status = 'resting' GROUP BY 1, 2 HAVING sum(reserved) <> 0 ORDER BY 1, 2::numeric`.execute(db);
  // Some owner's row was written (orders rested and left, at least).
  expect(Number((await db.selectFrom('order_reservations').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow()).n)).toBeGreaterThan(0);
  expect(kept.rows).toEqual(summed.rows);
}

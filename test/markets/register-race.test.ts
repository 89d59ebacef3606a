// commit-deploy (from the receipt) and the indexer (from the log) can register the same market at the
// same moment; on PostgreSQL both transactions run concurrently. Exactly one inserts (and emits
// market.created once); the other waits and only confirms — no unique-key failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import type { CreatedMarket } from '../../src/services/markets/created-market.ts';
import { registerMarket } from '../../src/services/markets/register-market.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const created = (address: string): CreatedMarket => ({
  chainId: server.config.chain.id,
  address,
  factory: '0x00000000000000000000000000000000000000f1',
  creator: '0x00000000000000000000000000000000000000c1',
  collateralToken: '0x00000000000000000000000000000000000000a1',
  collateralSymbol: 'USDC',
  outcomeCount: 2,
  questionHash: `0x${'ab'.repeat(32)}`,
  closeTime: new Date(Date.now() + 86_400_000),
  resolutionWindowSeconds: 86_400,
  liquidity: 1_000_000n,
  bond: 0n,
  subsidy: 693_148n,
  protocolFeeBps: 100,
  creatorFeeBps: 100,
  blockNumber: 7n,
  blockHash: `0x${'07'.repeat(32)}`,
  txHash: `0x${'70'.repeat(32)}`,
  blockTime: new Date(),
  prices: ['500000000000000000', '500000000000000000'],
  outstanding: ['0', '0'],
});

describe('registerMarket under concurrency', () => {
  it('inserts once when the receipt and the indexer register the same market at once', async () => {
    const db = server.runtime.database.db;
    const address = '0x00000000000000000000000000000000000000d1';
    const results = await Promise.all([
      db.transaction().execute((trx) => registerMarket(trx, systemClock, created(address), { confirmed: false })),
      db.transaction().execute((trx) => registerMarket(trx, systemClock, created(address), { confirmed: true })),
    ]);
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    const row = await db.selectFrom('markets').select(['confirmed']).where('address', '=', address).executeTakeFirstOrThrow();
    expect(row.confirmed).toBe(true);
    const createdEvents = await db.selectFrom('events').select('seq').where('type', '=', 'market.created').where('market_address', '=', address).execute();
    expect(createdEvents).toHaveLength(1);
  });
});

// Voiding a market whose creation left the chain (src/services/markets/indexer/void-markets.ts): the decision is made
// on the creation read before the transaction, and another creation may take the same address meanwhile (the
// factory's same nonce, on a dev chain that lost its blocks: test/runtime/chain-supervision.test.ts once saw the new
// market voided and refusing orders). Only the row that still names the gone creation is voided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/db/index.ts';
import { voidReorgedMarkets } from '../../src/services/markets/indexer/void-markets.ts';
import { migratedPGlite } from '../support/pglite-template.ts';
import { bareMarketRow, randomHash } from '../support/market-rows.ts';

describe('voiding reorged creations', () => {
  let database: Database;
  beforeAll(async () => {
    database = await migratedPGlite();
  });
  afterAll(async () => database?.close());

  const stateOf = async (address: string) =>
    (await database.db.selectFrom('markets').select(['state', 'cancel_reason']).where('address', '=', address).executeTakeFirstOrThrow());

  it('voids the market that still names the gone creation, and leaves one a new creation registered at its address', async () => {
    const gone = bareMarketRow({ chainId: 8453, question: 'Its creation left the chain' });
    const retaken = bareMarketRow({ chainId: 8453, question: 'Another creation took this address' });
    await database.db.insertInto('markets').values([gone, retaken]).execute();
    const goneTx = retaken.created_tx;
    // Between the read and the transaction, a new creation was registered at the address (the row moved to its log).
    await database.db.updateTable('markets').set({ created_tx: randomHash() }).where('address', '=', retaken.address).execute();

    const voided = await database.db
      .transaction()
      .execute((trx) => voidReorgedMarkets(trx, { chainId: 8453, clock: systemClock }, [
        { address: gone.address, createdTx: gone.created_tx.toUpperCase().replace('0X', '0x') },
        { address: retaken.address, createdTx: goneTx },
      ]));
    expect(voided.map((v) => v.address)).toEqual([gone.address]);
    expect(await stateOf(gone.address)).toEqual({ state: 'void', cancel_reason: 'CREATION_REORGED' });
    expect(await stateOf(retaken.address)).toEqual({ state: 'open', cancel_reason: null });
  });
});

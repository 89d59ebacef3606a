// A batch's availability (reservations.ts) on its own: its read asks for each order's owner in the asset the order
// reserves, once per pair, and nothing else (an owner × every asset of every market of the batch was 135 pairs of
// index probes for 15 owners on 4 markets); the batch's checks and fills then move only what was read.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { COLLATERAL_ASSET, outcomeAsset, type Account } from '../../../core/ledger/types.ts';
import type { DB } from '../../../db/schema.ts';
import { Availability } from './reservations.ts';

// Compiles statements, runs none.
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const fee = '0x00000000000000000000000000000000000000fe' as Account;
const alice = '0x00000000000000000000000000000000000000a1' as Account;
const bob = '0x00000000000000000000000000000000000000b2' as Account;

describe('a batch availability', () => {
  it("reads each order's owner in the asset the order reserves, once per pair", async () => {
    const step = Availability.read(db as never, fee, [
      { owner: alice, asset: COLLATERAL_ASSET },
      { owner: bob, asset: outcomeAsset(7n, 1) },
      { owner: alice, asset: COLLATERAL_ASSET },
      { owner: alice, asset: outcomeAsset(9n, 0) },
    ]);
    expect(step.query.parameters).toEqual([
      [alice, bob, alice],
      [String(COLLATERAL_ASSET), String(outcomeAsset(7n, 1)), String(outcomeAsset(9n, 0))],
    ]);
  });

  it('checks orders against what was read, and a fill moves only the pairs read', async () => {
    const step = Availability.read(db as never, fee, [{ owner: alice, asset: COLLATERAL_ASSET }]);
    const available = step.read({ rows: [{ owner: alice, asset_id: '0', available: '1000000' }] });
    // 1 play dollar available: a bid of 10 shares at 0.50 reserves 5 and its most fee, one of 1 share 0.50 and its fee.
    const buy = { outcome: 0 as const, action: 'buy' as const, priceBps: 5_000, shares: 10n, tif: 'GTC' as const, postOnly: false };
    expect(() => available.require(alice, 7n, buy)).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_BALANCE' }));
    expect(() => available.require(alice, 7n, { ...buy, shares: 1n })).not.toThrow();
    // A sale of shares nobody read is refused as having none.
    expect(() => available.require(bob, 7n, { ...buy, action: 'sell', shares: 1n })).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_BALANCE' }));
  });
});

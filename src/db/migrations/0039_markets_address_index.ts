// Migration 0039: markets by their address alone (issue 22). A market's key is (chain_id, address), but an order-book
// fill names its market by address and ledger id only, so the fills' 24-hour volume trigger (migration 0032) found its
// market's chain by reading the whole of the (chain_id, ledger_market_id) index: ~150 µs a fill with 10,000 markets on
// PostgreSQL, against ~1 µs by a probe. GET /markets/{address} without a chain looks a market up the same way.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0039_markets_address_index: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE INDEX markets_address_idx ON markets (address)`.execute(db);
  },
};

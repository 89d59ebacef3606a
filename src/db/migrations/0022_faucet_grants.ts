// Migration 0022: test-funds faucet grants (issue 19; docs/faucet.md). A grant is kept, with the Idempotency-Key
// effect of the request that asked for it, before its transfers go out under `faucet:<id>:<asset>` as relayer
// operations: a retry after a crash finds the same grant and the same transactions, so a wallet is never paid twice
// for one request. The amounts are kept so a resumed grant pays what was granted.
import { sql, type Kysely, type Migration } from 'kysely';

export const m0022_faucet_grants: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE faucet_grants (
      id text PRIMARY KEY,
      chain_id integer NOT NULL,
      wallet text NOT NULL CHECK (wallet = lower(wallet)),
      agent_id uuid NULL,
      key_id uuid NULL,
      eth_wei numeric(78, 0) NOT NULL CHECK (eth_wei >= 0),
      usdc numeric(78, 0) NOT NULL CHECK (usdc >= 0),
      pm numeric(78, 0) NOT NULL CHECK (pm >= 0),
      created_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX faucet_grants_wallet_idx ON faucet_grants (chain_id, wallet, created_at)`.execute(db);
  },
};

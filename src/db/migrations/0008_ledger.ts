// Migration 0008: the play-money ledger (docs/ledger.md). Operations are appended once and get their batch
// nonce once, when a batch closes; balances are kept twice — after every accepted operation (what new
// operations are checked against) and as of the last batch confirmed on chain (what proofs are built from).
// Batches keep the exact calldata they were sent with, so a resend after a crash is the same transaction.
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE ledger_operations (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('credit', 'match')),
    op jsonb NOT NULL,
    -- Set once, when the operation's batch closes; never changed afterwards.
    batch_nonce bigint NULL,
    -- The writer's idempotency key (e.g. signup-grant:<agent id>): an operation is written at most once.
    source text NULL UNIQUE,
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX ledger_operations_unbatched_idx ON ledger_operations (seq) WHERE batch_nonce IS NULL`,
  sql`CREATE INDEX ledger_operations_batch_idx ON ledger_operations (batch_nonce, seq) WHERE batch_nonce IS NOT NULL`,
  sql`CREATE TABLE ledger_balances (
    account text NOT NULL CHECK (account = lower(account)),
    asset_id numeric(78, 0) NOT NULL,
    balance numeric(78, 0) NOT NULL,
    PRIMARY KEY (account, asset_id)
  )`,
  sql`CREATE TABLE ledger_committed_balances (
    account text NOT NULL CHECK (account = lower(account)),
    asset_id numeric(78, 0) NOT NULL,
    balance numeric(78, 0) NOT NULL,
    PRIMARY KEY (account, asset_id)
  )`,
  sql`CREATE TABLE ledger_batches (
    nonce bigint PRIMARY KEY,
    chain_id int NOT NULL,
    contract text NOT NULL,
    mode text NOT NULL CHECK (mode IN ('legacy', 'journal')),
    first_seq bigint NOT NULL,
    last_seq bigint NOT NULL,
    op_count int NOT NULL,
    prev_root text NOT NULL,
    new_root text NOT NULL,
    prev_journal_commitment text NOT NULL,
    journal_commitment text NOT NULL,
    payload_hash text NULL,
    calldata text NOT NULL,
    status text NOT NULL CHECK (status IN ('closed', 'confirmed')),
    tx_hash text NULL,
    block_number bigint NULL,
    closed_at timestamptz NOT NULL,
    confirmed_at timestamptz NULL
  )`,
  sql`CREATE UNIQUE INDEX ledger_batches_one_open_idx ON ledger_batches ((true)) WHERE status = 'closed'`,
];

export const m0008_ledger: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};

// Migration 0001: the foundation tables (API keys, idempotency, events, deployments, relayer, settings).
// Plain PostgreSQL DDL, one statement per query (PGlite's extended protocol takes no multi-statement text).
import { sql, type Kysely, type Migration } from 'kysely';

const statements = [
  sql`CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    prefix text NOT NULL,
    key_hash text NOT NULL UNIQUE,
    agent_id uuid NULL,
    label text NULL,
    tier text NOT NULL CHECK (tier IN ('read-only', 'propose', 'execute')),
    scopes jsonb NOT NULL CHECK (jsonb_typeof(scopes) = 'array'),
    status text NOT NULL CHECK (status IN ('dormant', 'active', 'revoked')),
    expires_at timestamptz NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz NULL,
    last_used_at timestamptz NULL
  )`,
  sql`CREATE INDEX api_keys_agent_id_idx ON api_keys (agent_id)`,

  sql`CREATE TABLE idempotency_records (
    principal text NOT NULL,
    idem_key text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL CHECK (state IN ('in_progress', 'done')),
    status_code int NULL,
    response_body jsonb NULL,
    response_headers jsonb NULL,
    created_at timestamptz NOT NULL,
    completed_at timestamptz NULL,
    PRIMARY KEY (principal, idem_key)
  )`,

  // The single row whose lock serialises event writers; the CHECK keeps it single.
  sql`CREATE TABLE event_sequence (
    id int PRIMARY KEY CHECK (id = 1),
    last_seq bigint NOT NULL DEFAULT 0
  )`,
  sql`INSERT INTO event_sequence (id, last_seq) VALUES (1, 0)`,

  sql`CREATE TABLE events (
    seq bigint PRIMARY KEY,
    type text NOT NULL,
    chain_id int NULL,
    market_address text NULL,
    agent_id uuid NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX events_agent_id_seq_idx ON events (agent_id, seq)`,

  sql`CREATE TABLE deployments (
    chain_id int NOT NULL,
    name text NOT NULL,
    address text NOT NULL,
    from_block bigint NOT NULL,
    deployment_tx_hash text NOT NULL,
    deployment_block_hash text NOT NULL,
    runtime_code_hash text NOT NULL,
    bytecode_hash text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (chain_id, name)
  )`,

  sql`CREATE TABLE relayer_transactions (
    operation_id text PRIMARY KEY,
    idempotency_key text NOT NULL UNIQUE,
    chain_id int NOT NULL,
    from_address text NOT NULL,
    nonce bigint NOT NULL,
    to_address text NULL,
    data text NOT NULL,
    value text NOT NULL CHECK (value ~ '^[0-9]+$'),
    gas text NULL,
    max_fee_per_gas text NULL,
    max_priority_fee_per_gas text NULL,
    raw_tx text NULL,
    tx_hash text NULL,
    state text NOT NULL CHECK (state IN ('prepared', 'submitted', 'confirmed', 'reverted', 'dropped')),
    submitted_at timestamptz NULL,
    block_number bigint NULL,
    block_hash text NULL,
    contract_address text NULL,
    error text NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (chain_id, from_address, nonce)
  )`,
  sql`CREATE INDEX relayer_transactions_tx_hash_idx ON relayer_transactions (tx_hash)`,

  sql`CREATE TABLE kv_settings (
    key text PRIMARY KEY,
    value jsonb NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
];

export const m0001_foundation: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};

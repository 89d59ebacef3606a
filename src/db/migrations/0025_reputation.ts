// Migration 0025: reputation (issue 20; docs/reputation.md). The fold reads the facts the indexer, the ledger and the
// resolution keep through its cursors, adds them to each wallet's record (all time, per UTC day, per collateral), and
// keeps each subject's tier, hidden standings and audit trail. Everything here is derived: a fold from empty cursors
// rebuilds it.
import { sql, type Kysely, type Migration } from 'kysely';

const COUNTERS = `
  trades bigint NOT NULL DEFAULT 0,
  volume_micros numeric(78, 0) NOT NULL DEFAULT 0,
  markets_created integer NOT NULL DEFAULT 0,
  resolved_clean integer NOT NULL DEFAULT 0,
  disputes_lost integer NOT NULL DEFAULT 0,
  creator_absences integer NOT NULL DEFAULT 0,
  challenges_upheld integer NOT NULL DEFAULT 0,
  challenges_lost integer NOT NULL DEFAULT 0,
  ballots_agreed integer NOT NULL DEFAULT 0,
  ballots_disagreed integer NOT NULL DEFAULT 0`;

const statements = [
  // Each wallet's record, all time, and the subject it is counted under now.
  sql.raw(`CREATE TABLE reputation_wallets (
    wallet text PRIMARY KEY CHECK (wallet = lower(wallet)),
    subject_key text NOT NULL,
    ${COUNTERS},
    updated_at timestamptz NOT NULL
  )`),
  sql`CREATE INDEX reputation_wallets_subject_idx ON reputation_wallets (subject_key)`,
  // The same counts per UTC day (the leaderboards of 7 and 30 days).
  sql.raw(`CREATE TABLE reputation_wallet_days (
    wallet text NOT NULL CHECK (wallet = lower(wallet)),
    day date NOT NULL,
    ${COUNTERS},
    PRIMARY KEY (wallet, day)
  )`),
  sql`CREATE INDEX reputation_wallet_days_day_idx ON reputation_wallet_days (day, wallet)`,
  // Trades and volume per collateral in its own base units (the profile's track record).
  sql`CREATE TABLE reputation_wallet_volumes (
    wallet text NOT NULL CHECK (wallet = lower(wallet)),
    symbol text NOT NULL,
    trades bigint NOT NULL DEFAULT 0,
    volume numeric(78, 0) NOT NULL DEFAULT 0,
    PRIMARY KEY (wallet, symbol)
  )`,
  // Each subject's tier, the record it was computed from and the hidden standings ranks are read in.
  sql.raw(`CREATE TABLE reputation_subjects (
    subject_key text PRIMARY KEY,
    tier text NOT NULL CHECK (tier IN ('restricted', 'new', 'established', 'trusted')),
    tier_rank smallint NOT NULL,
    tier_since timestamptz NOT NULL,
    human_verified boolean NOT NULL,
    ${COUNTERS},
    creator_standing numeric(78, 0) NOT NULL,
    juror_standing numeric(78, 0) NOT NULL,
    trader_standing numeric(78, 0) NOT NULL,
    overall_standing numeric(78, 0) NOT NULL,
    updated_at timestamptz NOT NULL
  )`),
  sql`CREATE INDEX reputation_subjects_overall_idx ON reputation_subjects (tier_rank DESC, overall_standing DESC, subject_key)`,
  sql`CREATE INDEX reputation_subjects_creator_idx ON reputation_subjects (creator_standing DESC, subject_key)`,
  sql`CREATE INDEX reputation_subjects_juror_idx ON reputation_subjects (juror_standing DESC, subject_key)`,
  sql`CREATE INDEX reputation_subjects_trader_idx ON reputation_subjects (trader_standing DESC, trades DESC, subject_key)`,
  // The audit trail: every input that moved a wallet's record, every tier change of a subject, with its reason.
  sql`CREATE TABLE reputation_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject_key text NOT NULL,
    wallet text NULL CHECK (wallet = lower(wallet)),
    kind text NOT NULL CHECK (kind IN ('input', 'tier')),
    reason text NOT NULL,
    change jsonb NOT NULL,
    tier_from text NULL,
    tier_to text NULL,
    chain_id integer NULL,
    market text NULL,
    source text NULL,
    occurred_at timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX reputation_events_wallet_idx ON reputation_events (wallet, id DESC)`,
  sql`CREATE INDEX reputation_events_subject_idx ON reputation_events (subject_key, id DESC)`,
  // Where the fold has read each source up to (compare-and-set inside its transaction).
  sql`CREATE TABLE reputation_cursors (
    source text PRIMARY KEY,
    position text NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  // The fold reads fills in ledger order.
  sql`CREATE INDEX order_fills_ledger_seq_idx ON order_fills (ledger_seq)`,
];

export const m0025_reputation: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of statements) await statement.execute(db);
  },
};

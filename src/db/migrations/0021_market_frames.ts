// Migration 0021: market-surface frames (issue 18; docs/market-data.md). One row per frame an agent published onto a
// market's surface, with the outbox event that carried it (market.frame): the frame and its event commit together.
// event_seq is set in the same transaction right after the event is appended (the frame is inserted first, so its
// market row is touched before the outbox counter is locked: docs/events.md lock order).
import { sql, type Kysely, type Migration } from 'kysely';

export const m0021_market_frames: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE market_frames (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      chain_id integer NOT NULL,
      market text NOT NULL,
      agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
      publisher_wallet text NULL,
      kind text NOT NULL CHECK (kind IN ('forecast', 'datapoint', 'evidence')),
      data jsonb NOT NULL,
      event_seq bigint NULL REFERENCES events (seq),
      created_at timestamptz NOT NULL,
      FOREIGN KEY (chain_id, market) REFERENCES markets (chain_id, address) ON DELETE CASCADE
    )`.execute(db);
    await sql`CREATE INDEX market_frames_market_idx ON market_frames (chain_id, market, id DESC)`.execute(db);
    await sql`CREATE INDEX market_frames_market_kind_idx ON market_frames (chain_id, market, kind, id DESC)`.execute(db);
  },
};

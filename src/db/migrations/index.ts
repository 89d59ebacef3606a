// Every migration, by name, for the static provider in ../migrate.ts. Names sort in apply order.
// Forward-only: migrations have no `down`; to undo a change, write a new migration.
import type { Migration } from 'kysely';
import { m0001_foundation } from './0001_foundation.ts';
import { m0002_auth_nonces } from './0002_auth_nonces.ts';
import { m0003_agents } from './0003_agents.ts';
import { m0004_registration } from './0004_registration.ts';
import { m0005_wallet_sessions } from './0005_wallet_sessions.ts';
import { m0006_identity_links } from './0006_identity_links.ts';
import { m0007_markets } from './0007_markets.ts';
import { m0008_ledger } from './0008_ledger.ts';
import { m0009_orderbook } from './0009_orderbook.ts';
import { m0010_fill_packs } from './0010_fill_packs.ts';
import { m0011_orderbook_reads } from './0011_orderbook_reads.ts';
import { m0012_nonce_purpose } from './0012_nonce_purpose.ts';
import { m0013_idempotency_effects } from './0013_idempotency_effects.ts';
import { m0014_human_verifications } from './0014_human_verifications.ts';
import { m0015_market_resolutions } from './0015_market_resolutions.ts';
import { m0016_vote_ballots } from './0016_vote_ballots.ts';
import { m0017_council_and_restarts } from './0017_council_and_restarts.ts';
import { m0018_vote_tallies } from './0018_vote_tallies.ts';
import { m0019_market_payouts } from './0019_market_payouts.ts';
import { m0020_webhooks } from './0020_webhooks.ts';
import { m0021_market_frames } from './0021_market_frames.ts';
import { m0022_faucet_grants } from './0022_faucet_grants.ts';
import { m0023_reorged_creations } from './0023_reorged_creations.ts';
// Leaderboards (issue 20).
import { m0024_leaderboards } from './0024_leaderboards.ts';
// Reputation (issue 20): its own line, apart from the other migrations of the issue.
import { m0025_reputation } from './0025_reputation.ts';
// The key cache's change signal (issue 20).
import { m0026_api_key_changes } from './0026_api_key_changes.ts';
// PM purchases (issue 21).
import { m0027_economy } from './0027_economy.ts';
// Participation release (issue 21).
import { m0028_participation } from './0028_participation.ts';
// The list pages' change signal (issue 22).
import { m0029_read_model_changes } from './0029_read_model_changes.ts';
import { m0030_cluster } from './0030_cluster.ts';
import { m0031_market_volumes } from './0031_market_volumes.ts';
import { m0032_statement_volume_triggers } from './0032_statement_volume_triggers.ts';
// Idempotency answers kept as the text they were (issue 22).
import { m0033_idempotency_answers_json } from './0033_idempotency_answers_json.ts';
import { m0034_order_reservations } from './0034_order_reservations.ts';
import { m0035_order_events_in_outbox } from './0035_order_events_in_outbox.ts';
import { m0036_leaderboard_pending } from './0036_leaderboard_pending.ts';
import { m0037_payloads_json } from './0037_payloads_json.ts';
import { m0038_leaderboard_fill_cursor } from './0038_leaderboard_fill_cursor.ts';
// Markets by address alone (issue 22): the fills' volume trigger.
import { m0039_markets_address_index } from './0039_markets_address_index.ts';
import { m0040_ledger_write_indexes } from './0040_ledger_write_indexes.ts';
import { m0041_orders_owner_seq_index } from './0041_orders_owner_seq_index.ts';
import { m0042_ledger_batch_ranges } from './0042_ledger_batch_ranges.ts';

export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001_foundation,
  '0002_auth_nonces': m0002_auth_nonces,
  '0003_agents': m0003_agents,
  '0004_registration': m0004_registration,
  '0005_wallet_sessions': m0005_wallet_sessions,
  '0006_identity_links': m0006_identity_links,
  '0007_markets': m0007_markets,
  '0008_ledger': m0008_ledger,
  '0009_orderbook': m0009_orderbook,
  '0010_fill_packs': m0010_fill_packs,
  '0011_orderbook_reads': m0011_orderbook_reads,
  '0012_nonce_purpose': m0012_nonce_purpose,
  '0013_idempotency_effects': m0013_idempotency_effects,
  '0014_human_verifications': m0014_human_verifications,
  '0015_market_resolutions': m0015_market_resolutions,
  '0016_vote_ballots': m0016_vote_ballots,
  '0017_council_and_restarts': m0017_council_and_restarts,
  '0018_vote_tallies': m0018_vote_tallies,
  '0019_market_payouts': m0019_market_payouts,
  '0020_webhooks': m0020_webhooks,
  '0021_market_frames': m0021_market_frames,
  '0022_faucet_grants': m0022_faucet_grants,
  '0023_reorged_creations': m0023_reorged_creations,
  '0024_leaderboards': m0024_leaderboards,
  '0025_reputation': m0025_reputation,
  '0026_api_key_changes': m0026_api_key_changes,
  '0027_economy': m0027_economy,
  '0028_participation': m0028_participation,
  '0029_read_model_changes': m0029_read_model_changes,
  '0030_cluster': m0030_cluster,
  '0031_market_volumes': m0031_market_volumes,
  '0032_statement_volume_triggers': m0032_statement_volume_triggers,
  '0033_idempotency_answers_json': m0033_idempotency_answers_json,
  '0034_order_reservations': m0034_order_reservations,
  '0035_order_events_in_outbox': m0035_order_events_in_outbox,
  '0036_leaderboard_pending': m0036_leaderboard_pending,
  '0037_payloads_json': m0037_payloads_json,
  '0038_leaderboard_fill_cursor': m0038_leaderboard_fill_cursor,
  '0039_markets_address_index': m0039_markets_address_index,
  '0040_ledger_write_indexes': m0040_ledger_write_indexes,
  '0041_orders_owner_seq_index': m0041_orders_owner_seq_index,
  '0042_ledger_batch_ranges': m0042_ledger_batch_ranges,
};

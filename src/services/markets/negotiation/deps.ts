// What the create-loop operations depend on (each takes the part it uses) and the negotiation row they share.
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../../core/clock.ts';
import type { DB, NegotiationsTable } from '../../../db/schema.ts';
import type { ChainService } from '../../chain/chain-service.ts';
import type { EventBus } from '../../events/bus.ts';
import type { MarketIndexer } from '../indexer/types.ts';

export type NegotiationRow = Selectable<NegotiationsTable>;

/** Where an agent settles a negotiation (the negotiation.countered event names them); built at the edge from the routes. */
export type SettleLinks = (negotiationId: string) => { accept: string; reject: string };

export interface NegotiationDeps {
  db: Kysely<DB>;
  clock: Clock;
  chain: ChainService;
  /** Kicked after a commit, so the indexer confirms the creation soon. */
  indexer: Pick<MarketIndexer, 'kick'>;
  events: EventBus;
  /** The creator's live markets (open or closed), checked against the cap. */
  countLive: (creator: string) => Promise<number>;
  /** The creator's live-market cap: its reputation tier's gate (docs/reputation.md "Gates"); MAX_LIVE_MARKETS_PER_CREATOR without one. */
  liveMarketCap?: (creator: string) => Promise<number>;
  settleLinks: SettleLinks;
}

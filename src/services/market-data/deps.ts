/**
 * What every market-data operation shares (docs/market-data.md): its dependencies and the view of a frame every
 * surface answers with (the publish response, the market's frames read, the market.frame event).
 */
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { frameId, type FrameKind } from '../../core/markets/frames.ts';
import type { AgentTier } from '../../core/tiers.ts';
import type { DB, MarketFramesTable } from '../../db/schema.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';

export interface MarketDataDeps {
  db: Kysely<DB>;
  clock: Clock;
  rateLimits: RateLimitStore;
  /** Frames per market per minute and the aggregate per minute, by tier (default DATA_PLANE_LIMITS). */
  limits: Record<AgentTier, { framesPerMarketPerMinute: number; dataPerMinute: number }>;
}

export interface FramePublisher {
  agentId: string;
  name: string;
  /** The agent's bound wallet when it published, or null. */
  walletAddress: string | null;
}

export interface FrameView {
  id: string;
  chainId: number;
  marketAddress: string;
  kind: FrameKind;
  data: Record<string, unknown>;
  publisher: FramePublisher;
  publishedAt: string;
  /** The outbox sequence of its market.frame event (resume a stream from it). */
  sequence: string;
}

export type FrameRow = Selectable<MarketFramesTable> & { agent_name: string };

export function frameView(row: FrameRow): FrameView {
  return {
    id: frameId(row.id),
    chainId: row.chain_id,
    marketAddress: row.market,
    kind: row.kind,
    data: row.data,
    publisher: { agentId: row.agent_id, name: row.agent_name, walletAddress: row.publisher_wallet },
    publishedAt: row.created_at.toISOString(),
    sequence: String(row.event_seq ?? '0'),
  };
}

/** Frames with their publisher's name, newest first (list and get narrow it). */
export const framesQuery = (db: Kysely<DB>) =>
  db
    .selectFrom('market_frames as f')
    .innerJoin('agents as a', 'a.id', 'f.agent_id')
    .selectAll('f')
    .select('a.name as agent_name')
    .orderBy('f.id', 'desc');

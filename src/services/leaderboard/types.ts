// What the leaderboard reads answer (docs/leaderboard.md "Responses"); the catalog publishes these shapes
// (src/api/catalog/leaderboard/shapes.ts). Money is USD micro-dollars as signed decimal strings.
import type { LeaderboardPeriod, LeaderboardSort, ValueUnit } from '../../core/leaderboard/boards.ts';

export interface TraderFigures {
  pnl: string;
  realizedPnl: string;
  unrealizedPnl: string;
  volume: string;
  trades: number;
  maxDrawdown: string;
  /** pnl ÷ max(maxDrawdown, $100), a decimal. */
  riskAdjustedPnl: string;
}

export interface CreatorFigures {
  points: string;
  marketsCreated: number;
  resolvedClean: number;
  disputesLost: number;
  volumeAttracted: string;
}

export interface VoterFigures {
  points: string;
  ballotsCast: number;
  agreed: number;
  disagreed: number;
}

interface EntryBase {
  rank: number;
  /** Checksummed. */
  walletAddress: string;
  agentName: string | null;
  /** The sort's value, in the board's valueUnit. */
  value: string;
}

export type LeaderboardEntry = EntryBase & ({ kind: 'trader'; trader: TraderFigures } | { kind: 'creator'; creator: CreatorFigures } | { kind: 'voter'; voter: VoterFigures });

export interface BoardQuery {
  sort: LeaderboardSort;
  /** ALL or a MarketCategory; only ALL for CREATOR_QUALITY and VOTERS. */
  category: string;
  period: LeaderboardPeriod;
}

export interface LeaderboardPage extends BoardQuery {
  valueUnit: ValueUnit;
  /** The UTC days counted (ISO dates, both included); null for all. */
  window: { from: string; to: string } | null;
  limit: number;
  offset: number;
  /** The offset of the next page, or null (last entry, or past the deepest offset, 200). */
  nextOffset: number | null;
  /** When the ranked rows were read. */
  asOf: string;
  entries: LeaderboardEntry[];
}

export interface PnlPoint {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  realizedPnl: string;
  cumulativeRealizedPnl: string;
  volume: string;
  trades: number;
}

export interface PnlHistory {
  walletAddress: string;
  agentName: string | null;
  unit: 'usd_micro';
  asOf: string;
  points: PnlPoint[];
  totals: { realizedPnl: string; unrealizedPnl: string; pnl: string; volume: string; trades: number; maxDrawdown: string };
}

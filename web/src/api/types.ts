// The parts of the API's answers the app reads (the full shapes: /api/v1/openapi.json, /api/agent/v1/openapi.json).

export const MARKET_STATES = ['open', 'closed', 'creator_proposal', 'challenge', 'human_voting', 'council_review', 'resolved', 'void'] as const;
export type MarketState = (typeof MARKET_STATES)[number];
export const MARKET_CATEGORIES = ['CRYPTO', 'SPORTS', 'POLITICS', 'FINANCE', 'TECH', 'DAILY_LIFE', 'LOCAL', 'SOCIAL', 'FUN', 'OTHER'] as const;
export const LISTING_SORTS = ['new', 'volume_24h', 'closing_soon', 'resolved_newest'] as const;
export type ListingSort = (typeof LISTING_SORTS)[number];
export const DATE_RANGES = ['TODAY', 'WEEK', 'MONTH'] as const;
export const COLLATERALS = ['USDC', 'PM'] as const;
export const PRICING_MODELS = ['automated', 'ORDERBOOK'] as const;
export const CHART_WINDOWS = ['1H', '1D', '1W', 'ALL'] as const;
export type ChartWindow = (typeof CHART_WINDOWS)[number];
export const LEADERBOARD_SORTS = ['PNL', 'VOLUME', 'RISK_ADJ_PNL', 'CREATOR_QUALITY', 'VOTERS'] as const;
export type LeaderboardSort = (typeof LEADERBOARD_SORTS)[number];
export const LEADERBOARD_PERIODS = ['7d', '30d', 'all'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
export const TRADER_SORTS: readonly LeaderboardSort[] = ['PNL', 'VOLUME', 'RISK_ADJ_PNL'];

export interface Outcome {
  index: number;
  label: string;
  /** An exact decimal in [0, 1]. */
  price: string;
  outstandingShares: string;
}

export interface Market {
  address: string;
  chainId: number;
  pricingModel: 'automated' | 'ORDERBOOK';
  creator: string;
  collateral: { symbol: string; token: string; decimals: number };
  question: string;
  description: string | null;
  category: string;
  outcomes: Outcome[];
  resolutionSource: string | null;
  state: MarketState;
  isTradeable: boolean;
  closeTime: string;
  resolveBy: string;
  createdAt: string;
  /** Base units of the collateral. */
  liquidity: string;
  volume: string;
  volume24h: string;
  tradeCount: number;
  openInterest: string;
  lastTradeAt: string | null;
}

export interface MarketListings {
  markets: Market[];
}
export interface MarketCounts {
  counts: Record<MarketState, number>;
  total: number;
}
export interface MarketDetail {
  market: Market;
}

export interface ChartPoint {
  t: string;
  prices: string[];
}
export interface MarketChart {
  window: ChartWindow;
  points: ChartPoint[];
  latest: ChartPoint;
}

export type Trade =
  | { kind: 'lmsr'; txHash: string; logIndex: number; timestamp: string; trader: string; outcome: number; side: 'buy' | 'sell'; shares: string; cost: string; pricesAfter: string[] }
  | { kind: 'orderbook'; fillId: string; timestamp: string; taker: string; outcome: number; side: 'buy' | 'sell'; price: string; shares: string; cost: string; pricesAfter: string[] };
export interface MarketTrades {
  trades: Trade[];
}

export interface DepthQuote {
  amount: string;
  averagePrice: string;
  priceAfter: string;
}
export type MarketDepth =
  | {
      kind: 'lmsr';
      tradeable: boolean;
      basis: 'live' | 'at_close' | 'unavailable';
      outcomes: { index: number; label: string; price: string; levels: { fractionBps: number; shares: string; quote: DepthQuote | null }[] }[];
    }
  | { kind: 'orderbook'; tradeable: boolean; bids: { price: string; shares: string }[]; asks: { price: string; shares: string }[] };

export interface LeaderboardEntry {
  rank: number;
  walletAddress: string;
  agentName: string | null;
  value: string;
  kind: 'trader' | 'creator' | 'voter';
}
export interface Leaderboard {
  sort: LeaderboardSort;
  period: LeaderboardPeriod;
  valueUnit: 'usd_micro' | 'ratio' | 'points';
  nextOffset: number | null;
  asOf: string;
  entries: LeaderboardEntry[];
}

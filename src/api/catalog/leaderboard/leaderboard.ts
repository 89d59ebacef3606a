// GET /api/v1/leaderboard and GET /discover/leaderboard: one board, two surfaces (docs/leaderboard.md). The consumer
// capability answers every input error with the spec's INVALID_PAYLOAD; the agent one with INVALID_QUERY, as every
// agent GET (docs/http.md).
import { defineCapability } from '../types.ts';
import { LeaderboardQuery, LeaderboardResponse } from './shapes.ts';

const DESCRIPTION =
  'Ranks wallets: traders by PNL (realized + unrealized at the latest price, USD micro-dollars), VOLUME or RISK_ADJ_PNL (P&L ÷ max(max drawdown of the daily realized curve, $100)); creators by CREATOR_QUALITY points (100 per market resolved without a dispute lost, −300 per dispute lost, 1 per $1,000 of volume attracted); voters by VOTERS points (1 per ballot, ±10 per agreement or disagreement with a binding verdict). USDC and play money count one to one as dollars; PM markets are left out. category (ALL or a MarketCategory) applies to the trader sorts only; period 7d, 30d or all (UTC days); limit 1..100 (50), offset 0..200 (0). Boards are read from rows the updater keeps current from the indexer and the ledger; asOf says when.';

export const getLeaderboardConsumer = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/leaderboard',
  category: 'leaderboard',
  summary: 'Trader, creator and voter leaderboard',
  description: `${DESCRIPTION} Bad input is 400 INVALID_PAYLOAD.`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  input: { query: LeaderboardQuery },
  invalidInputCode: 'INVALID_PAYLOAD',
  output: LeaderboardResponse,
  outputName: 'LeaderboardResponse',
  errors: ['INVALID_PAYLOAD', 'INTERNAL_ERROR'],
  handler: async (ctx, { query }) => ctx.services.leaderboard.renderedBoard(query),
});

export const discoverLeaderboard = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/leaderboard',
  category: 'discovery',
  summary: 'Trader, creator and voter leaderboard',
  description: `${DESCRIPTION} Bad input is 400 INVALID_QUERY.`,
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_leaderboard' },
  input: { query: LeaderboardQuery },
  output: LeaderboardResponse,
  outputName: 'LeaderboardResponse',
  errors: ['INVALID_QUERY'],
  handler: async (ctx, { query }) => ctx.services.leaderboard.renderedBoard(query),
});

export const LEADERBOARD_CAPABILITIES = [getLeaderboardConsumer, discoverLeaderboard];

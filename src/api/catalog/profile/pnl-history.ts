// GET /profile/:address/pnl-history: a wallet's daily cumulative realized P&L, its equity curve (docs/leaderboard.md
// "P&L history"). A malformed address is 400 INVALID_ID.
import { z } from 'zod';
import { EvmAddress } from '../../../wire/schemas.ts';
import { PnlHistoryResponse } from '../leaderboard/shapes.ts';
import { defineCapability } from '../types.ts';

export const getProfilePnlHistory = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/profile/:address/pnl-history',
  category: 'reputation',
  summary: "A wallet's daily cumulative realized P&L",
  description:
    "The wallet's equity curve: one point per UTC day on which it traded or realized P&L (a sell's proceeds net of fees minus the average cost of the shares sold, or a market's settlement), with the day's realized P&L and the running total, in USD micro-dollars (USDC and play money one to one; PM markets left out). totals adds the unrealized P&L of its open positions at the latest prices and the curve's max drawdown. A wallet that never traded answers no points.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_profile_pnl_history' },
  input: { params: z.strictObject({ address: EvmAddress }) },
  output: PnlHistoryResponse,
  outputName: 'PnlHistoryResponse',
  errors: ['INVALID_ID'],
  handler: async (ctx, { params }) => ctx.services.leaderboard.pnlHistory(params.address),
});

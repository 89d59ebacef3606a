// GET /portfolio/positions: the caller's bound wallet's outcome shares in automated markets, from the indexer's
// projection, with each market's current price and state (docs/markets.md "Positions"). Only ever the caller's own
// wallet: the input names no wallet, so a key or a wallet session reads its own positions and nobody else's.
import { z } from 'zod';
import { MarketStateSchema, PriceString, ProjectionSchema } from '../../../wire/markets.ts';
import { ChainId, EvmAddress, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const Position = z.object({
  chainId: ChainId,
  marketAddress: EvmAddress,
  question: z.string(),
  state: MarketStateSchema.describe("the market's lifecycle state (GET /discover/market-states)"),
  outcomeIndex: z.number().int().min(0).max(2).describe('0-based trade side'),
  outcomeLabel: z.string(),
  shares: WeiString.describe('outcome shares held, collateral base units (a winning share pays one collateral unit)'),
  price: PriceString.describe("the outcome's current price (after the market's last trade)"),
  markValue: WeiString.describe('shares × price, rounded down, collateral base units: a mark, not what a sale would pay'),
  collateral: z.object({ symbol: z.string(), token: EvmAddress, decimals: z.number().int().min(0) }),
});

export const getPortfolioPositions = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/portfolio/positions',
  category: 'portfolio',
  summary: "The wallet's positions in automated markets",
  description:
    "The key's bound wallet's outcome shares in automated (LMSR) markets, whatever their state, one item per market and outcome with shares > 0, newest market first, a page at a time (cursor, limit 1..200, default 50): the market's question, the outcome, the shares (collateral base units), the outcome's current price, markValue (shares × price) and the collateral. Read from the indexer's projection of outcome-token transfers; projection tells how fresh it is. Order-book holdings are ledger balances (GET /ledger/proof/{account}). Never another wallet's: the input names none.",
  tier: 'read-only',
  scopes: ['portfolio:read'],
  rateClass: 'read',
  idempotent: true,
  walletSession: 'principal',
  mcp: { tool: 'svc_get_portfolio_positions' },
  input: {
    query: z.strictObject({
      cursor: z.string().min(1).max(32).optional().describe('nextCursor of the previous page'),
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(200).default(50),
    }),
  },
  output: z.object({
    wallet: EvmAddress,
    positions: z.array(Position),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
    projection: ProjectionSchema,
  }),
  outputName: 'PortfolioPositionsResponse',
  errors: ['INVALID_QUERY', 'WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx, { query }) => ({
    ...(await ctx.services.marketReads.positions({ principal: ctx.principal, cursor: query.cursor, limit: query.limit })),
    projection: await ctx.services.indexer.projection(),
  }),
});

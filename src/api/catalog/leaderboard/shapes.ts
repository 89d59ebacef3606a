// The leaderboard and P&L-history shapes both surfaces publish (docs/leaderboard.md "Responses"): money as signed
// decimal strings of USD micro-dollars, ratios as decimal strings, ranks from 1.
import { z } from 'zod';
import { ALL_CATEGORIES, isTraderSort, LEADERBOARD_PERIODS, LEADERBOARD_SORTS, TRADER_SORTS } from '../../../core/leaderboard/boards.ts';
import { MARKET_CATEGORIES } from '../../../wire/markets.ts';
import { EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';

const UsdMicro = z.string().regex(/^-?[0-9]+$/).describe('USD micro-dollars: 6 decimals (1000000 = $1), signed');
const Ratio = z.string().regex(/^-?[0-9]+(\.[0-9]{1,6})?$/).describe('a decimal with up to 6 places');
const Points = z.string().regex(/^-?[0-9]+$/).describe('whole points, signed');
const Count = z.number().int().min(0);
const IsoDate = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/).describe('a UTC day, YYYY-MM-DD');
const int = (min: number, max: number, fallback: number) => z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min).max(max).default(fallback);

/** The query of GET /api/v1/leaderboard and GET /discover/leaderboard (spec Limits). */
export const LeaderboardQuery = z
  .strictObject({
    sort: z.enum(LEADERBOARD_SORTS).default('PNL').describe('PNL, VOLUME, RISK_ADJ_PNL (traders), CREATOR_QUALITY (creators) or VOTERS'),
    category: z
      .enum([ALL_CATEGORIES, ...MARKET_CATEGORIES])
      .default(ALL_CATEGORIES)
      .describe(`ALL or a MarketCategory; a category other than ALL applies to the trader sorts only (${TRADER_SORTS.join(', ')})`),
    period: z.enum(LEADERBOARD_PERIODS).default('7d').describe('7d: today and the 6 UTC days before; 30d: today and the 29 before; all'),
    limit: int(1, 100, 50),
    offset: int(0, 200, 0),
  })
  .superRefine((q, ctx) => {
    if (q.category !== ALL_CATEGORIES && !isTraderSort(q.sort)) {
      ctx.addIssue({ code: 'custom', path: ['category'], message: `category applies to the trader sorts only (${TRADER_SORTS.join(', ')}); ${q.sort} takes ALL` });
    }
  });

const EntryBase = {
  rank: z.number().int().min(1).max(300),
  walletAddress: EvmAddress.describe('checksummed'),
  agentName: z.string().nullable().describe("the name of the agent bound to the wallet, if any"),
  value: z.string().describe("the sort's value in the board's valueUnit"),
};

const TraderEntry = z.object({
  ...EntryBase,
  kind: z.literal('trader'),
  trader: z.object({
    pnl: UsdMicro.describe('realizedPnl + unrealizedPnl'),
    realizedPnl: UsdMicro.describe('realized in the period: sells (proceeds net of fees − average cost) and settlements'),
    unrealizedPnl: UsdMicro.describe('open positions at the latest price − their average cost, now'),
    volume: UsdMicro.describe('notional traded in the period, fees excluded'),
    trades: Count.describe('trades and fills (legs) in the period'),
    maxDrawdown: UsdMicro.describe('largest fall of the daily cumulative realized P&L in the period'),
    riskAdjustedPnl: Ratio.describe('pnl ÷ max(maxDrawdown, $100)'),
  }),
});
const CreatorEntry = z.object({
  ...EntryBase,
  kind: z.literal('creator'),
  creator: z.object({
    points: Points,
    marketsCreated: Count,
    resolvedClean: Count.describe('markets final in the period without a dispute lost'),
    disputesLost: Count.describe('markets final in the period whose creator was slashed'),
    volumeAttracted: UsdMicro.describe("volume of trades in the creator's markets in the period"),
  }),
});
const VoterEntry = z.object({
  ...EntryBase,
  kind: z.literal('voter'),
  voter: z.object({
    points: Points,
    ballotsCast: Count,
    agreed: Count.describe('ballots whose round ended in a binding verdict for the same outcome'),
    disagreed: Count.describe('ballots whose round ended in a binding verdict for another outcome'),
  }),
});

export const LeaderboardResponse = z.object({
  sort: z.enum(LEADERBOARD_SORTS),
  category: z.string(),
  period: z.enum(LEADERBOARD_PERIODS),
  valueUnit: z.enum(['usd_micro', 'ratio', 'points']).describe('usd_micro for PNL and VOLUME, ratio for RISK_ADJ_PNL, points for CREATOR_QUALITY and VOTERS'),
  window: z.object({ from: IsoDate, to: IsoDate }).nullable().describe('the UTC days counted, both included; null for all'),
  limit: z.number().int(),
  offset: z.number().int(),
  nextOffset: z.number().int().nullable().describe('offset of the next page; null after the last entry or past offset 200'),
  asOf: IsoTimestamp.describe('when the ranked rows were read (boards are kept current by the updater within seconds)'),
  entries: z.array(z.discriminatedUnion('kind', [TraderEntry, CreatorEntry, VoterEntry])),
});

export const PnlHistoryResponse = z.object({
  walletAddress: EvmAddress,
  agentName: z.string().nullable(),
  unit: z.literal('usd_micro'),
  asOf: IsoTimestamp,
  points: z.array(
    z.object({
      date: IsoDate,
      realizedPnl: UsdMicro.describe("the day's realized P&L"),
      cumulativeRealizedPnl: UsdMicro.describe('the equity curve: realized P&L up to and including the day'),
      volume: UsdMicro,
      trades: Count,
    }),
  ),
  totals: z.object({
    realizedPnl: UsdMicro,
    unrealizedPnl: UsdMicro,
    pnl: UsdMicro,
    volume: UsdMicro,
    trades: Count,
    maxDrawdown: UsdMicro,
  }),
});

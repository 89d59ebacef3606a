// GET /api/v1/discovery/theses: live, tradeable markets worth a look, each with why, in one of 18 locales (docs/theses.md).
import { z } from 'zod';
import { REASON_KINDS, THESIS_RULES } from '../../../core/theses/choose.ts';
import { DEFAULT_THESIS_LOCALE, THESIS_LOCALES } from '../../../core/theses/locales.ts';
import { ChainId, ChainIdQuery, EvmAddress, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { defineCapability, Reply } from '../types.ts';

/** Theses move with trades and the clock by the hour: a shared cache may keep an answer for a minute. */
export const THESES_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';

const Price = z.string().regex(/^(0(\.[0-9]{1,18})?|1)$/).describe('exact decimal in [0, 1] (docs/units.md)');
const SignedDecimal = z.string().regex(/^-?(0|1)(\.[0-9]{1,18})?$/).describe('exact decimal in [-1, 1]');
const Label = z.string();

const reason = <K extends string, V extends z.ZodRawShape>(kind: K, description: string, values: V) =>
  z
    .object({
      kind: z.literal(kind),
      strength: z.number().min(0).max(1).describe('how strongly this reason holds, 0..1 (docs/theses.md "Reasons")'),
      text: z.string().describe('one sentence in the locale'),
      values: z.object(values).describe('the numbers the sentence cites, raw'),
    })
    .describe(description);

export const ThesisReason = z.discriminatedUnion('kind', [
  reason('price_move', `an outcome's price moved at least 5 points over the last ${THESIS_RULES.windowHours} hours`, {
    outcome: z.number().int().min(0).describe('0-based outcome that moved most'),
    outcomeLabel: Label,
    from: Price.describe(`price ${THESIS_RULES.windowHours} hours ago (the 1D chart's opening point)`),
    to: Price.describe('price now'),
    change: SignedDecimal.describe('to − from'),
    windowHours: z.number().int(),
  }),
  reason('volume', `at least ${THESIS_RULES.volumeMinUnits} whole collateral units traded over at least ${THESIS_RULES.volumeMinTrades} trades in the window`, {
    volume: WeiString.describe('Σ cost of the trades in the window, collateral base units, fees excluded'),
    trades: z.number().int().min(0),
    windowHours: z.number().int(),
    collateralSymbol: z.string(),
    collateralDecimals: z.number().int().min(0),
  }),
  reason('closing_soon', `closes within ${THESIS_RULES.closingHours} hours`, {
    closeTime: IsoTimestamp,
    secondsLeft: z.number().int().min(0),
  }),
  reason('disagreement', "a binary market of the same category prices its first outcome at least 30 points away", {
    outcome: z.number().int().min(0).describe('0: the first outcome of both markets'),
    outcomeLabel: Label,
    price: Price,
    relatedMarket: EvmAddress,
    relatedQuestion: z.string(),
    relatedPrice: Price,
    gap: Price.describe('|relatedPrice − price|'),
  }),
  reason('forecast', `a forecast frame of the last ${THESIS_RULES.forecastHours} hours is at least 10 points from the price`, {
    frameId: z.string(),
    publishedAt: IsoTimestamp,
    outcome: z.number().int().min(0),
    outcomeLabel: Label,
    forecast: Price,
    price: Price,
    gap: SignedDecimal.describe('forecast − price'),
  }),
  reason('new_market', `created within the last ${THESIS_RULES.windowHours} hours`, {
    createdAt: IsoTimestamp,
    secondsOpen: z.number().int().min(0),
    tradeCount: z.number().int().min(0),
  }),
]);

export const DiscoveryThesis = z.object({
  rank: z.number().int().min(1),
  market: EvmAddress,
  chainId: ChainId,
  question: z.string(),
  category: z.string().describe('MarketCategory (or the creator\'s own category)'),
  categoryLabel: z.string().describe('the category in the locale'),
  pricingModel: z.enum(['automated', 'ORDERBOOK']),
  collateral: z.object({ symbol: z.string(), decimals: z.number().int().min(0) }),
  outcomes: z.array(z.object({ index: z.number().int().min(0), label: z.string(), price: Price })).describe('current prices'),
  closeTime: IsoTimestamp,
  volume24h: WeiString,
  score: z.number().min(0).describe('Σ strength of the reasons: the ranking key'),
  kinds: z.array(z.enum(REASON_KINDS)).min(1).describe('the reasons, strongest first'),
  text: z.string().describe('the thesis: the strongest reason, joined with the second when there is one'),
  reasons: z.array(ThesisReason).min(1),
});

export const DiscoveryThesesResponse = z.object({
  locale: z.enum(THESIS_LOCALES),
  dir: z.enum(['ltr', 'rtl']).describe('text direction of the locale (ar-SA: rtl)'),
  chainId: ChainId,
  generatedAt: IsoTimestamp,
  theses: z.array(DiscoveryThesis).max(THESIS_RULES.cap),
});

export const discoverTheses = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/discovery/theses',
  category: 'discovery',
  summary: 'Discovery theses',
  description: `Live, tradeable, listed markets of chainId worth a look, best first (at most ${THESIS_RULES.cap}), each with a short thesis in locale: why (a price move of 5+ points in 24 hours, volume, closing within ${THESIS_RULES.closingHours} hours, disagreement with a related market of the same category, a recent agent forecast far from the price, a new market), the numbers it cites raw, and the market's current prices. chainId is required; locale is a DiscoveryThesisLocale (default ${DEFAULT_THESIS_LOCALE}); dir says the text direction (rtl for ar-SA). A missing or malformed chainId, an unknown locale or any other field is 400 INVALID_QUERY; a chain not served is 400 UNSUPPORTED_CHAIN.`,
  tier: null,
  rateClass: 'read',
  idempotent: true,
  input: {
    query: z.strictObject({
      chainId: ChainIdQuery.describe('the chain whose markets to read (required)'),
      locale: z.enum(THESIS_LOCALES).default(DEFAULT_THESIS_LOCALE),
    }),
  },
  output: DiscoveryThesesResponse,
  outputName: 'DiscoveryThesesResponse',
  responseHeaders: {
    'Cache-Control': { description: `public cache policy (${THESES_CACHE_CONTROL})`, required: true },
    'Content-Language': { description: 'the locale of the text', required: true },
  },
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'INTERNAL_ERROR'],
  handler: async (ctx, { query }) => {
    ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    const body = await ctx.services.theses.list({ chainId: query.chainId, locale: query.locale, now: ctx.clock.now() });
    return new Reply(body, 200, { 'Cache-Control': THESES_CACHE_CONTROL, 'Content-Language': query.locale });
  },
});

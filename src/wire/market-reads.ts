// Wire shapes and query fields of the market reads (agent /discover/markets*, consumer /api/v1/markets*),
// documented in docs/markets.md "Reads". MarketRecord and the projection object live in shapes.ts.
import { z } from 'zod';
import { ChainId, ChainIdQuery, EvmAddress, IsoTimestamp, TxHash, WeiString } from './schemas.ts';
import { MarketRecord, MarketStateSchema, PriceString } from './markets.ts';
import { REPUTATION_TIERS } from '../core/reputation/tiers.ts';

/** The orders a market listing can be sorted in (docs/markets.md "Reads"). */
export const LISTING_SORTS = ['new', 'volume_24h', 'closing_soon', 'resolved_newest'] as const;
export type ListingSort = (typeof LISTING_SORTS)[number];

// ── query fields ────────────────────────────────────────────────────────────────────────────────

export const ListingSortSchema = z.enum(LISTING_SORTS).describe(
  'new (newest first, keyset-paginated with cursor), volume_24h (traded cost in the last 24 h, highest first), closing_soon (open markets, soonest close first), resolved_newest (resolved and void markets, latest close first)',
);
export const CategoryQuery = z.string().min(1).max(64).describe('MarketCategory (CRYPTO, SPORTS, POLITICS, FINANCE, TECH, DAILY_LIFE, LOCAL, SOCIAL, FUN, OTHER) or any string; case-insensitive');
export const SearchQuery = z.string().min(2).max(200).describe('case-insensitive substring of the question, or trigram similarity above 0.3');
export const CursorQuery = z.string().min(1).max(64).describe('opaque cursor from a prior page; valid only with sort=new');
export const AddressPrefixQuery = z
  .string()
  .regex(/^0x[0-9a-fA-F]{0,40}$/, 'must be a market address or a prefix of one (0x then up to 40 hex digits)')
  .describe('market address, exact or prefix; case-insensitive');
export const DateRangeSchema = z.enum(['TODAY', 'WEEK', 'MONTH']).describe('open markets closing within 24 hours, 7 days or 30 days');
export const ProbPercentQuery = z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(0).max(100);
export const GeoPlaceQuery = z.string().min(1).max(120).describe('place name; case-insensitive exact match');
export const GeoCountryQuery = z.string().length(2).describe('ISO 3166-1 alpha-2 country code; case-insensitive');
export const CollateralQuery = z.string().min(1).max(64).describe('collateral symbol (USDC, PM) or token address');
export const ChartWindowSchema = z.enum(['1H', '1D', '1W', 'ALL']);

/**
 * A path address checked by the handler, so a malformed one answers 400 INVALID_ID rather than the
 * capability's query code; the pattern is still published in the OpenAPI parameter.
 */
export const PathAddress = z.string().min(1).max(100).meta({ pattern: '^0x[a-fA-F0-9]{40}$', description: 'market address (EvmAddress)' });

// ── per-market reads ────────────────────────────────────────────────────────────────────────────

export const ChartPoint = z.object({
  t: IsoTimestamp,
  prices: z.array(PriceString).describe('one price per outcome, 0-based trade-side order'),
});

export const MarketChart = z.object({
  market: EvmAddress,
  chainId: ChainId,
  window: ChartWindowSchema,
  points: z.array(ChartPoint).describe('ascending time, at most 200: the prices in force at the window start, then the prices after trades (last trade per time bucket)'),
  latest: ChartPoint.describe('canonical current prices from the market projection, stamped with the time they took effect'),
});
export type MarketChartT = z.output<typeof MarketChart>;

export const MarketTrade = z.object({
  kind: z.literal('lmsr'),
  txHash: TxHash,
  logIndex: z.number().int().nonnegative(),
  blockNumber: z.string().regex(/^[0-9]+$/),
  timestamp: IsoTimestamp,
  trader: EvmAddress,
  recipient: EvmAddress,
  outcome: z.number().int().min(0).max(2).describe('0-based trade side'),
  side: z.enum(['buy', 'sell']),
  shares: WeiString,
  cost: WeiString.describe('LMSR cost, fees excluded, collateral base units'),
  protocolFee: WeiString,
  creatorFee: WeiString,
  pricesAfter: z.array(PriceString),
});
export type MarketTradeT = z.output<typeof MarketTrade>;

/** A fill of an ORDERBOOK market, told from the taker's side like an LMSR trade (docs/orderbook.md "Market reads"). */
export const OrderbookTrade = z.object({
  kind: z.literal('orderbook'),
  fillId: z.string().regex(/^[0-9]+$/),
  timestamp: IsoTimestamp,
  taker: EvmAddress.describe('the arriving order\'s wallet'),
  maker: EvmAddress.describe('the resting order\'s wallet'),
  outcome: z.number().int().min(0).max(1).describe("the taker's outcome, 0-based"),
  side: z.enum(['buy', 'sell']).describe("the taker's action"),
  match: z.enum(['TRANSFER', 'MINT', 'MERGE', 'TAKER_SELLS']).describe('how the fill settled in the ledger'),
  price: PriceString.describe("the taker's outcome price at execution"),
  shares: WeiString.describe('collateral base units of shares, as everywhere in market reads (1 whole share = 1000000)'),
  cost: WeiString.describe('what the taker paid (buy) or received (sell) for the shares, fees excluded, play-money base units'),
  takerFee: WeiString,
  pricesAfter: z.array(PriceString).describe('outcome 0 at the fill price, outcome 1 its complement'),
  ledgerSeq: z.string().regex(/^[0-9]+$/),
  final: z.boolean().describe('true once the ledger batch holding the fill is committed on chain'),
  batchNonce: z.string().regex(/^[0-9]+$/).nullable(),
});
export type OrderbookTradeT = z.output<typeof OrderbookTrade>;

export const AnyMarketTrade = z.discriminatedUnion('kind', [MarketTrade, OrderbookTrade]);

export const MarketHolders = z.object({
  market: EvmAddress,
  chainId: ChainId,
  holders: z.array(
    z.object({
      index: z.number().int().min(0).max(2).describe('0-based trade side'),
      label: z.string(),
      outstandingShares: WeiString,
      holderCount: z.number().int().nonnegative(),
      top: z.array(z.object({ address: EvmAddress, shares: WeiString })).describe('largest holders first, at most 20'),
    }),
  ),
  holderCount: z.number().int().nonnegative().describe('distinct wallets holding any outcome'),
  openInterest: WeiString.describe('Σ outstanding shares × price, collateral base units (as MarketRecord.openInterest)'),
});
export type MarketHoldersT = z.output<typeof MarketHolders>;

export const MarketComment = z.object({
  id: z.uuid(),
  author: EvmAddress,
  body: z.string(),
  createdAt: IsoTimestamp,
  position: z.array(WeiString).describe("the author's current shares per outcome in this market (0-based trade-side order)"),
  reputation: z
    .object({
      subjectId: z.string().describe('the author\'s reputation subject (GET /reputation/subjects/:subjectId)'),
      tier: z.enum(REPUTATION_TIERS).describe('the author\'s reputation tier now (docs/reputation.md "Tiers")'),
    })
    .describe("the author's reputation tag: subject and tier (never a score)"),
});
export type MarketCommentT = z.output<typeof MarketComment>;

const DepthQuote = z.object({
  amount: WeiString.describe('total paid for the level, fees included, collateral base units (quoteBuy)'),
  protocolFee: WeiString,
  creatorFee: WeiString,
  averagePrice: z.string().regex(/^[0-9]+(\.[0-9]{1,18})?$/).describe('amount / shares, fees included'),
  priceAfter: PriceString.describe("this outcome's price after the buy"),
});

export const LmsrDepth = z.object({
  kind: z.literal('lmsr'),
  market: EvmAddress,
  chainId: ChainId,
  tradeable: z.boolean(),
  basis: z
    .enum(['live', 'at_close', 'unavailable'])
    .describe('live: quoted at blockNumber; at_close: the market is past its close time, quoted on the current state as of the last tradeable second; unavailable: the market no longer quotes (levels carry quote null)'),
  blockNumber: z.string().regex(/^[0-9]+$/),
  liquidity: WeiString.describe('LMSR b, collateral base units'),
  outcomes: z.array(
    z.object({
      index: z.number().int().min(0).max(2),
      label: z.string(),
      price: PriceString,
      levels: z.array(
        z.object({
          fractionBps: z.number().int().describe('level size as a share of b, basis points (100, 500, 1000, 2500, 5000)'),
          shares: WeiString,
          quote: DepthQuote.nullable().describe('null when the chain refuses this quote'),
        }),
      ),
    }),
  ),
});
export type LmsrDepthT = z.output<typeof LmsrDepth>;

const BookLevel = z.object({ price: PriceString.describe('outcome-0 price of the level'), shares: WeiString.describe('shares resting at the level, base units (one share = 1000000)') });
export const OrderbookDepth = z.object({
  kind: z.literal('orderbook'),
  market: EvmAddress,
  chainId: ChainId,
  tradeable: z.boolean(),
  bids: z.array(BookLevel),
  asks: z.array(BookLevel),
});

export const MarketDepth = z.discriminatedUnion('kind', [LmsrDepth, OrderbookDepth]);

// ── consumer responses ──────────────────────────────────────────────────────────────────────────

export const MarketListingsResponse = z.object({ markets: z.array(MarketRecord) });

export const MarketCountsResponse = z.object({
  counts: z.object(Object.fromEntries(MarketStateSchema.options.map((s) => [s, z.number().int().nonnegative()])) as Record<z.output<typeof MarketStateSchema>, z.ZodNumber>),
  total: z.number().int().nonnegative(),
});

export const MarketSitemapResponse = z.object({
  markets: z.array(z.object({ address: EvmAddress, chainId: ChainId, question: z.string(), updatedAt: IsoTimestamp })),
});

export const CreatorLiveMarketCountResponse = z.object({
  creator: EvmAddress,
  chainId: ChainId,
  liveCount: z.number().int().nonnegative().describe('markets of this creator in state open or closed'),
  maxLiveMarkets: z.number().int().positive().describe('the most live markets one creator may have at once'),
});

/** Path and query of the per-market agent reads (GET /discover/markets/:address/...). */
export const MarketPathParams = z.strictObject({ address: PathAddress });
export const MarketChainQuery = z.strictObject({ chainId: ChainIdQuery.optional().describe('the market\'s chain; the served chain when omitted') });

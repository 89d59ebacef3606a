// Wire shapes shared by every market read (agent /discover/markets*, consumer /api/v1/markets*) and by the
// create loop's answers. Named for OpenAPI; documented in docs/markets.md.
import { z } from 'zod';
import { CONTROL_AXES, MARKET_STATES } from '../core/markets/states.ts';
import { ChainId, EvmAddress, IsoTimestamp, TxHash, WeiString } from './schemas.ts';

export const MARKET_CATEGORIES = ['CRYPTO', 'SPORTS', 'POLITICS', 'FINANCE', 'TECH', 'DAILY_LIFE', 'LOCAL', 'SOCIAL', 'FUN', 'OTHER'] as const;
export const MarketCategory = z.enum(MARKET_CATEGORIES);
export const MarketStateSchema = z.enum(MARKET_STATES);
/** A market's pricing model as every answer names it: automated (the LMSR lane) or ORDERBOOK (docs/units.md). */
export const PricingModel = z.enum(['automated', 'ORDERBOOK']);
/**
 * A pricing model as a caller may name it: automated, ORDERBOOK, or LMSR — the name of the automated lane's factory
 * (GET /discover/fees) — read as automated. Answers always say automated.
 */
export const PricingModelInput = z
  .enum(['automated', 'ORDERBOOK', 'LMSR'])
  .transform((m): z.output<typeof PricingModel> => (m === 'LMSR' ? 'automated' : m))
  .describe('automated or ORDERBOOK; LMSR is accepted as another name for automated');
/** An exact decimal in [0, 1], e.g. "0.5". */
export const PriceString = z.string().regex(/^(0(\.[0-9]{1,18})?|1(\.0{1,18})?)$/, 'must be a decimal price between 0 and 1');

export const MarketOutcome = z.object({
  index: z.number().int().min(0).max(2).describe('0-based trade side'),
  outcome: z.number().int().min(1).max(3).describe('1-indexed outcome as used in resolution and events'),
  label: z.string(),
  price: PriceString,
  outstandingShares: WeiString,
});

export const MarketControlsSchema = z.object(Object.fromEntries(CONTROL_AXES.map((a) => [a, z.string()])) as Record<(typeof CONTROL_AXES)[number], z.ZodString>);

export const MarketRecord = z.object({
  address: EvmAddress,
  chainId: ChainId,
  pricingModel: PricingModel,
  factory: EvmAddress,
  creator: EvmAddress,
  collateral: z.object({ symbol: z.string(), token: EvmAddress, decimals: z.number().int() }),
  question: z.string(),
  description: z.string().nullable(),
  category: z.string(),
  outcomeCount: z.number().int().min(2).max(3),
  outcomes: z.array(MarketOutcome),
  resolutionSource: z.string().nullable(),
  externalId: z.string().nullable(),
  questionHash: TxHash,
  state: MarketStateSchema,
  isTradeable: z.boolean(),
  controls: MarketControlsSchema,
  cancelReason: z.string().nullable(),
  closeTime: IsoTimestamp,
  resolveFrom: IsoTimestamp.describe('when creator resolution authority opened (the creation time: early resolution is legal from open time)'),
  resolveBy: IsoTimestamp.describe('close time plus the resolution window; past it the crowd and council backstop takes over'),
  createdAt: IsoTimestamp,
  liquidity: WeiString.describe('LMSR b, collateral base units'),
  subsidy: WeiString,
  bond: WeiString.describe('creation bond, PM base units'),
  fees: z.object({ protocolFeeBps: z.number().int(), creatorFeeBps: z.number().int() }),
  volume: WeiString.describe('all-time traded cost, fees excluded, collateral base units'),
  volume24h: WeiString,
  tradeCount: z.number().int().nonnegative(),
  openInterest: WeiString.describe('Σ outstanding shares × price: the mark-to-market value of every outstanding share, collateral base units'),
  creatorMarketBalance: WeiString.describe('creator fees accrued in the market, collateral base units'),
  lastTradeAt: IsoTimestamp.nullable(),
  creation: z.object({ txHash: TxHash, blockNumber: z.string(), blockHash: TxHash }),
});
export type MarketRecordT = z.output<typeof MarketRecord>;

export const ProjectionCursor = z.object({
  chainId: ChainId,
  blockNumber: z.string().regex(/^[0-9]+$/).nullable(),
  lagSeconds: z.number().int().nonnegative().nullable(),
  healthy: z.boolean(),
});

/** Where a read came from and how fresh it is (spec: the `projection` object). */
export const ProjectionSchema = z.object({
  source: z.literal('indexer'),
  fresh: z.boolean(),
  checkedAt: IsoTimestamp.nullable(),
  cursors: z.array(ProjectionCursor),
});
export type ProjectionT = z.output<typeof ProjectionSchema>;

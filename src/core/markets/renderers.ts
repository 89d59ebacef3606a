/**
 * The native renderer catalog (GET /discover/renderers): the views a client can draw for a market and
 * which discovery read feeds each one. A UI hint only: no renderer is required to trade, and an unknown
 * kind or a newer version should be skipped, not guessed at.
 */

export const RENDERER_KINDS = ['market-card', 'chart', 'depth', 'trades', 'holders', 'frame'] as const;
export type RendererKind = (typeof RENDERER_KINDS)[number];

export const PRICING_MODELS = ['automated', 'ORDERBOOK'] as const;
export type PricingModelName = (typeof PRICING_MODELS)[number];

export interface Renderer {
  /** Stable identifier; a breaking change to the view's data contract gets a new id or version. */
  id: string;
  kind: RendererKind;
  description: string;
  /** The markets the renderer can draw: it applies when every listed facet contains the market's value. */
  appliesTo: { pricingModel: readonly PricingModelName[]; outcomeCount: readonly number[] };
  /** Agent API path (relative to /api/agent/v1) whose response feeds the renderer; {address} is the market address. */
  dataSource: string;
  /** Version of the renderer's data contract (integer, bumped on a breaking change). */
  version: number;
}

const ALL_MARKETS = { pricingModel: PRICING_MODELS, outcomeCount: [2, 3] } as const;

export const RENDERERS: readonly Renderer[] = [
  {
    id: 'market-card',
    kind: 'market-card',
    description: 'Compact market summary: question, outcome labels with prices (probabilities in [0, 1]), state, close time, collateral, 24-hour volume.',
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}',
    version: 1,
  },
  {
    id: 'price-chart',
    kind: 'chart',
    description: 'Price history per outcome over a window (1H, 1D, 1W, ALL) with the latest frame appended.',
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}/chart',
    version: 1,
  },
  {
    id: 'lmsr-buy-ladder',
    kind: 'depth',
    description: 'Five-level buy ladder of an automated (LMSR) market: the average price of buying increasing share amounts per outcome (depth kind lmsr).',
    appliesTo: { pricingModel: ['automated'], outcomeCount: [2, 3] },
    dataSource: '/discover/markets/{address}/depth',
    version: 1,
  },
  {
    id: 'order-book-ladder',
    kind: 'depth',
    description: 'Five-level bid and ask ladder of a live order book (depth kind orderbook).',
    appliesTo: { pricingModel: ['ORDERBOOK'], outcomeCount: [2] },
    dataSource: '/discover/markets/{address}/depth',
    version: 1,
  },
  {
    id: 'trade-tape',
    kind: 'trades',
    description: 'Recent trades, newest first: side, outcome, shares, price and time.',
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}/trades',
    version: 1,
  },
  {
    id: 'holder-distribution',
    kind: 'holders',
    description: 'Holder distribution per outcome and the market\'s open interest.',
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}/holders',
    version: 1,
  },
  {
    id: 'forecast-card',
    kind: 'frame',
    description: "A published forecast (market.frame, kind forecast): the publisher's probability per outcome beside the market's price, the rationale, the publisher and when.",
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}/frames?kind=forecast',
    version: 1,
  },
  {
    id: 'datapoint-tile',
    kind: 'frame',
    description: 'A published datapoint (kind datapoint): label, value with unit, observation time and a link to its source; successive datapoints of one label draw as a series.',
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}/frames?kind=datapoint',
    version: 1,
  },
  {
    id: 'evidence-link',
    kind: 'frame',
    description: 'A published piece of evidence (kind evidence): a link card with title and summary, tagged supports or contradicts with the outcome label, or context.',
    appliesTo: ALL_MARKETS,
    dataSource: '/discover/markets/{address}/frames?kind=evidence',
    version: 1,
  },
];

/** The renderer that draws each frame kind (GET /market-data/discovery). */
export const FRAME_RENDERERS = { forecast: 'forecast-card', datapoint: 'datapoint-tile', evidence: 'evidence-link' } as const;

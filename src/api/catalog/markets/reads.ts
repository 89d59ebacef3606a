// Every market read of both interfaces, in the catalog's order (docs/markets.md "Reads").
import { creatorLiveMarketCount } from './creator-live-count.ts';
import { discoverMarkets } from './discover-markets.ts';
import { getMarket } from './get-market.ts';
import { getMarketChart, getMarketChartConsumer } from './market-chart.ts';
import { getMarketComments } from './market-comments.ts';
import { countMarketsConsumer } from './market-counts.ts';
import { getMarketDepth } from './market-depth.ts';
import { getMarketHolders } from './market-holders.ts';
import { listMarketsConsumer } from './market-listings.ts';
import { marketSitemap } from './market-sitemap.ts';
import { getMarketTrades } from './market-trades.ts';
import { getRelatedMarkets } from './related-markets.ts';

export const MARKET_READ_CAPABILITIES = [
  discoverMarkets,
  getMarket,
  getMarketDepth,
  getMarketChart,
  getMarketTrades,
  getMarketHolders,
  getRelatedMarkets,
  getMarketComments,
  listMarketsConsumer,
  countMarketsConsumer,
  marketSitemap,
  getMarketChartConsumer,
  creatorLiveMarketCount,
] as const;

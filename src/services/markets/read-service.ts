// The market reads bound to their database and chain, as handlers reach them (ctx.services.marketReads);
// each method is one plain function of listing.ts or market-reads.ts.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { countLiveMarkets, countMarkets, listMarkets, listSitemap, volume24hOf, type ListingFilter, type ListingRequest } from './listing.ts';
import { findMarket, marketChart, marketComments, marketDepth, marketHolders, marketTrades, relatedMarkets, type ChartWindow } from './market-reads.ts';
import type { MarketRow } from './records.ts';

export interface MarketReadService {
  list(req: ListingRequest): ReturnType<typeof listMarkets>;
  count(filter: ListingFilter, now: Date): ReturnType<typeof countMarkets>;
  sitemap(): ReturnType<typeof listSitemap>;
  liveCount(p: { chainId: number; creator: string; excludeMarket?: string }): Promise<number>;
  find(p: { address: string; chainId?: number }): Promise<MarketRow>;
  volume24h(rows: readonly MarketRow[], now: Date): Promise<Map<string, string>>;
  chart(m: MarketRow, p: { window: ChartWindow; now: Date }): ReturnType<typeof marketChart>;
  trades(m: MarketRow, p: { limit: number }): ReturnType<typeof marketTrades>;
  holders(m: MarketRow): ReturnType<typeof marketHolders>;
  related(m: MarketRow, p: { limit: number }): Promise<MarketRow[]>;
  comments(m: MarketRow, p: { limit: number; cursor?: string }): ReturnType<typeof marketComments>;
  depth(m: MarketRow, p: { tradeable: boolean }): ReturnType<typeof marketDepth>;
}

export function createMarketReadService(deps: { db: Kysely<DB>; chain: ChainService }): MarketReadService {
  const { db, chain } = deps;
  return {
    list: (req) => listMarkets(db, req),
    count: (filter, now) => countMarkets(db, filter, now),
    sitemap: () => listSitemap(db),
    liveCount: (p) => countLiveMarkets(db, p),
    find: (p) => findMarket(db, p),
    volume24h: (rows, now) => volume24hOf(db, rows, now),
    chart: (m, p) => marketChart(db, m, p),
    trades: (m, p) => marketTrades(db, m, p),
    holders: (m) => marketHolders(db, m),
    related: (m, p) => relatedMarkets(db, m, p),
    comments: (m, p) => marketComments(db, m, p),
    depth: (m, p) => marketDepth({ client: chain.client, guard: chain.guard }, m, p),
  };
}

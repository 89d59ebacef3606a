// The market reads bound to their database and chain, as handlers reach them (ctx.services.marketReads);
// each method is one plain function of listing.ts or of reads/, one file per read (order-book markets' trades and holders:
// services/orderbook/reads.ts).
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { countLiveMarkets } from './listing/count-live-markets.ts';
import { countMarkets } from './listing/count-markets.ts';
import { listMarkets, type CollateralDecimals } from './listing/list-markets.ts';
import { listSitemap } from './listing/list-sitemap.ts';
import { volume24hOf, type ListingFilter, type ListingRequest } from './listing/shared.ts';
import { PLAY_MONEY } from '../orderbook/markets.ts';
import { findMarket, findMarketByExternalId } from './reads/find-market.ts';
import { marketChart, type ChartWindow } from './reads/market-chart.ts';
import { marketComments } from './reads/market-comments.ts';
import { marketDepth } from './reads/market-depth.ts';
import { marketHolders } from './reads/market-holders.ts';
import { marketTrades } from './reads/market-trades.ts';
import { relatedMarkets } from './reads/related-markets.ts';
import type { MarketRow } from './records.ts';
import { readCreatorFunds, type CreatorFunds } from './creator-funds.ts';
import { requireAgent } from '../identity/agents.ts';
import { problem } from '../../core/error-codes.ts';
import type { Principal } from '../../core/principal.ts';
import type { MarketTradeT, OrderbookTradeT } from '../../wire/market-reads.ts';
import { orderBookHolders, orderBookTrades } from '../orderbook/reads.ts';
import { actingWallet } from '../identity/acting-wallet.ts';
import { walletPositions, type WalletPositions } from './wallet-positions.ts';

export interface MarketReadService {
  list(req: ListingRequest): ReturnType<typeof listMarkets>;
  count(filter: ListingFilter, now: Date): ReturnType<typeof countMarkets>;
  sitemap(): ReturnType<typeof listSitemap>;
  liveCount(p: { chainId: number; creator: string; excludeMarket?: string }): Promise<number>;
  find(p: { address: string; chainId?: number }): Promise<MarketRow>;
  /** The market whose creator gave it this externalId on the chain (400 INVALID_ID when two creators did). */
  findByExternalId(p: { externalId: string; chainId: number }): Promise<MarketRow>;
  volume24h(rows: readonly MarketRow[], now: Date): Promise<Map<string, string>>;
  chart(m: MarketRow, p: { window: ChartWindow; now: Date }): ReturnType<typeof marketChart>;
  trades(m: MarketRow, p: { limit: number }): Promise<(MarketTradeT | OrderbookTradeT)[]>;
  holders(m: MarketRow): ReturnType<typeof marketHolders>;
  related(m: MarketRow, p: { limit: number }): Promise<MarketRow[]>;
  comments(m: MarketRow, p: { limit: number; cursor?: string }): ReturnType<typeof marketComments>;
  depth(m: MarketRow, p: { tradeable: boolean }): ReturnType<typeof marketDepth>;
  /** Creator funds of the proven wallet (MCP elevation) or else of the caller's bound wallet. */
  creatorFunds(p: { principal: Principal; provenWallet: string | null; chainId?: number }): Promise<CreatorFunds>;
  /** The caller's bound wallet's LMSR positions, a page at a time (WALLET_NOT_BOUND without one). */
  positions(p: { principal: Principal; cursor?: string; limit: number }): Promise<WalletPositions>;
}

/** The decimals of every collateral a market may hold: the served chain's tokens and the order books' play money. */
function collateralDecimals(chain: ChainService): CollateralDecimals {
  return { ...Object.fromEntries(chain.collateral().map((c) => [c.symbol, c.decimals])), [PLAY_MONEY.symbol]: PLAY_MONEY.decimals };
}

export function createMarketReadService(deps: { db: Kysely<DB>; chain: ChainService }): MarketReadService {
  const { db, chain } = deps;
  return {
    list: (req) => listMarkets(db, req, collateralDecimals(chain)),
    count: (filter, now) => countMarkets(db, filter, now),
    sitemap: () => listSitemap(db),
    liveCount: (p) => countLiveMarkets(db, p),
    find: (p) => findMarket(db, p),
    findByExternalId: (p) => findMarketByExternalId(db, p),
    volume24h: (rows, now) => volume24hOf(db, rows, now),
    chart: (m, p) => marketChart(db, m, p),
    trades: (m, p) => (m.pricing_model === 'ORDERBOOK' ? orderBookTrades(db, m, p) : marketTrades(db, m, p)),
    holders: (m) => (m.pricing_model === 'ORDERBOOK' ? orderBookHolders(db, m) : marketHolders(db, m)),
    related: (m, p) => relatedMarkets(db, m, p),
    comments: (m, p) => marketComments(db, m, p),
    depth: (m, p) => marketDepth({ client: chain.client, guard: chain.guard }, m, p),
    async creatorFunds(p) {
      let wallet = p.provenWallet;
      if (wallet === null) {
        wallet = (await requireAgent(db, p.principal)).wallet_address;
        if (!wallet) throw problem('WALLET_NOT_BOUND', 'creator funds belong to a wallet: bind one (POST /agents/me/bind-wallet) or, over MCP, prove one');
      }
      return readCreatorFunds(db, chain.collateral(), { walletAddress: wallet, chainId: p.chainId, servedChainId: chain.chainId });
    },
    positions: async (p) =>
      walletPositions(
        { db, chainId: chain.chainId, decimalsOf: (token) => chain.collateral().find((c) => c.token.toLowerCase() === token.toLowerCase())?.decimals ?? 18 },
        { wallet: await actingWallet({ db }, p.principal, null, 'positions belong to a wallet'), cursor: p.cursor, limit: p.limit },
      ),
  };
}

// One market: its outcomes and prices, the price chart, the depth (LMSR ladder or order book) and the recent trades
// (GET /api/agent/v1/discover/markets/{address}, …/depth, …/trades; GET /api/v1/markets/{address}/chart).
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { Market, MarketDepth, MarketDetail, MarketTrades, Trade } from '../api/types.ts';
import { categoryName } from '../components/labels.ts';
import { MARKET_KINDS, useLiveEvents } from '../components/live.ts';
import { PriceChart } from '../components/price-chart.tsx';
import { Stat } from '../components/stat.tsx';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';
import { MarketMainExtras, MarketSideExtras, ResolutionActions } from './lazy-pages.tsx';
import { TradePanel } from './lazy-trade.ts';

const MARKETS = '/api/agent/v1/discover/markets';

export function MarketPage({ address }: { address: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  // Live: an event of this market reads it again; the chart, depth and trades follow its trade count and state.
  const [version, setVersion] = useState(0);
  useLiveEvents(MARKET_KINDS, { market: address.toLowerCase(), off: !/^0x[0-9a-fA-F]{40}$/.test(address) }, () => setVersion((n) => n + 1));
  const detail = useFetch((signal) => getJson<MarketDetail>(`${MARKETS}/${encodeURIComponent(address)}`, {}, signal).then((a) => a.body.market), [address, version]);
  const market = detail.data;
  useEffect(() => {
    document.title = `${market?.question ?? t('market.loading')} · ${t('app.name')}`;
  }, [market?.question, t]);

  if (!market) {
    return (
      <div class="page">
        <a href="/" class="back">
          {t('market.back')}
        </a>
        {detail.loading && <Loading label={t('market.loading')} />}
        {!!detail.error && <ErrorView error={detail.error} onRetry={detail.retry} />}
      </div>
    );
  }
  const c = market.collateral;
  return (
    <div class="page market-page">
      <a href="/" class="back">
        {t('market.back')}
      </a>
      <header class="market-head">
        <div class="card-meta">
          <span class="badge">{categoryName(t, market.category)}</span>
          <span class={`badge badge-state badge-${market.state}`}>{t(`state.${market.state}`)}</span>
        </div>
        <h1>{market.question}</h1>
        {!market.isTradeable && market.state === 'open' && <p class="notice">{t('market.notTradeable')}</p>}
      </header>
      <div class="market-layout">
        <div class="market-main">
          <PriceChart market={market} />
          <Depth market={market} />
          <RecentTrades market={market} />
          <MarketMainExtras market={market} />
        </div>
        <aside class="market-side">
          <TradePanel market={market} />
          <ResolutionActions market={market} />
          <section class="panel" aria-labelledby="outcomes-title">
            <h2 id="outcomes-title">{t('market.outcomes')}</h2>
            <ul class="outcome-list">
              {market.outcomes.map((o) => (
                <li key={o.index}>
                  <span>{o.label}</span>
                  <strong>{i18n.percent(o.price)}</strong>
                </li>
              ))}
            </ul>
            <dl class="stats">
              <Stat term={t('market.volume24h')} value={i18n.amount(market.volume24h, c.decimals, c.symbol)} />
              <Stat term={t('market.volume')} value={i18n.amount(market.volume, c.decimals, c.symbol)} />
              <Stat term={t('market.liquidity')} value={i18n.amount(market.liquidity, c.decimals, c.symbol)} />
              <Stat term={t('market.trades')} value={i18n.number(market.tradeCount)} />
              <Stat term={t('market.closes')} value={i18n.dateTime(market.closeTime)} />
              <Stat term={t('market.resolveBy')} value={i18n.dateTime(market.resolveBy)} />
            </dl>
            {market.description && <p class="description">{market.description}</p>}
            {market.resolutionSource && /^https?:\/\//.test(market.resolutionSource) && (
              <p>
                {t('market.source')}:{' '}
                <a href={market.resolutionSource} rel="noopener noreferrer nofollow" target="_blank">
                  {new URL(market.resolutionSource).host}
                </a>
              </p>
            )}
          </section>
          <MarketSideExtras market={market} />
        </aside>
      </div>
    </div>
  );
}

function Depth({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const depth = useFetch((signal) => getJson<MarketDepth>(`${MARKETS}/${market.address}/depth`, {}, signal).then((a) => a.body), [market.address, market.tradeCount, market.state]);
  const c = market.collateral;
  const d = depth.data;
  return (
    <section class="panel" aria-labelledby="depth-title">
      <h2 id="depth-title">{t('market.depth')}</h2>
      {depth.loading && !d && <Loading label={t('market.loading')} />}
      {!!depth.error && <ErrorView error={depth.error} onRetry={depth.retry} />}
      {d?.kind === 'lmsr' && (
        <>
          <p class="muted">{t('market.depth.lmsr')}</p>
          {d.basis === 'unavailable' && <p class="muted">{t('market.depth.unavailable')}</p>}
          <div class="table-scroll">
            <table data-testid="depth-table">
              <thead>
                <tr>
                  <th scope="col">{t('market.trades.outcome')}</th>
                  <th scope="col">{t('market.depth.size')}</th>
                  <th scope="col">{t('market.depth.cost')}</th>
                  <th scope="col">{t('market.depth.avgPrice')}</th>
                  <th scope="col">{t('market.depth.after')}</th>
                </tr>
              </thead>
              <tbody>
                {d.outcomes.flatMap((o) =>
                  o.levels.map((l) => (
                    <tr key={`${o.index}-${l.fractionBps}`}>
                      <th scope="row">{o.label}</th>
                      <td>{i18n.amount(l.shares, c.decimals)}</td>
                      <td>{l.quote ? i18n.amount(l.quote.amount, c.decimals, c.symbol) : '—'}</td>
                      <td>{l.quote ? i18n.percent(l.quote.averagePrice) : '—'}</td>
                      <td>{l.quote ? i18n.percent(l.quote.priceAfter) : '—'}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
      {d?.kind === 'orderbook' &&
        (d.bids.length === 0 && d.asks.length === 0 ? (
          <p class="muted">{t('market.depth.empty')}</p>
        ) : (
          <div class="book" data-testid="depth-table">
            <BookSide title={t('market.depth.bids')} levels={d.bids} market={market} />
            <BookSide title={t('market.depth.asks')} levels={d.asks} market={market} />
          </div>
        ))}
    </section>
  );
}

function BookSide({ title, levels, market }: { title: string; levels: { price: string; shares: string }[]; market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <table>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">{t('market.depth.price')}</th>
          <th scope="col">{t('market.depth.size')}</th>
        </tr>
      </thead>
      <tbody>
        {levels.map((l) => (
          <tr key={l.price}>
            <td>{i18n.percent(l.price)}</td>
            <td>{i18n.amount(l.shares, market.collateral.decimals)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RecentTrades({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const trades = useFetch((signal) => getJson<MarketTrades>(`${MARKETS}/${market.address}/trades`, {}, signal).then((a) => a.body.trades), [market.address, market.tradeCount]);
  const label = (tr: Trade) => market.outcomes[tr.outcome]?.label ?? String(tr.outcome + 1);
  return (
    <section class="panel" aria-labelledby="trades-title">
      <h2 id="trades-title">{t('market.recentTrades')}</h2>
      {trades.loading && !trades.data && <Loading label={t('market.loading')} />}
      {!!trades.error && <ErrorView error={trades.error} onRetry={trades.retry} />}
      {trades.data && trades.data.length === 0 && <Empty>{t('market.trades.empty')}</Empty>}
      {trades.data && trades.data.length > 0 && (
        <div class="table-scroll">
          <table data-testid="trades-table">
            <thead>
              <tr>
                <th scope="col">{t('market.trades.time')}</th>
                <th scope="col">{t('market.trades.trader')}</th>
                <th scope="col">{t('market.trades.side')}</th>
                <th scope="col">{t('market.trades.outcome')}</th>
                <th scope="col">{t('market.trades.shares')}</th>
                <th scope="col">{t('market.trades.price')}</th>
              </tr>
            </thead>
            <tbody>
              {trades.data.map((tr) => (
                <tr key={tr.kind === 'lmsr' ? `${tr.txHash}-${tr.logIndex}` : tr.fillId}>
                  <td>
                    <time dateTime={tr.timestamp} title={i18n.dateTime(tr.timestamp)}>
                      {i18n.relative(tr.timestamp)}
                    </time>
                  </td>
                  <td class="mono">{shortAddress(tr.kind === 'lmsr' ? tr.trader : tr.taker)}</td>
                  <td>{t(`market.side.${tr.side}`)}</td>
                  <td>{label(tr)}</td>
                  <td>{i18n.amount(tr.shares, market.collateral.decimals)}</td>
                  <td>{tr.pricesAfter[tr.outcome] ? i18n.percent(tr.pricesAfter[tr.outcome]!) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

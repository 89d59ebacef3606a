// The price chart of one market over 1H/1D/1W/ALL (GET /api/v1/markets/{address}/chart). lightweight-charts is loaded
// with the first chart, not with the app: the markets page never pays for it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import { CHART_WINDOWS, type ChartWindow, type Market, type MarketChart } from '../api/types.ts';
import { useI18n } from '../i18n/i18n.ts';
import { ErrorView, Loading } from './status.tsx';
import { useFetch } from './use-fetch.ts';

/** One line per outcome, told apart by colour and by the legend (never by colour alone). */
export const OUTCOME_COLOURS = ['#1d4ed8', '#b91c1c', '#047857'];

export function PriceChart({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [win, setWin] = useState<ChartWindow>('1W');
  const chart = useFetch(
    (signal) => getJson<MarketChart>(`/api/v1/markets/${market.address}/chart`, { chainId: market.chainId, window: win }, signal).then((a) => a.body),
    // A new trade (the market page reads it live) draws the chart again.
    [market.address, win, market.tradeCount],
  );
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const el = box.current;
    const data = chart.data;
    if (!el || !data || data.points.length === 0) return;
    let dispose: (() => void) | undefined;
    let cancelled = false;
    void import('./chart-view.ts').then(({ drawChart }) => {
      if (cancelled) return;
      dispose = drawChart(el, data, market.outcomes.map((o) => o.label), { locale: i18n.locale, colours: OUTCOME_COLOURS });
      setDrawn(true);
    });
    return () => {
      cancelled = true;
      dispose?.();
      setDrawn(false);
    };
  }, [chart.data, i18n.locale]);

  const latest = chart.data?.latest.prices ?? market.outcomes.map((o) => o.price);
  const summary = market.outcomes.map((o, i) => `${o.label} ${i18n.percent(latest[i] ?? o.price)}`).join(', ');
  return (
    <section class="panel" aria-labelledby="chart-title">
      <div class="panel-head">
        <h2 id="chart-title">{t('market.chart')}</h2>
        <div class="segmented" role="group" aria-label={t('market.chartWindow')}>
          {CHART_WINDOWS.map((w) => (
            <button key={w} type="button" aria-pressed={w === win} onClick={() => setWin(w)} title={t(`market.window.${w}`)}>
              {w}
            </button>
          ))}
        </div>
      </div>
      <ul class="legend">
        {market.outcomes.map((o, i) => (
          <li key={o.index}>
            <span class="swatch" style={{ background: OUTCOME_COLOURS[i % OUTCOME_COLOURS.length] }} aria-hidden="true" />
            {o.label}: <strong>{i18n.percent(latest[i] ?? o.price)}</strong>
          </li>
        ))}
      </ul>
      {chart.loading && !chart.data && <Loading label={t('market.loading')} />}
      {!!chart.error && <ErrorView error={chart.error} onRetry={chart.retry} />}
      {chart.data && chart.data.points.length === 0 && <p class="muted">{t('market.chartEmpty')}</p>}
      {/* The chart draws left to right in every locale (time runs that way on its axis). */}
      <div ref={box} class="chart" dir="ltr" role="img" aria-label={`${t('market.chartLabel')}: ${summary}`} data-testid="price-chart" data-drawn={drawn} hidden={!chart.data || chart.data.points.length === 0} />
      <p class="attribution">
        <a href="https://www.tradingview.com/" rel="noopener noreferrer" target="_blank">
          {t('market.chartBy')}
        </a>
      </p>
    </section>
  );
}

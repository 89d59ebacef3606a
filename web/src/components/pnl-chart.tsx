// A wallet's cumulative realized P&L, one point a UTC day (GET /api/agent/v1/profile/{address}/pnl-history). The
// chart library comes with the first chart drawn, as on the market page.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PnlHistory } from '../api/read-types.ts';
import { useI18n } from '../i18n/i18n.ts';

export function PnlChart({ history }: { history: PnlHistory }) {
  const i18n = useI18n();
  const { t } = i18n;
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el || history.points.length === 0) return;
    let dispose: (() => void) | undefined;
    let cancelled = false;
    const usd = new Intl.NumberFormat(i18n.locale, { style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 1 });
    void import('./pnl-chart-view.ts').then(({ drawPnlChart }) => {
      if (cancelled) return;
      dispose = drawPnlChart(el, history, { locale: i18n.locale, format: (v) => usd.format(v) });
      setDrawn(true);
    });
    return () => {
      cancelled = true;
      dispose?.();
      setDrawn(false);
    };
  }, [history, i18n.locale]);

  if (history.points.length === 0) return <p class="muted">{t('profile.pnlEmpty')}</p>;
  const last = history.points[history.points.length - 1]!;
  return (
    <>
      {/* Time runs left to right on the axis in every locale. */}
      <div
        ref={box}
        class="chart"
        dir="ltr"
        role="img"
        aria-label={`${t('profile.pnlChart')}: ${i18n.usdMicro(last.cumulativeRealizedPnl)}`}
        data-testid="pnl-chart"
        data-drawn={drawn}
      />
      <p class="attribution">
        <a href="https://www.tradingview.com/" rel="noopener noreferrer" target="_blank">
          {t('market.chartBy')}
        </a>
      </p>
    </>
  );
}

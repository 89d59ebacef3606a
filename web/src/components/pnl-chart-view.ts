// Draws a wallet's equity curve with lightweight-charts (its own chunk, shared with the price chart's library: see
// pnl-chart.tsx). Dollars are a float here only as a pixel position; every figure in words comes from the decimal string.
import { AreaSeries, ColorType, createChart, type UTCTimestamp } from 'lightweight-charts';
import type { PnlHistory } from '../api/read-types.ts';
import { shiftDecimal } from '../i18n/i18n.ts';

export function drawPnlChart(el: HTMLElement, data: PnlHistory, opts: { locale: string; format: (dollars: number) => string }): () => void {
  const chart = createChart(el, {
    autoSize: true,
    // As in chart-view.ts: no library logo (an inline <style> the CSP refuses); the attribution is a link under the chart.
    layout: { background: { type: ColorType.Solid, color: '#ffffff' }, textColor: '#1f2937', fontFamily: 'system-ui, sans-serif', attributionLogo: false },
    grid: { vertLines: { color: '#eef0f3' }, horzLines: { color: '#eef0f3' } },
    rightPriceScale: { borderVisible: false, scaleMargins: { top: 0.1, bottom: 0.1 } },
    timeScale: { borderVisible: false, timeVisible: false },
    localization: { locale: opts.locale, priceFormatter: opts.format },
    handleScroll: false,
    handleScale: false,
  });
  const series = chart.addSeries(AreaSeries, { lineColor: '#1d4ed8', topColor: 'rgba(29, 78, 216, 0.25)', bottomColor: 'rgba(29, 78, 216, 0.02)', lineWidth: 2, priceLineVisible: false });
  series.setData(
    data.points.map((p) => ({ time: (Date.parse(`${p.date}T00:00:00Z`) / 1000) as UTCTimestamp, value: Number(shiftDecimal(p.cumulativeRealizedPnl, 6)) })),
  );
  chart.timeScale().fitContent();
  return () => chart.remove();
}

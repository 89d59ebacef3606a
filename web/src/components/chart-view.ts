// Draws a market's price series with lightweight-charts (its own chunk: see price-chart.tsx). Prices are shown in
// percent; a float is fine here, it is only a pixel position.
import { ColorType, createChart, LineSeries, type UTCTimestamp } from 'lightweight-charts';
import type { MarketChart } from '../api/types.ts';

export function drawChart(el: HTMLElement, data: MarketChart, labels: string[], opts: { locale: string; colours: string[] }): () => void {
  const chart = createChart(el, {
    autoSize: true,
    // The library's own logo comes with an inline <style> (refused by the CSP) and a link inside the chart; the
    // attribution its licence asks for is a link under the chart instead (price-chart.tsx).
    layout: { background: { type: ColorType.Solid, color: '#ffffff' }, textColor: '#1f2937', fontFamily: 'system-ui, sans-serif', attributionLogo: false },
    grid: { vertLines: { color: '#eef0f3' }, horzLines: { color: '#eef0f3' } },
    rightPriceScale: { borderVisible: false, scaleMargins: { top: 0.1, bottom: 0.1 } },
    timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false },
    localization: { locale: opts.locale, priceFormatter: (p: number) => `${p.toFixed(0)}%` },
    handleScroll: false,
    handleScale: false,
  });
  labels.forEach((label, i) => {
    const series = chart.addSeries(LineSeries, { color: opts.colours[i % opts.colours.length], lineWidth: 2, title: label, priceLineVisible: false });
    series.setData(seriesOf(data, i));
  });
  chart.timeScale().fitContent();
  return () => chart.remove();
}

/** One outcome's points in percent, one per second (the library needs strictly rising times; the last one wins), ending at the latest price. */
function seriesOf(data: MarketChart, outcome: number): { time: UTCTimestamp; value: number }[] {
  const bySecond = new Map<number, number>();
  for (const p of [...data.points, data.latest]) {
    const price = p.prices[outcome];
    if (price !== undefined) bySecond.set(Math.floor(new Date(p.t).getTime() / 1000), Number(price) * 100);
  }
  return [...bySecond.entries()].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time: time as UTCTimestamp, value }));
}

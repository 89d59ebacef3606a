/**
 * Chosen theses as the wire's DiscoveryThesesResponse in one locale (docs/theses.md): each reason's sentence from the
 * locale's ICU MessageFormat catalog with Intl numbers, percents and dates, and the values it cites, raw (prices as
 * exact decimals, amounts in base units). Pure.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { getAddress } from 'viem';
import { WAD, wadToDecimal } from '../markets/price.ts';
import { wholeUnits, type ChosenThesis, type Reason, type ReasonKind } from './choose.ts';
import { intlTag, textDirection, type TextDirection, type ThesisLocale } from './locales.ts';
import { THESIS_CATALOGS, type ThesisMessageKey } from './messages/index.ts';

/** Named ICU formats the catalogs use: `{closeAt, date, close}` is day, month and time in UTC, zone named. */
export const THESIS_FORMATS = {
  date: { close: { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' } },
} as const;

export interface ReasonValuesByKind {
  price_move: { outcome: number; outcomeLabel: string; from: string; to: string; change: string; windowHours: number };
  volume: { volume: string; trades: number; windowHours: number; collateralSymbol: string; collateralDecimals: number };
  closing_soon: { closeTime: string; secondsLeft: number };
  disagreement: { outcome: number; outcomeLabel: string; price: string; relatedMarket: string; relatedQuestion: string; relatedPrice: string; gap: string };
  forecast: { frameId: string; publishedAt: string; outcome: number; outcomeLabel: string; forecast: string; price: string; gap: string };
  new_market: { createdAt: string; secondsOpen: number; tradeCount: number };
}

export type ThesisReasonView = { [K in ReasonKind]: { kind: K; strength: number; text: string; values: ReasonValuesByKind[K] } }[ReasonKind];

export interface ThesisView {
  rank: number;
  market: string;
  chainId: number;
  question: string;
  category: string;
  categoryLabel: string;
  pricingModel: 'automated' | 'ORDERBOOK';
  collateral: { symbol: string; decimals: number };
  outcomes: { index: number; label: string; price: string }[];
  closeTime: string;
  volume24h: string;
  score: number;
  kinds: ReasonKind[];
  text: string;
  reasons: ThesisReasonView[];
}

export interface DiscoveryTheses {
  locale: ThesisLocale;
  dir: TextDirection;
  chainId: number;
  generatedAt: string;
  theses: ThesisView[];
}

const formatters = new Map<string, IntlMessageFormat>();

/** The compiled message `key` of `locale` (compiled once per process). */
export function messageFormat(locale: ThesisLocale, key: ThesisMessageKey): IntlMessageFormat {
  const id = `${locale}\u0000${key}`;
  let f = formatters.get(id);
  if (!f) {
    f = new IntlMessageFormat(THESIS_CATALOGS[locale][key], intlTag(locale), THESIS_FORMATS);
    formatters.set(id, f);
  }
  return f;
}

type Args = Record<string, string | number | Date>;

/** `key` of `locale` formatted with `args`. */
export function formatMessage(locale: ThesisLocale, key: ThesisMessageKey, args: Args = {}): string {
  const out = messageFormat(locale, key).format(args);
  if (typeof out !== 'string') throw new TypeError(`message ${key} of ${locale} did not format to text`);
  return out;
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);
/** A 1e18-scaled price as a fraction for `::percent` (display only). */
const fraction = (wad: bigint): number => Number(wad) / Number(WAD);
/** A 1e18-scaled gap in percentage points, to one decimal (display only). */
const points = (wad: bigint): number => Math.round(Number(abs(wad)) / 1e15) / 10;
const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Writes one locale's text: labels the creator wrote are inserted isolated (FSI … PDI) in a right-to-left locale. */
class Writer {
  private readonly rtl: boolean;
  constructor(readonly locale: ThesisLocale) {
    this.rtl = textDirection(locale) === 'rtl';
  }

  insert(text: string): string {
    return this.rtl ? `\u2068${text}\u2069` : text;
  }

  /** An outcome label: the locale's Yes and No for the usual binary labels, the creator's text otherwise. */
  outcome(label: string): string {
    const usual = label.trim().toLowerCase();
    if (usual === 'yes') return formatMessage(this.locale, 'outcome.yes');
    if (usual === 'no') return formatMessage(this.locale, 'outcome.no');
    return this.insert(label);
  }

  /** The locale's name of a MarketCategory; a category outside the enum keeps its own text (isolated in a sentence). */
  category(category: string, inSentence = false): string {
    const key = `category.${category}`;
    if (Object.hasOwn(THESIS_CATALOGS[this.locale], key)) return formatMessage(this.locale, key as ThesisMessageKey);
    return inSentence ? this.insert(category) : category;
  }

  reason(r: Reason, t: ChosenThesis['market']): string {
    const label = (i: number) => this.outcome(t.outcomes[i] ?? `#${i + 1}`);
    switch (r.kind) {
      case 'price_move':
        return formatMessage(this.locale, 'reason.price_move', {
          outcome: label(r.outcome),
          direction: r.to > r.from ? 'up' : 'down',
          points: points(r.to - r.from),
          hours: r.windowHours,
          from: fraction(r.from),
          to: fraction(r.to),
        });
      case 'volume':
        return formatMessage(this.locale, 'reason.volume', {
          volume: wholeUnits(r.volume, t.collateral.decimals),
          symbol: this.insert(t.collateral.symbol),
          trades: r.trades,
          hours: r.windowHours,
        });
      case 'closing_soon':
        return formatMessage(this.locale, 'reason.closing_soon', { hours: Math.floor(r.secondsLeft / 3600), closeAt: r.closeTime });
      case 'disagreement':
        return formatMessage(this.locale, 'reason.disagreement', {
          outcome: label(r.outcome),
          price: fraction(r.price),
          relatedPrice: fraction(r.related.price),
          points: points(r.related.price - r.price),
          category: this.category(t.category, true),
        });
      case 'forecast':
        return formatMessage(this.locale, 'reason.forecast', {
          outcome: label(r.outcome),
          forecast: fraction(r.forecast),
          price: fraction(r.price),
          points: points(r.forecast - r.price),
          direction: r.forecast > r.price ? 'above' : 'below',
        });
      case 'new_market':
        return formatMessage(this.locale, 'reason.new_market', { hours: Math.floor(r.secondsOpen / 3600), trades: r.trades });
    }
  }
}

/** The raw values a reason cites: prices as exact decimals, amounts in base units, times ISO-8601. */
export function reasonValues(r: Reason, m: ChosenThesis['market']): ThesisReasonView['values'] {
  const label = (i: number) => m.outcomes[i] ?? `Outcome ${i + 1}`;
  switch (r.kind) {
    case 'price_move':
      return { outcome: r.outcome, outcomeLabel: label(r.outcome), from: wadToDecimal(r.from), to: wadToDecimal(r.to), change: wadToDecimal(r.to - r.from), windowHours: r.windowHours };
    case 'volume':
      return { volume: r.volume.toString(), trades: r.trades, windowHours: r.windowHours, collateralSymbol: m.collateral.symbol, collateralDecimals: m.collateral.decimals };
    case 'closing_soon':
      return { closeTime: r.closeTime.toISOString(), secondsLeft: r.secondsLeft };
    case 'disagreement':
      return {
        outcome: r.outcome,
        outcomeLabel: label(r.outcome),
        price: wadToDecimal(r.price),
        relatedMarket: getAddress(r.related.address),
        relatedQuestion: r.related.question,
        relatedPrice: wadToDecimal(r.related.price),
        gap: wadToDecimal(abs(r.related.price - r.price)),
      };
    case 'forecast':
      return {
        frameId: r.frameId,
        publishedAt: r.publishedAt.toISOString(),
        outcome: r.outcome,
        outcomeLabel: label(r.outcome),
        forecast: wadToDecimal(r.forecast),
        price: wadToDecimal(r.price),
        gap: wadToDecimal(r.forecast - r.price),
      };
    case 'new_market':
      return { createdAt: r.createdAt.toISOString(), secondsOpen: r.secondsOpen, tradeCount: r.trades };
  }
}

/** The response body of GET /api/v1/discovery/theses for `chosen` (best first) in `locale`. */
export function presentTheses(chosen: readonly ChosenThesis[], p: { locale: ThesisLocale; chainId: number; now: Date }): DiscoveryTheses {
  const w = new Writer(p.locale);
  return {
    locale: p.locale,
    dir: textDirection(p.locale),
    chainId: p.chainId,
    generatedAt: p.now.toISOString(),
    theses: chosen.map((t, i) => {
      const m = t.market;
      const reasons = t.reasons.map((r) => ({ kind: r.kind, strength: round4(r.strength), text: w.reason(r, m), values: reasonValues(r, m) }) as ThesisReasonView);
      const [first, second] = reasons;
      return {
        rank: i + 1,
        market: getAddress(m.address),
        chainId: m.chainId,
        question: m.question,
        category: m.category,
        categoryLabel: w.category(m.category),
        pricingModel: m.pricingModel,
        collateral: { symbol: m.collateral.symbol, decimals: m.collateral.decimals },
        outcomes: m.outcomes.map((label, index) => ({ index, label, price: wadToDecimal(m.prices[index] ?? 0n) })),
        closeTime: m.closeTime.toISOString(),
        volume24h: m.volumeWindow.toString(),
        score: round4(t.score),
        kinds: reasons.map((r) => r.kind),
        text: second === undefined ? first!.text : formatMessage(p.locale, 'thesis.join', { first: first!.text, second: second.text }),
        reasons,
      };
    }),
  };
}

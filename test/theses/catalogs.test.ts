// The thesis message catalogs (src/core/theses/messages/): every locale has every key, each message parses with
// intl-messageformat and takes exactly the reference's ICU arguments (names, kinds, select branches), plural branches
// are the locale's own categories; a scenario with every reason kind renders in all 18 locales with each locale's
// numbers (de-DE decimal comma, es-MX vs es-AR grouping, Arabic-Indic digits), and ar-SA is right to left.
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { DiscoveryThesesResponse } from '../../src/api/catalog/discovery/theses.ts';
import { WAD } from '../../src/core/markets/price.ts';
import { chooseTheses, HOUR_MS, REASON_KINDS, type MarketFacts, type RelatedMarket } from '../../src/core/theses/choose.ts';
import { intlTag, THESIS_LOCALES, type ThesisLocale } from '../../src/core/theses/locales.ts';
import { enUS } from '../../src/core/theses/messages/en-US.ts';
import { THESIS_CATALOGS, type ThesisMessageKey } from '../../src/core/theses/messages/index.ts';
import { presentTheses, THESIS_FORMATS, type ThesisView } from '../../src/core/theses/present.ts';

type Ast = ReturnType<IntlMessageFormat['getAst']>;
type Element = Ast[number];
// Element types of @formatjs/icu-messageformat-parser.
const T = { literal: 0, argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, pound: 7, tag: 8 } as const;

interface Signature {
  /** Argument name → its kinds: text, number (number or plural), date, select(branches). */
  args: Map<string, Set<string>>;
  plurals: { name: string; branches: string[] }[];
}

function signatureOf(ast: Ast, sig: Signature = { args: new Map(), plurals: [] }): Signature {
  const note = (name: string, kind: string) => sig.args.set(name, (sig.args.get(name) ?? new Set()).add(kind));
  for (const el of ast as Element[]) {
    const e = el as Element & { value?: string; options?: Record<string, { value: Ast }> };
    switch (e.type as number) {
      case T.argument:
        note(e.value!, 'text');
        break;
      case T.number:
        note(e.value!, 'number');
        break;
      case T.date:
      case T.time:
        note(e.value!, 'date');
        break;
      case T.select:
        note(e.value!, `select(${Object.keys(e.options!).sort().join(',')})`);
        for (const o of Object.values(e.options!)) signatureOf(o.value, sig);
        break;
      case T.plural:
        note(e.value!, 'number');
        sig.plurals.push({ name: e.value!, branches: Object.keys(e.options!) });
        for (const o of Object.values(e.options!)) signatureOf(o.value, sig);
        break;
      case T.tag:
        throw new Error('catalogs use no rich-text tags');
    }
  }
  return sig;
}

const parse = (locale: ThesisLocale, key: ThesisMessageKey) => new IntlMessageFormat(THESIS_CATALOGS[locale][key], intlTag(locale), THESIS_FORMATS).getAst();
const plain = (sig: Signature) => Object.fromEntries([...sig.args].map(([name, kinds]) => [name, [...kinds].sort()]));
const KEYS = Object.keys(enUS) as ThesisMessageKey[];

describe('thesis message catalogs', () => {
  it('cover the 18 locales of DiscoveryThesisLocale, each with exactly the reference keys', () => {
    expect(Object.keys(THESIS_CATALOGS).sort()).toEqual([...THESIS_LOCALES].sort());
    expect(THESIS_LOCALES).toHaveLength(18);
    for (const locale of THESIS_LOCALES) expect(Object.keys(THESIS_CATALOGS[locale]).sort(), locale).toEqual([...KEYS].sort());
  });

  it.each(THESIS_LOCALES)('%s: every message parses and takes the reference arguments, plurals by the locale\'s own categories', (locale) => {
    const categories = new Set(new Intl.PluralRules(intlTag(locale)).resolvedOptions().pluralCategories as string[]);
    for (const key of KEYS) {
      const sig = signatureOf(parse(locale, key));
      expect(plain(sig), `${locale} ${key}`).toEqual(plain(signatureOf(parse('en-US', key))));
      for (const p of sig.plurals) {
        for (const branch of p.branches) expect(branch.startsWith('=') || categories.has(branch), `${locale} ${key}: plural ${p.name} branch ${branch}`).toBe(true);
        // Arabic has six forms: a plural that leaves one out would say a wrong form, not fall back to a right one.
        if (locale === 'ar-SA') {
          for (const c of categories) expect(p.branches.includes(c) || (c === 'zero' && p.branches.includes('=0')), `${key}: plural ${p.name} lacks ${c}`).toBe(true);
        }
      }
    }
  });

  it('are written for their language: no message other than the separator reads as the English one', () => {
    for (const locale of THESIS_LOCALES.filter((l) => l !== 'en-US')) {
      const same = KEYS.filter((k) => k !== 'thesis.join' && THESIS_CATALOGS[locale][k] === enUS[k]);
      // A few labels are the same word in some languages (Local, Crypto, Tech, Finance, Sport, No).
      expect(same.filter((k) => !k.startsWith('category.') && !k.startsWith('outcome.')), locale).toEqual([]);
    }
  });
});

const now = new Date('2026-06-29T12:00:00Z');
const pct = (n: number): bigint => (BigInt(Math.round(n * 10)) * WAD) / 1000n;

/** One market with every reason: moved 14.6 points, 1,234.5 USDC over 12 trades, closing in 5 h, far from a related market, forecast, new. */
const busy: MarketFacts = {
  chainId: 8453,
  address: `0x${'a1'.repeat(20)}`,
  question: 'Will BTC close above 100k?',
  category: 'CRYPTO',
  pricingModel: 'automated',
  outcomes: ['Yes', 'No'],
  prices: [pct(54.8), pct(45.2)],
  pricesWindowAgo: [pct(40.2), pct(59.8)],
  volumeWindow: 1_234_500_000n,
  tradesWindow: 12,
  tradeCount: 12,
  collateral: { symbol: 'USDC', decimals: 6 },
  closeTime: new Date(now.getTime() + 5 * HOUR_MS),
  createdAt: new Date(now.getTime() - 3 * HOUR_MS),
  forecast: { id: 'frm_7', publishedAt: new Date(now.getTime() - HOUR_MS), probabilities: [pct(80), pct(20)] },
};
/** A ternary market of a category outside the enum, whose labels the creator wrote: it falls in price. */
const ternary: MarketFacts = {
  ...busy,
  address: `0x${'b2'.repeat(20)}`,
  category: 'WEATHER',
  outcomes: ['Sunny', 'Rain', 'Snow'],
  prices: [pct(20), pct(50), pct(30)],
  pricesWindowAgo: [pct(40), pct(40), pct(20)],
  volumeWindow: 0n,
  tradesWindow: 0,
  forecast: null,
  closeTime: new Date(now.getTime() + 20 * 24 * HOUR_MS),
  createdAt: new Date(now.getTime() - 5 * 24 * HOUR_MS),
};
const related: RelatedMarket[] = [{ address: `0x${'c3'.repeat(20)}`, question: 'Will ETH flip BTC?', category: 'CRYPTO', price: pct(10) }];
const chosen = chooseTheses([busy, ternary], related, now);
const render = (locale: ThesisLocale) => presentTheses(chosen, { locale, chainId: 8453, now });
const reasonText = (t: ThesisView, kind: string) => t.reasons.find((r) => r.kind === kind)!.text;

describe('theses rendered in every locale', () => {
  it('the scenario has every reason kind', () => {
    expect(new Set(chosen.flatMap((t) => t.reasons.map((r) => r.kind)))).toEqual(new Set(REASON_KINDS));
  });

  it.each(THESIS_LOCALES)('%s: every reason is a finished sentence, and the body is a DiscoveryThesesResponse', (locale) => {
    const body = render(locale);
    expect(DiscoveryThesesResponse.parse(body)).toEqual(body);
    expect(body).toMatchObject({ locale, dir: locale === 'ar-SA' ? 'rtl' : 'ltr', chainId: 8453, generatedAt: now.toISOString() });
    expect(body.theses.map((t) => t.market.toLowerCase())).toEqual([busy.address, ternary.address]);
    for (const t of body.theses) {
      for (const r of t.reasons) {
        expect(r.text.length, `${locale} ${r.kind}`).toBeGreaterThan(10);
        expect(r.text, `${locale} ${r.kind}`).not.toMatch(/[{}]|undefined|NaN|Infinity/);
      }
      expect(t.text.startsWith(t.reasons[0]!.text)).toBe(true);
      if (t.reasons.length > 1) expect(t.text).toContain(t.reasons[1]!.text);
      else expect(t.text).toBe(t.reasons[0]!.text);
    }
    if (locale !== 'en-US') {
      const english = render('en-US');
      body.theses.forEach((t, i) => t.reasons.forEach((r, j) => expect(r.text, `${locale} ${r.kind}`).not.toBe(english.theses[i]!.reasons[j]!.text)));
    }
  });

  it('cites the same raw values in every locale', () => {
    const values = (locale: ThesisLocale) => render(locale).theses.map((t) => ({ ...t, text: '', categoryLabel: '', reasons: t.reasons.map((r) => ({ ...r, text: '' })) }));
    for (const locale of THESIS_LOCALES) expect(values(locale), locale).toEqual(values('en-US'));
    const move = render('en-US').theses[0]!.reasons.find((r) => r.kind === 'price_move')!;
    expect(move.values).toEqual({ outcome: 0, outcomeLabel: 'Yes', from: '0.402', to: '0.548', change: '0.146', windowHours: 24 });
  });

  it('formats numbers, percents and dates the way each locale writes them', () => {
    const t = (locale: ThesisLocale, kind: string, i = 0) => reasonText(render(locale).theses[i]!, kind);
    expect(t('en-US', 'price_move')).toBe('“Yes” rose 14.6 points in the last 24 hours, from 40.2% to 54.8%.');
    expect(t('de-DE', 'price_move')).toBe('„Ja“ ist in den letzten 24 Stunden um 14,6 Prozentpunkte gestiegen, von 40,2\u00a0% auf 54,8\u00a0%.');
    expect(t('de-DE', 'volume')).toContain('1.234,5 USDC');
    expect(t('fr-FR', 'volume')).toContain('1\u202f234,5 USDC');
    expect(t('es-MX', 'volume')).toContain('1,234.5 USDC');
    expect(t('es-AR', 'volume')).toContain('1.234,5 USDC');
    expect(t('tr-TR', 'price_move')).toContain('%54,8');
    expect(t('en-US', 'closing_soon')).toBe('Closes in 5 hours, on Jun 29, 5:00 PM UTC.');
    expect(t('de-DE', 'closing_soon')).toBe('Schließt in 5 Stunden, am 29. Juni, 17:00 UTC.');
    expect(t('ja-JP', 'closing_soon')).toBe('あと5時間で締め切られます（6月29日 17:00 UTC）。');
    expect(t('ko-KR', 'price_move')).toContain('14.6%p');
    expect(t('th-TH', 'price_move')).toContain('14.6 จุด');
    expect(t('en-US', 'new_market')).toBe('New market, opened 3 hours ago, with 12 trades so far.');
  });

  it('writes ar-SA right to left: Arabic words, Arabic-Indic digits, the creator\'s labels isolated', () => {
    const body = render('ar-SA');
    expect(body.dir).toBe('rtl');
    const [first, second] = body.theses;
    for (const r of first!.reasons) expect(r.text).toMatch(/[\u0621-\u064A]{3}/);
    expect(reasonText(first!, 'price_move')).toContain('١٤٫٦');
    expect(reasonText(first!, 'price_move')).toContain('«نعم»');
    expect(reasonText(first!, 'volume')).toContain('١٬٢٣٤٫٥ \u2068USDC\u2069');
    expect(reasonText(first!, 'volume')).toContain('١٢ صفقة');
    expect(reasonText(first!, 'closing_soon')).toContain('خلال ٥ ساعات');
    expect(first!.categoryLabel).toBe('العملات المشفرة');
    // A label the creator wrote in Latin letters keeps its own direction inside the Arabic sentence.
    expect(reasonText(second!, 'price_move')).toContain('«\u2068Sunny\u2069»');
    expect(second!.categoryLabel).toBe('WEATHER');
  });
});

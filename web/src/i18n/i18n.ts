// The current locale as the pages see it: words (t), numbers, money and dates formatted in it, and its direction.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { enUS, type MessageKey, type Messages } from './messages/en-US.ts';
import type { LocaleInfo } from './locales.ts';

export interface I18n {
  locale: string;
  dir: 'ltr' | 'rtl';
  t: (key: MessageKey, vars?: Record<string, string | number>) => string;
  /** "0.54" → "54%". */
  percent: (price: string) => string;
  /** Base units of a token with `decimals` → "1,234.56 USDC". */
  amount: (baseUnits: string, decimals: number, symbol?: string) => string;
  /** USD micro-dollars → "$1,234.56". */
  usdMicro: (micro: string) => string;
  number: (value: string | number) => string;
  dateTime: (iso: string) => string;
  relative: (iso: string, now?: number) => string;
  /** Words for an error the user can act on, from its problem code. */
  error: (err: unknown) => string;
}

export function makeI18n(info: LocaleInfo, messages: Messages): I18n {
  const locale = info.code;
  const pct = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
  const num = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const usd = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const rel = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const t: I18n['t'] = (key, vars) => {
    const text = messages[key] ?? enUS[key];
    return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
  };
  // Intl formats exact decimal strings: money is never turned into a float on its way to the screen.
  const decimal = (v: string) => v as Intl.StringNumericLiteral;
  return {
    locale,
    dir: info.dir,
    t,
    percent: (price) => pct.format(decimal(price)),
    amount: (baseUnits, decimals, symbol) => `${num.format(decimal(shiftDecimal(baseUnits, decimals)))}${symbol ? ` ${symbol}` : ''}`,
    usdMicro: (micro) => usd.format(decimal(shiftDecimal(micro, 6))),
    number: (value) => num.format(typeof value === 'string' ? decimal(value) : value),
    dateTime: (iso) => date.format(new Date(iso)),
    relative: (iso, now = Date.now()) => relativeTime(rel, new Date(iso).getTime() - now),
    error: (err) => {
      const code = err instanceof ApiError ? err.code : 'INTERNAL_ERROR';
      const key = `error.${code}` as MessageKey;
      return key in enUS ? t(key) : t('error.generic', { code });
    },
  };
}

/** "1234500", 6 → "1.2345"; keeps the sign. */
export function shiftDecimal(baseUnits: string, decimals: number): string {
  const negative = baseUnits.startsWith('-');
  const digits = (negative ? baseUnits.slice(1) : baseUnits).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

function relativeTime(rel: Intl.RelativeTimeFormat, ms: number): string {
  const abs = Math.abs(ms);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  for (const [unit, size] of units) if (abs >= size) return rel.format(Math.round(ms / size), unit);
  return rel.format(Math.round(ms / 1000), 'second');
}

export const I18nContext = createContext<I18n | null>(null);

export function useI18n(): I18n {
  const i18n = useContext(I18nContext);
  if (!i18n) throw new Error('useI18n outside I18nContext');
  return i18n;
}

// The locales the app speaks: the locale codes of the discovery theses (GET /api/v1/discovery/theses), each with its
// writing direction and its dictionary. en-US ships in the first load; every other dictionary is its own small chunk,
// fetched when chosen. Adding a locale: a messages/<code>.ts typed `Messages` and one line here.
import { enUS, type Messages } from './messages/en-US.ts';

export interface LocaleInfo {
  code: string;
  /** The language's own name, shown in the switcher. */
  name: string;
  dir: 'ltr' | 'rtl';
  load: () => Promise<Messages>;
}

export const LOCALES: readonly LocaleInfo[] = [
  { code: 'en-US', name: 'English', dir: 'ltr', load: async () => enUS },
  { code: 'ar-SA', name: 'العربية', dir: 'rtl', load: async () => (await import('./messages/ar-SA.ts')).default },
];

export const DEFAULT_LOCALE = 'en-US';

/** The saved choice, else the browser's first language we speak (by exact code, then by language), else en-US. */
export function initialLocale(saved: string | null, preferred: readonly string[]): LocaleInfo {
  const byCode = (code: string | null | undefined) => LOCALES.find((l) => l.code.toLowerCase() === code?.toLowerCase());
  const fromSaved = byCode(saved);
  if (fromSaved) return fromSaved;
  for (const p of preferred) {
    const exact = byCode(p) ?? LOCALES.find((l) => l.code.split('-')[0] === p.split('-')[0]?.toLowerCase());
    if (exact) return exact;
  }
  return LOCALES[0]!;
}

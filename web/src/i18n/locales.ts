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
  { code: 'es-ES', name: 'Español (España)', dir: 'ltr', load: async () => (await import('./messages/es-ES.ts')).default },
  { code: 'es-AR', name: 'Español (Argentina)', dir: 'ltr', load: async () => (await import('./messages/es-AR.ts')).default },
  { code: 'es-CO', name: 'Español (Colombia)', dir: 'ltr', load: async () => (await import('./messages/es-CO.ts')).default },
  { code: 'es-MX', name: 'Español (México)', dir: 'ltr', load: async () => (await import('./messages/es-MX.ts')).default },
  { code: 'ms-MY', name: 'Bahasa Melayu', dir: 'ltr', load: async () => (await import('./messages/ms-MY.ts')).default },
  { code: 'pt-BR', name: 'Português (Brasil)', dir: 'ltr', load: async () => (await import('./messages/pt-BR.ts')).default },
  { code: 'pt-PT', name: 'Português (Portugal)', dir: 'ltr', load: async () => (await import('./messages/pt-PT.ts')).default },
  { code: 'ja-JP', name: '日本語', dir: 'ltr', load: async () => (await import('./messages/ja-JP.ts')).default },
  { code: 'th-TH', name: 'ไทย', dir: 'ltr', load: async () => (await import('./messages/th-TH.ts')).default },
  { code: 'id-ID', name: 'Bahasa Indonesia', dir: 'ltr', load: async () => (await import('./messages/id-ID.ts')).default },
  { code: 'fil-PH', name: 'Filipino', dir: 'ltr', load: async () => (await import('./messages/fil-PH.ts')).default },
  { code: 'fr-FR', name: 'Français', dir: 'ltr', load: async () => (await import('./messages/fr-FR.ts')).default },
  { code: 'de-DE', name: 'Deutsch', dir: 'ltr', load: async () => (await import('./messages/de-DE.ts')).default },
  { code: 'it-IT', name: 'Italiano', dir: 'ltr', load: async () => (await import('./messages/it-IT.ts')).default },
  { code: 'ar-SA', name: 'العربية', dir: 'rtl', load: async () => (await import('./messages/ar-SA.ts')).default },
  { code: 'tr-TR', name: 'Türkçe', dir: 'ltr', load: async () => (await import('./messages/tr-TR.ts')).default },
  { code: 'ko-KR', name: '한국어', dir: 'ltr', load: async () => (await import('./messages/ko-KR.ts')).default },
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

// The locales discovery theses are written in (the spec's DiscoveryThesisLocale), their text direction, and the tag
// handed to Intl for numbers and dates. Pure.

export const THESIS_LOCALES = [
  'en-US',
  'es-ES',
  'es-AR',
  'es-CO',
  'es-MX',
  'ms-MY',
  'pt-BR',
  'pt-PT',
  'ja-JP',
  'th-TH',
  'id-ID',
  'fil-PH',
  'fr-FR',
  'de-DE',
  'it-IT',
  'ar-SA',
  'tr-TR',
  'ko-KR',
] as const;
export type ThesisLocale = (typeof THESIS_LOCALES)[number];

export const DEFAULT_THESIS_LOCALE: ThesisLocale = 'en-US';

export type TextDirection = 'ltr' | 'rtl';

/** Arabic is written right to left; every other locale of the list left to right. */
export const textDirection = (locale: ThesisLocale): TextDirection => (locale === 'ar-SA' ? 'rtl' : 'ltr');

/**
 * The BCP 47 tag Intl formats a locale's numbers and dates with: the locale itself, CLDR's defaults (ar-SA keeps
 * Arabic-Indic digits, th-TH Latin digits), except that ar-SA pins the Gregorian calendar, which market close times are
 * stated in (recent CLDR already defaults to it; older ICU builds default to Umm al-Qura).
 */
export const intlTag = (locale: ThesisLocale): string => (locale === 'ar-SA' ? 'ar-SA-u-ca-gregory' : locale);

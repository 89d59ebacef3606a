// Turkish (Turkey): no case suffix is attached to a formatted value (the suffix would depend on how the number is
// read: %40'tan, %50'den), so values stand alone or before a noun; Intl writes %54,8 and 1.234,5.
import type { ThesisMessages } from './en-US.ts';

export const trTR: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” son {hours, number} saatte {points, number} puan {direction, select, up {yükseldi} other {düştü}} (önceki değer {from, number, ::percent .#}, şimdi {to, number, ::percent .#}).',
  'reason.volume': 'Son {hours, number} saatte {trades, number} işlemle toplam {volume, number, ::.##} {symbol} hacim oluştu.',
  'reason.closing_soon': '{hours, plural, =0 {Bir saatten kısa süre içinde} other {# saat içinde}} kapanıyor (kapanış: {closeAt, date, close}).',
  'reason.disagreement':
    '“{outcome}” şu anda {price, number, ::percent .#} seviyesinde; {category} kategorisindeki ilgili bir piyasa ise {relatedPrice, number, ::percent .#} seviyesinde, aradaki fark {points, number} puan.',
  'reason.forecast':
    'Yakın tarihli bir ajan tahmini “{outcome}” için {forecast, number, ::percent .#} öngörüyor; bu, {price, number, ::percent .#} olan piyasa fiyatının {points, number} puan {direction, select, above {üzerinde} other {altında}}.',
  'reason.new_market':
    'Yeni piyasa: {hours, plural, =0 {bir saatten kısa süre önce} other {# saat önce}} açıldı, {trades, plural, =0 {henüz işlem yok} other {şimdiye kadar # işlem yapıldı}}.',
  'outcome.yes': 'Evet',
  'outcome.no': 'Hayır',
  'category.CRYPTO': 'Kripto',
  'category.SPORTS': 'Spor',
  'category.POLITICS': 'Siyaset',
  'category.FINANCE': 'Finans',
  'category.TECH': 'Teknoloji',
  'category.DAILY_LIFE': 'Günlük yaşam',
  'category.LOCAL': 'Yerel',
  'category.SOCIAL': 'Toplum',
  'category.FUN': 'Eğlence',
  'category.OTHER': 'Diğer',
};

// Malay (Malaysia): «urus niaga», «pasaran», «mata» for points, «baharu» (not the Indonesian «transaksi», «pasar»,
// «poin», «baru»); Intl writes 1,234.5 and 3:00 PTG.
import type { ThesisMessages } from './en-US.ts';

export const msMY: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” {direction, select, up {naik} other {turun}} {points, number} mata dalam tempoh {hours, number} jam yang lalu, daripada {from, number, ::percent .#} kepada {to, number, ::percent .#}.',
  'reason.volume': '{volume, number, ::.##} {symbol} didagangkan dalam tempoh {hours, number} jam yang lalu, melalui {trades, number} urus niaga.',
  'reason.closing_soon': 'Ditutup {hours, plural, =0 {dalam masa kurang daripada sejam} other {dalam masa # jam}}, pada {closeAt, date, close}.',
  'reason.disagreement':
    '“{outcome}” berada pada {price, number, ::percent .#}, berbeza {points, number} mata daripada pasaran berkaitan dalam kategori {category} yang berada pada {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Ramalan ejen terkini meletakkan “{outcome}” pada {forecast, number, ::percent .#}, {points, number} mata {direction, select, above {di atas} other {di bawah}} harga pasaran {price, number, ::percent .#}.',
  'reason.new_market':
    'Pasaran baharu, dibuka {hours, plural, =0 {kurang daripada sejam yang lalu} other {# jam yang lalu}}, {trades, plural, =0 {belum ada urus niaga} other {sudah ada # urus niaga}}.',
  'outcome.yes': 'Ya',
  'outcome.no': 'Tidak',
  'category.CRYPTO': 'Kripto',
  'category.SPORTS': 'Sukan',
  'category.POLITICS': 'Politik',
  'category.FINANCE': 'Kewangan',
  'category.TECH': 'Teknologi',
  'category.DAILY_LIFE': 'Kehidupan harian',
  'category.LOCAL': 'Tempatan',
  'category.SOCIAL': 'Sosial',
  'category.FUN': 'Hiburan',
  'category.OTHER': 'Lain-lain',
};

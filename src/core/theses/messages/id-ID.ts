// Indonesian (Indonesia): «transaksi», «prakiraan», no plural after a number; Intl writes 1.234,5 and 15.00.
import type { ThesisMessages } from './en-US.ts';

export const idID: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” {direction, select, up {naik} other {turun}} {points, number} poin dalam {hours, number} jam terakhir, dari {from, number, ::percent .#} menjadi {to, number, ::percent .#}.',
  'reason.volume': '{volume, number, ::.##} {symbol} diperdagangkan dalam {hours, number} jam terakhir, lewat {trades, number} transaksi.',
  'reason.closing_soon': 'Ditutup {hours, plural, =0 {dalam waktu kurang dari satu jam} other {dalam # jam}}, pada {closeAt, date, close}.',
  'reason.disagreement':
    '“{outcome}” berada di {price, number, ::percent .#}, selisih {points, number} poin dari pasar terkait di kategori {category} yang berada di {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Prakiraan agen terbaru menempatkan “{outcome}” di {forecast, number, ::percent .#}, {points, number} poin {direction, select, above {di atas} other {di bawah}} harga pasar {price, number, ::percent .#}.',
  'reason.new_market':
    'Pasar baru, dibuka {hours, plural, =0 {kurang dari satu jam lalu} other {# jam lalu}}, {trades, plural, =0 {belum ada transaksi} other {sudah ada # transaksi}}.',
  'outcome.yes': 'Ya',
  'outcome.no': 'Tidak',
  'category.CRYPTO': 'Kripto',
  'category.SPORTS': 'Olahraga',
  'category.POLITICS': 'Politik',
  'category.FINANCE': 'Keuangan',
  'category.TECH': 'Teknologi',
  'category.DAILY_LIFE': 'Kehidupan sehari-hari',
  'category.LOCAL': 'Lokal',
  'category.SOCIAL': 'Sosial',
  'category.FUN': 'Hiburan',
  'category.OTHER': 'Lainnya',
};

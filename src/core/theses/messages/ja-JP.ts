// Japanese (Japan): no spaces between sentences (thesis.join), 「」 quotation marks, counters (件, 時間) with no plural.
import type { ThesisMessages } from './en-US.ts';

export const jaJP: ThesisMessages = {
  'thesis.join': '{first}{second}',
  'reason.price_move':
    '「{outcome}」は過去{hours, number}時間で{points, number}ポイント{direction, select, up {上昇} other {下落}}し、{from, number, ::percent .#}から{to, number, ::percent .#}になりました。',
  'reason.volume': '過去{hours, number}時間の取引高は{volume, number, ::.##} {symbol}（{trades, number}件の取引）です。',
  'reason.closing_soon': '{hours, plural, =0 {1時間以内に} other {あと#時間で}}締め切られます（{closeAt, date, close}）。',
  'reason.disagreement':
    '「{outcome}」は{price, number, ::percent .#}で、{category}カテゴリーの関連マーケット（{relatedPrice, number, ::percent .#}）と{points, number}ポイントの差があります。',
  'reason.forecast':
    '最近のエージェント予測は「{outcome}」を{forecast, number, ::percent .#}と見ており、市場価格の{price, number, ::percent .#}より{points, number}ポイント{direction, select, above {高く} other {低く}}なっています。',
  'reason.new_market':
    '{hours, plural, =0 {1時間以内に} other {#時間前に}}開設された新しいマーケットで、{trades, plural, =0 {まだ取引はありません} other {これまでに#件の取引があります}}。',
  'outcome.yes': 'はい',
  'outcome.no': 'いいえ',
  'category.CRYPTO': '暗号資産',
  'category.SPORTS': 'スポーツ',
  'category.POLITICS': '政治',
  'category.FINANCE': '金融',
  'category.TECH': 'テクノロジー',
  'category.DAILY_LIFE': '日常生活',
  'category.LOCAL': '地域',
  'category.SOCIAL': '社会',
  'category.FUN': 'エンタメ',
  'category.OTHER': 'その他',
};

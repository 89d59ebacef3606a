// Korean (Korea): «%p» for percentage points, ‘’ quotation marks, sentences built so no particle follows a value whose
// reading decides its form (이/가 after a label or a symbol).
import type { ThesisMessages } from './en-US.ts';

export const koKR: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '‘{outcome}’ 가격이 최근 {hours, number}시간 동안 {from, number, ::percent .#}에서 {to, number, ::percent .#}로 {points, number}%p {direction, select, up {상승했습니다} other {하락했습니다}}.',
  'reason.volume': '최근 {hours, number}시간 거래량은 {volume, number, ::.##} {symbol}입니다(거래 {trades, number}건).',
  'reason.closing_soon': '{hours, plural, =0 {1시간 이내에} other {#시간 후}} 마감됩니다({closeAt, date, close}).',
  'reason.disagreement':
    '‘{outcome}’ 가격은 {price, number, ::percent .#}로, {category} 카테고리의 관련 마켓({relatedPrice, number, ::percent .#})과 {points, number}%p 차이가 납니다.',
  'reason.forecast':
    '최근 에이전트 예측은 ‘{outcome}’ 확률을 {forecast, number, ::percent .#}로 보며, 이는 시장 가격 {price, number, ::percent .#}보다 {points, number}%p {direction, select, above {높습니다} other {낮습니다}}.',
  'reason.new_market':
    '{hours, plural, =0 {1시간 이내에} other {#시간 전에}} 개설된 새 마켓으로, {trades, plural, =0 {아직 거래가 없습니다} other {지금까지 #건의 거래가 있었습니다}}.',
  'outcome.yes': '예',
  'outcome.no': '아니요',
  'category.CRYPTO': '암호화폐',
  'category.SPORTS': '스포츠',
  'category.POLITICS': '정치',
  'category.FINANCE': '금융',
  'category.TECH': '기술',
  'category.DAILY_LIFE': '일상',
  'category.LOCAL': '지역',
  'category.SOCIAL': '사회',
  'category.FUN': '엔터테인먼트',
  'category.OTHER': '기타',
};

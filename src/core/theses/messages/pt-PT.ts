// Portuguese (Portugal): «transações», «desceu», «está a 40 %», «Desporto», «Quotidiano», angle quotation marks.
import type { ThesisMessages } from './en-US.ts';

export const ptPT: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '«{outcome}» {direction, select, up {subiu} other {desceu}} {points, plural, one {# ponto} other {# pontos}} {hours, plural, one {na última hora} other {nas últimas # horas}}, de {from, number, ::percent .#} para {to, number, ::percent .#}.',
  'reason.volume':
    '{volume, number, ::.##} {symbol} transacionados {hours, plural, one {na última hora} other {nas últimas # horas}}, em {trades, plural, one {# transação} other {# transações}}.',
  'reason.closing_soon': 'Fecha {hours, plural, =0 {dentro de menos de uma hora} one {dentro de # hora} other {dentro de # horas}}, a {closeAt, date, close}.',
  'reason.disagreement':
    '«{outcome}» está a {price, number, ::percent .#}, a {points, plural, one {# ponto} other {# pontos}} de um mercado relacionado da categoria {category}, que está a {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Uma previsão recente de um agente coloca «{outcome}» nos {forecast, number, ::percent .#}, {points, plural, one {# ponto} other {# pontos}} {direction, select, above {acima} other {abaixo}} dos {price, number, ::percent .#} do mercado.',
  'reason.new_market':
    'Mercado novo, aberto {hours, plural, =0 {há menos de uma hora} one {há # hora} other {há # horas}}, {trades, plural, =0 {ainda sem transações} one {com # transação até agora} other {com # transações até agora}}.',
  'outcome.yes': 'Sim',
  'outcome.no': 'Não',
  'category.CRYPTO': 'Cripto',
  'category.SPORTS': 'Desporto',
  'category.POLITICS': 'Política',
  'category.FINANCE': 'Finanças',
  'category.TECH': 'Tecnologia',
  'category.DAILY_LIFE': 'Quotidiano',
  'category.LOCAL': 'Local',
  'category.SOCIAL': 'Sociedade',
  'category.FUN': 'Lazer',
  'category.OTHER': 'Outros',
};

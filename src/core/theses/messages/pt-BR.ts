// Portuguese (Brazil): «negociações», «Esportes», «Dia a dia», curly double quotation marks.
import type { ThesisMessages } from './en-US.ts';

export const ptBR: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” {direction, select, up {subiu} other {caiu}} {points, plural, one {# ponto} other {# pontos}} {hours, plural, one {na última hora} other {nas últimas # horas}}, de {from, number, ::percent .#} para {to, number, ::percent .#}.',
  'reason.volume':
    '{volume, number, ::.##} {symbol} negociados {hours, plural, one {na última hora} other {nas últimas # horas}}, em {trades, plural, one {# negociação} other {# negociações}}.',
  'reason.closing_soon': 'Fecha {hours, plural, =0 {em menos de uma hora} one {em # hora} other {em # horas}}, em {closeAt, date, close}.',
  'reason.disagreement':
    '“{outcome}” está em {price, number, ::percent .#}, a {points, plural, one {# ponto} other {# pontos}} de um mercado relacionado da categoria {category}, que está em {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Uma previsão recente de um agente coloca “{outcome}” em {forecast, number, ::percent .#}, {points, plural, one {# ponto} other {# pontos}} {direction, select, above {acima} other {abaixo}} dos {price, number, ::percent .#} do mercado.',
  'reason.new_market':
    'Mercado novo, aberto {hours, plural, =0 {há menos de uma hora} one {há # hora} other {há # horas}}, {trades, plural, =0 {ainda sem negociações} one {com # negociação até agora} other {com # negociações até agora}}.',
  'outcome.yes': 'Sim',
  'outcome.no': 'Não',
  'category.CRYPTO': 'Cripto',
  'category.SPORTS': 'Esportes',
  'category.POLITICS': 'Política',
  'category.FINANCE': 'Finanças',
  'category.TECH': 'Tecnologia',
  'category.DAILY_LIFE': 'Dia a dia',
  'category.LOCAL': 'Local',
  'category.SOCIAL': 'Sociedade',
  'category.FUN': 'Diversão',
  'category.OTHER': 'Outros',
};

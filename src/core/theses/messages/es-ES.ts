// Spanish (Spain): the perfect tense for what just happened («ha subido»), «previsión», «operaciones»; Intl writes
// 1234,5 and 54,8 % (es-ES groups from five digits).
import type { ThesisMessages } from './en-US.ts';

export const esES: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '«{outcome}» {direction, select, up {ha subido} other {ha bajado}} {points, plural, one {# punto} other {# puntos}} en {hours, plural, one {la última hora} other {las últimas # horas}}, del {from, number, ::percent .#} al {to, number, ::percent .#}.',
  'reason.volume':
    'Se han negociado {volume, number, ::.##} {symbol} en {hours, plural, one {la última hora} other {las últimas # horas}}, en {trades, plural, one {# operación} other {# operaciones}}.',
  'reason.closing_soon': 'Cierra {hours, plural, =0 {en menos de una hora} one {dentro de # hora} other {dentro de # horas}}, el {closeAt, date, close}.',
  'reason.disagreement':
    '«{outcome}» cotiza al {price, number, ::percent .#}, a {points, plural, one {# punto} other {# puntos}} de un mercado relacionado de la categoría {category}, que está al {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Una previsión reciente de un agente sitúa «{outcome}» en el {forecast, number, ::percent .#}, {points, plural, one {# punto} other {# puntos}} por {direction, select, above {encima} other {debajo}} del {price, number, ::percent .#} del mercado.',
  'reason.new_market':
    'Mercado nuevo, abierto {hours, plural, =0 {hace menos de una hora} one {hace # hora} other {hace # horas}}, {trades, plural, =0 {aún sin operaciones} one {con # operación hasta ahora} other {con # operaciones hasta ahora}}.',
  'outcome.yes': 'Sí',
  'outcome.no': 'No',
  'category.CRYPTO': 'Cripto',
  'category.SPORTS': 'Deportes',
  'category.POLITICS': 'Política',
  'category.FINANCE': 'Finanzas',
  'category.TECH': 'Tecnología',
  'category.DAILY_LIFE': 'Vida cotidiana',
  'category.LOCAL': 'Local',
  'category.SOCIAL': 'Sociedad',
  'category.FUN': 'Ocio',
  'category.OTHER': 'Otros',
};

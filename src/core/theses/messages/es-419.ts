// Spanish of Latin America, the base of es-AR, es-CO and es-MX: the preterite for what just happened («subió»),
// «pronóstico», double quotation marks. The three locales share this text; Intl writes their numbers and dates
// (es-MX 1,234.5 and 3:00 p.m.; es-AR and es-CO 1.234,5).
import type { ThesisMessages } from './en-US.ts';

export const es419: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” {direction, select, up {subió} other {bajó}} {points, plural, one {# punto} other {# puntos}} en {hours, plural, one {la última hora} other {las últimas # horas}}, del {from, number, ::percent .#} al {to, number, ::percent .#}.',
  'reason.volume':
    'Se operaron {volume, number, ::.##} {symbol} en {hours, plural, one {la última hora} other {las últimas # horas}}, en {trades, plural, one {# operación} other {# operaciones}}.',
  'reason.closing_soon': 'Cierra {hours, plural, =0 {en menos de una hora} one {en # hora} other {en # horas}}, el {closeAt, date, close}.',
  'reason.disagreement':
    '“{outcome}” cotiza al {price, number, ::percent .#}, a {points, plural, one {# punto} other {# puntos}} de un mercado relacionado de la categoría {category}, que está al {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Un pronóstico reciente de un agente pone “{outcome}” en {forecast, number, ::percent .#}, {points, plural, one {# punto} other {# puntos}} por {direction, select, above {encima} other {debajo}} del {price, number, ::percent .#} del mercado.',
  'reason.new_market':
    'Mercado nuevo, abierto {hours, plural, =0 {hace menos de una hora} one {hace # hora} other {hace # horas}}, {trades, plural, =0 {todavía sin operaciones} one {con # operación hasta ahora} other {con # operaciones hasta ahora}}.',
  'outcome.yes': 'Sí',
  'outcome.no': 'No',
  'category.CRYPTO': 'Cripto',
  'category.SPORTS': 'Deportes',
  'category.POLITICS': 'Política',
  'category.FINANCE': 'Finanzas',
  'category.TECH': 'Tecnología',
  'category.DAILY_LIFE': 'Vida diaria',
  'category.LOCAL': 'Local',
  'category.SOCIAL': 'Sociedad',
  'category.FUN': 'Entretenimiento',
  'category.OTHER': 'Otros',
};

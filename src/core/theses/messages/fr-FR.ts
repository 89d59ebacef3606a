// French (France): guillemets with narrow no-break spaces, typographic apostrophes (an ASCII one before a brace would
// start an ICU quote), «point» in the singular below two as French counts (1,5 point); Intl writes 1 234,5 and 54,8 %.
import type { ThesisMessages } from './en-US.ts';

export const frFR: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '«\u202f{outcome}\u202f» a {direction, select, up {gagné} other {perdu}} {points, plural, one {# point} other {# points}} {hours, plural, one {au cours de la dernière heure} other {au cours des # dernières heures}}, passant de {from, number, ::percent .#} à {to, number, ::percent .#}.',
  'reason.volume':
    '{volume, number, ::.##} {symbol} échangés {hours, plural, one {au cours de la dernière heure} other {au cours des # dernières heures}}, en {trades, plural, one {# transaction} other {# transactions}}.',
  'reason.closing_soon': 'Clôture {hours, plural, =0 {dans moins d’une heure} one {dans # heure} other {dans # heures}}, le {closeAt, date, close}.',
  'reason.disagreement':
    '«\u202f{outcome}\u202f» est à {price, number, ::percent .#}, soit {points, plural, one {# point} other {# points}} d’écart avec un marché lié de la catégorie {category}, à {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Une prévision récente d’un agent place «\u202f{outcome}\u202f» à {forecast, number, ::percent .#}, {points, plural, one {# point} other {# points}} {direction, select, above {au-dessus} other {en dessous}} des {price, number, ::percent .#} du marché.',
  'reason.new_market':
    'Nouveau marché, ouvert {hours, plural, =0 {il y a moins d’une heure} one {il y a # heure} other {il y a # heures}}, {trades, plural, =0 {encore sans transaction} one {avec # transaction jusqu’ici} other {avec # transactions jusqu’ici}}.',
  'outcome.yes': 'Oui',
  'outcome.no': 'Non',
  'category.CRYPTO': 'Crypto',
  'category.SPORTS': 'Sport',
  'category.POLITICS': 'Politique',
  'category.FINANCE': 'Finance',
  'category.TECH': 'Tech',
  'category.DAILY_LIFE': 'Vie quotidienne',
  'category.LOCAL': 'Local',
  'category.SOCIAL': 'Société',
  'category.FUN': 'Divertissement',
  'category.OTHER': 'Autre',
};

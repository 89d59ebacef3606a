// German (Germany): „…“ quotation marks, «Prozentpunkte», the category named rather than compounded
// («ein verwandter Markt der Kategorie Krypto»); Intl writes 1.234,5 and 54,8 %.
import type { ThesisMessages } from './en-US.ts';

export const deDE: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '„{outcome}“ ist {hours, plural, one {in der letzten Stunde} other {in den letzten # Stunden}} um {points, plural, one {# Prozentpunkt} other {# Prozentpunkte}} {direction, select, up {gestiegen} other {gefallen}}, von {from, number, ::percent .#} auf {to, number, ::percent .#}.',
  'reason.volume':
    '{volume, number, ::.##} {symbol} Handelsvolumen {hours, plural, one {in der letzten Stunde} other {in den letzten # Stunden}}, verteilt auf {trades, plural, one {# Trade} other {# Trades}}.',
  'reason.closing_soon': 'Schließt {hours, plural, =0 {in weniger als einer Stunde} one {in # Stunde} other {in # Stunden}}, am {closeAt, date, close}.',
  'reason.disagreement':
    '„{outcome}“ steht bei {price, number, ::percent .#} und damit {points, plural, one {# Prozentpunkt} other {# Prozentpunkte}} entfernt von einem verwandten Markt der Kategorie {category}, der bei {relatedPrice, number, ::percent .#} steht.',
  'reason.forecast':
    'Eine aktuelle Agenten-Prognose sieht „{outcome}“ bei {forecast, number, ::percent .#}, {points, plural, one {# Prozentpunkt} other {# Prozentpunkte}} {direction, select, above {über} other {unter}} dem Marktpreis von {price, number, ::percent .#}.',
  'reason.new_market':
    'Neuer Markt, eröffnet {hours, plural, =0 {vor weniger als einer Stunde} one {vor # Stunde} other {vor # Stunden}}, {trades, plural, =0 {noch ohne Trades} one {bisher # Trade} other {bisher # Trades}}.',
  'outcome.yes': 'Ja',
  'outcome.no': 'Nein',
  'category.CRYPTO': 'Krypto',
  'category.SPORTS': 'Sport',
  'category.POLITICS': 'Politik',
  'category.FINANCE': 'Finanzen',
  'category.TECH': 'Technik',
  'category.DAILY_LIFE': 'Alltag',
  'category.LOCAL': 'Lokales',
  'category.SOCIAL': 'Gesellschaft',
  'category.FUN': 'Unterhaltung',
  'category.OTHER': 'Sonstiges',
};

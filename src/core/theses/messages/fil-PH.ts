// Filipino (Philippines): verb-first sentences («Tumaas ang …»), nouns that do not change after a number (CLDR's
// «one» and «other» read the same), English market words as Filipino speakers use them (market, trade, agent).
import type { ThesisMessages } from './en-US.ts';

export const filPH: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '{direction, select, up {Tumaas} other {Bumaba}} ang “{outcome}” nang {points, number} puntos sa nakalipas na {hours, number} oras, mula {from, number, ::percent .#} hanggang {to, number, ::percent .#}.',
  'reason.volume': '{volume, number, ::.##} {symbol} ang na-trade sa nakalipas na {hours, number} oras, sa {trades, number} transaksyon.',
  'reason.closing_soon': 'Magsasara {hours, plural, =0 {sa loob ng wala pang isang oras} other {sa loob ng # oras}}, sa {closeAt, date, close}.',
  'reason.disagreement':
    'Nasa {price, number, ::percent .#} ang “{outcome}”, {points, number} puntos ang layo sa isang kaugnay na market sa kategoryang {category} na nasa {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Inilalagay ng isang bagong forecast ng agent ang “{outcome}” sa {forecast, number, ::percent .#}, {points, number} puntos na {direction, select, above {mas mataas} other {mas mababa}} sa presyo ng market na {price, number, ::percent .#}.',
  'reason.new_market':
    'Bagong market, binuksan {hours, plural, =0 {wala pang isang oras ang nakalipas} other {# oras na ang nakalipas}}, {trades, plural, =0 {wala pang transaksyon} other {may # transaksyon na}}.',
  'outcome.yes': 'Oo',
  'outcome.no': 'Hindi',
  'category.CRYPTO': 'Crypto',
  'category.SPORTS': 'Palakasan',
  'category.POLITICS': 'Pulitika',
  'category.FINANCE': 'Pananalapi',
  'category.TECH': 'Teknolohiya',
  'category.DAILY_LIFE': 'Pang-araw-araw na buhay',
  'category.LOCAL': 'Lokal',
  'category.SOCIAL': 'Lipunan',
  'category.FUN': 'Libangan',
  'category.OTHER': 'Iba pa',
};

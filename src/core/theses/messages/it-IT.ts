// Italian (Italy): «quota» and «da … a …» rather than articles before a number (dal 40 %, but dall’8 %: the elision
// depends on how the number is read), typographic apostrophes.
import type { ThesisMessages } from './en-US.ts';

export const itIT: ThesisMessages = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '«{outcome}» è {direction, select, up {salito} other {sceso}} di {points, plural, one {# punto} other {# punti}} {hours, plural, one {nell’ultima ora} other {nelle ultime # ore}}, da {from, number, ::percent .#} a {to, number, ::percent .#}.',
  'reason.volume':
    '{volume, number, ::.##} {symbol} scambiati {hours, plural, one {nell’ultima ora} other {nelle ultime # ore}}, in {trades, plural, one {# operazione} other {# operazioni}}.',
  'reason.closing_soon': 'Chiude {hours, plural, =0 {tra meno di un’ora} one {tra # ora} other {tra # ore}}, il {closeAt, date, close}.',
  'reason.disagreement':
    '«{outcome}» quota {price, number, ::percent .#}, a {points, plural, one {# punto} other {# punti}} di distanza da un mercato collegato della categoria {category}, che quota {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'Una previsione recente di un agente stima per «{outcome}» una probabilità di {forecast, number, ::percent .#}, {points, plural, one {# punto} other {# punti}} {direction, select, above {sopra} other {sotto}} la quota di mercato di {price, number, ::percent .#}.',
  'reason.new_market':
    'Nuovo mercato, aperto {hours, plural, =0 {meno di un’ora fa} one {# ora fa} other {# ore fa}}, {trades, plural, =0 {ancora senza operazioni} one {con # operazione finora} other {con # operazioni finora}}.',
  'outcome.yes': 'Sì',
  'outcome.no': 'No',
  'category.CRYPTO': 'Cripto',
  'category.SPORTS': 'Sport',
  'category.POLITICS': 'Politica',
  'category.FINANCE': 'Finanza',
  'category.TECH': 'Tecnologia',
  'category.DAILY_LIFE': 'Vita quotidiana',
  'category.LOCAL': 'Locale',
  'category.SOCIAL': 'Società',
  'category.FUN': 'Intrattenimento',
  'category.OTHER': 'Altro',
};

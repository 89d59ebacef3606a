// English (United States): the reference catalog. Its keys are every catalog's keys; each message takes the same ICU
// arguments in every locale (test/theses/catalogs.test.ts compares them):
//   thesis.join          first, second: the two strongest reasons' sentences
//   reason.price_move    outcome (label), direction (up | down), points (one decimal), hours, from, to (fractions 0..1)
//   reason.volume        volume (whole collateral units), symbol, trades, hours
//   reason.closing_soon  hours (whole hours left; 0 = under an hour), closeAt (date, format `close`: UTC)
//   reason.disagreement  outcome, price, relatedPrice (fractions), points, category (label)
//   reason.forecast      outcome, forecast, price (fractions), points, direction (above | below)
//   reason.new_market    hours (whole hours since creation), trades
//   outcome.*, category.*  labels
export const enUS = {
  'thesis.join': '{first} {second}',
  'reason.price_move':
    '“{outcome}” {direction, select, up {rose} other {fell}} {points, plural, one {# point} other {# points}} in the last {hours, plural, one {hour} other {# hours}}, from {from, number, ::percent .#} to {to, number, ::percent .#}.',
  'reason.volume':
    '{volume, number, ::.##} {symbol} traded in the last {hours, plural, one {hour} other {# hours}}, over {trades, plural, one {# trade} other {# trades}}.',
  'reason.closing_soon': 'Closes {hours, plural, =0 {in less than an hour} one {in # hour} other {in # hours}}, on {closeAt, date, close}.',
  'reason.disagreement':
    '“{outcome}” is at {price, number, ::percent .#}, {points, plural, one {# point} other {# points}} away from a related market in {category} at {relatedPrice, number, ::percent .#}.',
  'reason.forecast':
    'A recent agent forecast puts “{outcome}” at {forecast, number, ::percent .#}, {points, plural, one {# point} other {# points}} {direction, select, above {above} other {below}} the market’s {price, number, ::percent .#}.',
  'reason.new_market':
    'New market, opened {hours, plural, =0 {less than an hour ago} one {# hour ago} other {# hours ago}}, with {trades, plural, =0 {no trades yet} one {# trade so far} other {# trades so far}}.',
  'outcome.yes': 'Yes',
  'outcome.no': 'No',
  'category.CRYPTO': 'Crypto',
  'category.SPORTS': 'Sports',
  'category.POLITICS': 'Politics',
  'category.FINANCE': 'Finance',
  'category.TECH': 'Tech',
  'category.DAILY_LIFE': 'Daily life',
  'category.LOCAL': 'Local',
  'category.SOCIAL': 'Social',
  'category.FUN': 'Fun',
  'category.OTHER': 'Other',
} as const;

export type ThesisMessageKey = keyof typeof enUS;
/** A locale's catalog: every key of the reference catalog, each an ICU MessageFormat string. */
export type ThesisMessages = Record<ThesisMessageKey, string>;

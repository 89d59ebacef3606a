// Where a test's service clock starts when the test creates markets on anvil. anvil's blocks carry the real time, so
// a market closing at a time set from a clock fixed in the past is refused on chain once the real time passes it
// (two suites broke so on 2026-12-01); a clock at the real time keeps every date the test sets ahead of the chain.

const HOUR = 3_600_000;

/** The next full hour of the real time (a round start: the chain is never ahead of it). */
export function nextFullHour(): Date {
  return new Date(Math.ceil(Date.now() / HOUR) * HOUR);
}

/**
 * Placements on their way to their market's queue: arrived at the service, not queued yet. A round about to start
 * waits for them a little (rounds.ts), so the requests a round answered, which come back together, are placed together
 * again even when something on their way is awaited: with the rate limits in Redis each request waits a round trip for
 * its charge, and rounds started meanwhile took 8-10 orders instead of 12-14 (docs/orderbook.md, session 27).
 */
export class Arrivals {
  #pending = 0;

  /** Placements arrived and not yet queued (or refused). */
  get pending(): number {
    return this.#pending;
  }

  /** One more on its way; answers how to say it got there (queued, or refused on the way). Saying it twice counts once. */
  begin(): () => void {
    this.#pending++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#pending--;
    };
  }
}

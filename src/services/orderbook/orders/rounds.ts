/**
 * Rounds: the batches of placements that several markets' queues have ready at one time go into one transaction
 * (docs/orderbook.md "Group commit across markets"). A market's queue runs one batch at a time; when its batch is due
 * it joins the next round, and rounds run one after another, so everything queued while a round runs (on any market)
 * goes into the one after it (MAX_ROUND_MARKETS at most; the rest into the next), and so do the markets that round
 * answered if they have more to place. A round of one market is that market's batch as before; a round of several
 * fails over to each market's own batch (and its retries, order by order), so a refusal or a failure of one market's
 * orders never costs another market's theirs more than a second try.
 */

/** A market's batch waiting for its round: how to take its placements, and what the round answers it. */
export interface RoundEntry<I, R> {
  marketId: bigint;
  /** The market queue's take (books.ts): the same items on every call. */
  take: () => I[];
  resolve: (outcomes: PromiseSettledResult<R>[]) => void;
  reject: (err: unknown) => void;
}

/** Markets in one round at most: with their batches of MAX_BATCH (books.ts), a transaction places 1,024 orders at most. */
export const MAX_ROUND_MARKETS = 16;

export class PlacementRounds<I, R> {
  #waiting: RoundEntry<I, R>[] = [];
  #running = false;
  readonly #run: (round: readonly RoundEntry<I, R>[]) => Promise<void>;
  readonly #turns: number;

  /**
   * `run` settles every entry of the round it is given. `turns`: turns of the event loop a round lets pass, once the
   * first market joins it, for the others to join (a market's queue lets its own turns pass before it takes its batch,
   * books.ts, and the requests answered by the last round come back at their clients' pace). With one turn, 4 markets
   * on PGlite ran a third of their rounds with one market (9.5 orders a transaction); with three, nearly every round
   * took all four (15.6).
   */
  constructor(run: (round: readonly RoundEntry<I, R>[]) => Promise<void>, turns = 1) {
    this.#run = run;
    this.#turns = turns;
  }

  /** The market's batch, in the next round; answers its placements' outcomes. */
  join(marketId: bigint, take: () => I[]): Promise<PromiseSettledResult<R>[]> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ marketId, take, resolve, reject });
      if (!this.#running) void this.#loop();
    });
  }

  async #loop(): Promise<void> {
    this.#running = true;
    try {
      for (;;) {
        // Turns of the event loop before every round, so the other markets whose batches fall due meanwhile join it.
        // After a round that is the markets it answered: each one's queue takes its own turns before its next batch
        // (books.ts). A round taken straight away held only the markets that joined while the last one ran, and the
        // markets fell into two sets taking alternate rounds (4 markets on PostgreSQL: most rounds of 1-3 markets,
        // 7-10 orders a transaction instead of 13-15).
        for (let turn = 0; turn < this.#turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.#waiting.length === 0) break;
        const round = this.#waiting.splice(0, MAX_ROUND_MARKETS);
        try {
          await this.#run(round);
        } catch (err) {
          for (const entry of round) entry.reject(err);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}

/**
 * Who holds the embedded database's one connection next (src/db/pglite-dialect.ts). PGlite runs on this process's
 * thread, so a holder's statements stop the event loop for as long as they run, and a line of holders is a line of
 * stalls: under the order bench, a market's batch that found the leaderboard's folds, the upkeep and the reputation
 * fold in line before it waited 60-140 ms, and so did every placement in it (docs/orderbook.md, session 15).
 *
 * Two kinds of holder. A foreground one (a request's statements, an order batch) goes before every waiting background
 * one (folds, keepers, upkeep: Database.background), and a background holder also waits while a foreground one is
 * expected (`expect()`: a market's queue gathering its batch, whose transaction asks for the connection a few turns of
 * the event loop later). A background holder is never held back for long: once it has waited `maxDeferMs` it goes
 * right after the foreground holder of the moment, one background holder at a time. A batch then waits for one
 * background holder at most, and the background keeps getting turns under any load.
 */
import { performance } from 'node:perf_hooks';

export type TurnPriority = 'foreground' | 'background';

/** Time for the mutex's deadlines (tests move it by hand). */
export interface TurnTimer {
  now(): number;
  /** Calls `fn` after `ms`; answers how to cancel that. Must not keep the process alive. */
  after(ms: number, fn: () => void): () => void;
}

export interface TurnOptions {
  /**
   * A hand-over is a microtask, so a chain of holders runs without the event loop turning: no request is read and no
   * timer fires for as long as the chain lasts. A hand-over more than this long after the mutex last let the event
   * loop turn waits for it first (setImmediate: the poll phase, where requests are read, runs before). 0: never.
   */
  turnBudgetMs?: number;
  /** The longest a background holder is held back by foreground ones (default DEFAULT_MAX_DEFER_MS). */
  maxDeferMs?: number;
  timer?: TurnTimer;
}

/** Two or three order batches long: the background gets a turn in every few batches at full load. */
export const DEFAULT_MAX_DEFER_MS = 40;

const realTimer: TurnTimer = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

interface Waiter {
  foreground: boolean;
  since: number;
  grant: () => void;
}

/** A mutex handing out turns: foreground holders first, background holders in their order, none of them starved. */
export class AsyncMutex {
  readonly #turnBudgetMs: number;
  readonly #maxDeferMs: number;
  readonly #timer: TurnTimer;
  #turnAt: number;
  #held = false;
  /** The current (or last) holder was a foreground one: an overdue background holder goes next. */
  #lastForeground = false;
  readonly #foreground: Waiter[] = [];
  readonly #background: Waiter[] = [];
  /** When each open expectation began; one older than maxDeferMs holds nobody back any more. */
  readonly #expectations = new Set<{ since: number }>();
  #cancelWake: (() => void) | null = null;

  constructor(opts: TurnOptions = {}) {
    this.#turnBudgetMs = opts.turnBudgetMs ?? 0;
    this.#maxDeferMs = opts.maxDeferMs ?? DEFAULT_MAX_DEFER_MS;
    this.#timer = opts.timer ?? realTimer;
    this.#turnAt = this.#timer.now();
  }

  /** Resolves with the release of the turn once it is this holder's. */
  lock(priority: TurnPriority = 'foreground'): Promise<() => void> {
    return new Promise((resolve) => {
      const foreground = priority === 'foreground';
      (foreground ? this.#foreground : this.#background).push({ foreground, since: this.#timer.now(), grant: () => resolve(this.#releaser()) });
      if (!this.#held) this.#next();
    });
  }

  /**
   * A foreground holder will ask soon: background holders wait until it has its turn (at most `maxDeferMs`). Answers
   * how to end the expectation, once that holder has the connection or will not ask; a second call does nothing.
   */
  expect(): () => void {
    const expectation = { since: this.#timer.now() };
    this.#expectations.add(expectation);
    return () => {
      if (!this.#expectations.delete(expectation)) return;
      if (!this.#held) this.#next();
    };
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      // A double release must not free the next holder's turn.
      if (done) return;
      done = true;
      if (this.#turnBudgetMs > 0 && this.#timer.now() - this.#turnAt > this.#turnBudgetMs) {
        setImmediate(() => {
          this.#turnAt = this.#timer.now();
          this.#handOver();
        });
      } else this.#handOver();
    };
  }

  #handOver(): void {
    this.#held = false;
    this.#next();
  }

  /** Gives the free connection to whoever is next, if anyone may have it now; else wakes when someone may. */
  #next(): void {
    this.#cancelWake?.();
    this.#cancelWake = null;
    const now = this.#timer.now();
    const waiter = this.#choose(now);
    if (waiter) {
      this.#held = true;
      this.#lastForeground = waiter.foreground;
      waiter.grant();
      return;
    }
    const first = this.#background[0];
    if (!first) return;
    // Held back by an expectation: look again when the holder becomes overdue or the expectation lapses (the
    // expectation's end, or a foreground holder asking, looks again at once).
    const due = first.since + this.#maxDeferMs;
    let at = due > now ? due : Number.POSITIVE_INFINITY;
    for (const e of this.#expectations) if (e.since + this.#maxDeferMs > now) at = Math.min(at, e.since + this.#maxDeferMs);
    this.#cancelWake = this.#timer.after(at - now, () => {
      this.#cancelWake = null;
      if (!this.#held) this.#next();
    });
  }

  #choose(now: number): Waiter | undefined {
    const background = this.#background[0];
    if (!background) return this.#foreground.shift();
    // One background holder after a foreground one, once it has waited its longest: never starved, and never two in a
    // row while foreground holders wait.
    if (this.#lastForeground && now - background.since >= this.#maxDeferMs) return this.#background.shift();
    if (this.#foreground.length > 0) return this.#foreground.shift();
    for (const e of this.#expectations) if (now - e.since < this.#maxDeferMs) return undefined;
    return this.#background.shift();
  }
}

/**
 * Who holds the embedded database's one connection next (src/db/pglite-dialect.ts). PGlite runs on this process's
 * thread, so a holder's statements stop the event loop for as long as they run, and a line of holders is a line of
 * stalls: under the order bench, a market's batch that found the leaderboard's folds, the upkeep and the reputation
 * fold in line before it waited 60-140 ms, and so did every placement in it (docs/orderbook.md, session 15).
 *
 * Two kinds of holder: foreground (a request's statements, an order batch, anything on Database.db) and background
 * (folds, the ledger batcher, the upkeep: Database.background). While requests want the connection (a foreground holder
 * waits, or one is expected: `expect()`, a market's queue gathering its batch, whose transaction asks a few turns of the
 * event loop later), background holders wait. They are never held back for long: once the first has waited
 * `maxDeferMs`, it goes next, as long as the background's turns leave the requests the rest of the time: after a
 * background turn of h ms, the next one waits until h × (1 / `backgroundShare` − 1) ms have passed. A batch then
 * waits for one background turn at most, long ones seldom, and the background keeps getting its share under any load.
 * When no request wants the connection a background holder goes at once, except right after another one while
 * requests are about (`quietMs`): the first one held back the answers that bring the next requests.
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
  /** The longest a background holder is held back by requests (default DEFAULT_MAX_DEFER_MS). */
  maxDeferMs?: number;
  /**
   * While requests want the connection, the share of its time background holders may take (default
   * DEFAULT_BACKGROUND_SHARE): after a turn of h ms, the next background turn waits h × (1 / share − 1) ms.
   */
  backgroundShare?: number;
  /** How long a background holder waits after another one, while requests are about (default DEFAULT_QUIET_MS). */
  quietMs?: number;
  timer?: TurnTimer;
}

/** Three or four order batches long: the background gets a turn in every few batches at full load. */
export const DEFAULT_MAX_DEFER_MS = 40;
/**
 * A third: after a background turn, twice as long for the requests. On the order bench the background (the ledger's
 * batches, the folds, the upkeep) needs 10-20 % of the connection's time at full load, in 50-100 turns a second, most of
 * them 1-3 ms long; a fixed 20 ms between background turns let it fall ever further behind when the machine slowed.
 */
export const DEFAULT_BACKGROUND_SHARE = 1 / 3;
/**
 * Enough for the answers a background holder held back to reach their clients and their next requests to come in
 * and join a market's queue: on the order bench, a second and a third background holder otherwise followed the first
 * before any request was read.
 */
export const DEFAULT_QUIET_MS = 5;

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
  readonly #backgroundShare: number;
  readonly #quietMs: number;
  readonly #timer: TurnTimer;
  #turnAt: number;
  #held = false;
  /** The current (or last) holder is a foreground one. */
  #lastForeground = false;
  /** When the last holder released the connection, and the last foreground and background ones. */
  #releasedAt = Number.NEGATIVE_INFINITY;
  #foregroundAt = Number.NEGATIVE_INFINITY;
  #backgroundAt = Number.NEGATIVE_INFINITY;
  /** When the current holder got its turn, and how long the last background turn lasted. */
  #grantedAt = 0;
  #backgroundHeldMs = 0;
  readonly #foreground: Waiter[] = [];
  readonly #background: Waiter[] = [];
  /** When each open expectation began; one older than maxDeferMs holds nobody back any more. */
  readonly #expectations = new Set<{ since: number }>();
  #cancelWake: (() => void) | null = null;

  constructor(opts: TurnOptions = {}) {
    this.#turnBudgetMs = opts.turnBudgetMs ?? 0;
    this.#maxDeferMs = opts.maxDeferMs ?? DEFAULT_MAX_DEFER_MS;
    this.#backgroundShare = opts.backgroundShare ?? DEFAULT_BACKGROUND_SHARE;
    this.#quietMs = opts.quietMs ?? DEFAULT_QUIET_MS;
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
    this.#releasedAt = this.#timer.now();
    if (this.#lastForeground) this.#foregroundAt = this.#releasedAt;
    else {
      this.#backgroundAt = this.#releasedAt;
      this.#backgroundHeldMs = this.#releasedAt - this.#grantedAt;
    }
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
      this.#grantedAt = now;
      this.#lastForeground = waiter.foreground;
      waiter.grant();
      return;
    }
    const first = this.#background[0];
    if (!first) return;
    // A background holder held back: look again at the next moment a rule may change its mind (an expectation's end,
    // or a foreground holder asking, looks again at once).
    const moments = [first.since + this.#maxDeferMs, this.#backgroundAt + this.#gapMs(), this.#releasedAt + this.#quietMs, this.#foregroundAt + this.#maxDeferMs];
    for (const e of this.#expectations) moments.push(e.since + this.#maxDeferMs);
    const at = Math.min(...moments.filter((t) => t > now));
    if (at === Number.POSITIVE_INFINITY) return;
    this.#cancelWake = this.#timer.after(at - now, () => {
      this.#cancelWake = null;
      if (!this.#held) this.#next();
    });
  }

  /** How long after the last background turn the next may go while requests want the connection. */
  #gapMs(): number {
    return this.#backgroundHeldMs * (1 / this.#backgroundShare - 1);
  }

  #choose(now: number): Waiter | undefined {
    const background = this.#background[0];
    if (!background) return this.#foreground.shift();
    let expected = false;
    for (const e of this.#expectations) if (now - e.since < this.#maxDeferMs) expected = true;
    if (this.#foreground.length > 0 || expected) {
      // Requests want the connection: a background holder only once it has waited its longest, and within its share.
      if (now - background.since >= this.#maxDeferMs && now - this.#backgroundAt >= this.#gapMs()) return this.#background.shift();
      return this.#foreground.shift();
    }
    // Right after another background holder, while requests are about, one may be on its way.
    if (!this.#lastForeground && now - this.#releasedAt < this.#quietMs && now - this.#foregroundAt < this.#maxDeferMs) return undefined;
    return this.#background.shift();
  }
}

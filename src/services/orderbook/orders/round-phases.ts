/**
 * A placement transaction's time by phase (PlacementStats.phaseMs), so the bench can say where a round's time goes
 * (docs/orderbook.md, session 31): the database's three round trips and commit, and the service's own work between
 * them. Each phase ends where the next begins, so together they are the transaction from its start to its commit.
 */
import { performance } from 'node:perf_hooks';

/**
 * In their order: `reads` the locks and reads (the transaction's first pipeline, its BEGIN with it); `matching` the
 * orders' checks and matching in memory, and the first writes built; `firstWrites` their pipeline; `answers` the
 * answers rendered and the last writes built (the ledger's, the fills', the events'); `lastWrites` their pipeline;
 * `commit` the COMMIT. A batch's rare extra round trips (the agents of makers the book does not know, fills past the
 * smallest tier's free ones: settle-fills.ts) count in the phase they happen in.
 */
export const ROUND_PHASES = ['reads', 'matching', 'firstWrites', 'answers', 'lastWrites', 'commit'] as const;
export type RoundPhase = (typeof ROUND_PHASES)[number];
export type PhaseTimes = Record<RoundPhase, number>;

export const noPhaseTimes = (): PhaseTimes => ({ reads: 0, matching: 0, firstWrites: 0, answers: 0, lastWrites: 0, commit: 0 });

/**
 * A transaction at least this long counts as slow (PlacementStats.slow): alone it takes an order past issue 22's p99
 * bound of 50 ms. Their phases say whether the tail's stalls are the database's or the service's.
 */
export const SLOW_TRANSACTION_MS = 50;

/** Transactions of one kind: how many, the orders they placed and their time by phase. */
export interface PhaseTally {
  /** Placement transactions committed: batches, and orders retried alone after their batch failed. */
  transactions: number;
  /** Orders those transactions placed (refused ones not counted). */
  orders: number;
  /** Their milliseconds by phase, of each transaction's attempt that committed. */
  phaseMs: PhaseTimes;
}

export const noPhaseTally = (): PhaseTally => ({ transactions: 0, orders: 0, phaseMs: noPhaseTimes() });

/** A copy of `tally` that later counts do not change. */
export const copyOfTally = <T extends PhaseTally>(tally: T): T => ({ ...tally, phaseMs: { ...tally.phaseMs } });

/** Times one transaction's phases: each `end` gives the phase the milliseconds since the last one ended. */
export class PhaseClock {
  readonly ms = noPhaseTimes();
  #at = performance.now();

  end(phase: RoundPhase): void {
    const now = performance.now();
    this.ms[phase] += now - this.#at;
    this.#at = now;
  }

  /** Counts this transaction, which placed `orders`, in `tally`. */
  countIn(tally: PhaseTally, orders: number): void {
    tally.transactions += 1;
    tally.orders += orders;
    for (const phase of ROUND_PHASES) tally.phaseMs[phase] += this.ms[phase];
  }
}

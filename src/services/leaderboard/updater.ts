/**
 * One pass of the updater (docs/leaderboard.md "Maintenance"), run by the one process that runs the indexer: take back
 * what reorgs removed, fold the pending legs, settle markets that became final, mark the positions of markets that
 * traded and bring the wallets' totals up to date (when due: every TOTALS_INTERVAL_MS), move the 7d/30d windows at a
 * new UTC day, rebuild the creator and voter boards when their inputs changed. Each step commits batch by batch; a
 * pass that stops half-way leaves consistent rows and the next one continues.
 */
import type { LeaderboardDeps } from './deps.ts';
import { foldPending } from './fold.ts';
import { markDirtyMarkets } from './marks.ts';
import { takeBackReverted } from './revert.ts';
import { rebuildRoles, rolesFingerprint } from './roles.ts';
import { rollWindows } from './rollover.ts';
import { settleMarkets } from './settle.ts';
import { refreshPendingTotals } from './totals.ts';

export interface PassOptions {
  /** Legs per fold transaction. */
  batch: number;
  /** Rebuild the role boards even if their inputs look unchanged. */
  forceRoles?: boolean;
  /** Mark the dirty markets and bring the totals up to date in this pass (default true; the timer's passes: when due). */
  totalsDue?: boolean;
}

export interface PassResult {
  reverted: number;
  folded: number;
  settled: number;
  marked: number;
  /** Wallets whose totals took their pending changes. */
  totals: number;
  rolled: number;
  roles: number | null;
}

/** When the role boards were last rebuilt, and from what. */
export interface UpdaterMemory {
  rolesFingerprint: string | null;
  rolesBuiltAt: number;
  /** Trades were folded (or taken back) since the last rebuild: volume attracted moved. */
  volumeMoved?: boolean;
  /** When the totals step last ran (ms). */
  totalsAt?: number;
}

/** Volume attracted alone (trades folded) rebuilds the role boards at most this often; other inputs at once. */
export const ROLES_VOLUME_INTERVAL_MS = 15_000;
/**
 * The timer's passes mark the dirty markets and bring the totals up to date at most this often: a board is this much
 * behind the folds at worst. Each of those rewrites every touched wallet's rows (board indexes included) whatever it
 * folded meanwhile, so doing it once for several folds' worth is where the updater's cost goes down (docs/leaderboard.md).
 */
export const TOTALS_INTERVAL_MS = 5_000;
/** Wallets per transaction of the totals step: a short hold of the connection each. */
const TOTALS_BATCH = 32;

export async function runPass(deps: LeaderboardDeps, memory: UpdaterMemory, opts: PassOptions): Promise<PassResult> {
  const result: PassResult = { reverted: 0, folded: 0, settled: 0, marked: 0, totals: 0, rolled: 0, roles: null };
  // A batch shorter than its limit was the last one: what arrives meanwhile waits for the next pass. Under a steady flow
  // of fills, chasing it made a chain of folds of a few legs each, back to back, every one paying a fold's fixed
  // statements (twice the folds on PGlite in the order bench; ten times, 40 % of the connection, with it on a worker).
  for (let n = opts.batch; n === opts.batch; ) result.reverted += n = await takeBackReverted(deps, opts.batch);
  for (let n = opts.batch; n === opts.batch; ) result.folded += n = await foldPending(deps, opts.batch);
  // (A candidate that cannot settle is not retried in this pass.)
  for (let n = 100; n === 100; ) result.settled += n = await settleMarkets(deps, 100);
  const now = deps.clock.now().getTime();
  if (opts.totalsDue ?? true) {
    for (let n = 200; n === 200; ) result.marked += n = await markDirtyMarkets(deps, 200);
    for (let n = TOTALS_BATCH; n === TOTALS_BATCH; ) result.totals += n = await refreshPendingTotals(deps, TOTALS_BATCH);
    memory.totalsAt = now;
  }
  result.rolled = await rollWindows(deps, 1_000);
  const fingerprint = await rolesFingerprint(deps);
  if (result.reverted + result.folded > 0) memory.volumeMoved = true;
  const volumeDue = memory.volumeMoved === true && now - memory.rolesBuiltAt >= ROLES_VOLUME_INTERVAL_MS;
  if (opts.forceRoles || volumeDue || fingerprint !== memory.rolesFingerprint) {
    result.roles = await rebuildRoles(deps);
    Object.assign(memory, { rolesFingerprint: fingerprint, rolesBuiltAt: now, volumeMoved: false });
  }
  return result;
}

/**
 * Whether the pass changed what the boards read (leaderboard_totals, leaderboard_roles): the steps that refresh totals
 * (the totals step, a settlement, a take-back, the windows' move) and the role boards. A fold or a mark alone leaves
 * its changes pending (totals.ts), so a board read before it still holds.
 */
export const changedBoards = (r: PassResult): boolean => r.reverted + r.settled + r.totals + r.rolled > 0 || r.roles !== null;

/** Whether a timer's pass brings the totals up to date (runOnce always does). */
export const totalsDue = (memory: UpdaterMemory, now: number): boolean => memory.totalsAt === undefined || now - memory.totalsAt >= TOTALS_INTERVAL_MS;

/**
 * The boards a process serves, held in memory (docs/leaderboard.md "Reads"): each board's first 300 entries, read
 * once and answered from memory until the updater of this process changes the rows, the UTC day changes, or
 * `ttlMs` passes (the bound on how stale an API process that runs no updater answers). Concurrent misses of one
 * board share one read.
 */
import { epochDay } from '../../core/leaderboard/boards.ts';
import type { Clock } from '../../core/clock.ts';
import type { LeaderboardEntry } from './types.ts';

export interface CachedBoard {
  entries: LeaderboardEntry[];
  asOf: string;
}

interface Slot {
  version: number;
  day: number;
  loadedAt: number;
  board: Promise<CachedBoard>;
}

export interface BoardCache {
  get(key: string, load: () => Promise<LeaderboardEntry[]>): Promise<CachedBoard>;
  /** The rows changed: every board is read again at its next request. */
  invalidate(): void;
}

export function createBoardCache(opts: { clock: Clock; ttlMs: number }): BoardCache {
  const slots = new Map<string, Slot>();
  let version = 0;
  return {
    get(key, load) {
      const now = opts.clock.now();
      const slot = slots.get(key);
      if (slot && slot.version === version && slot.day === epochDay(now) && now.getTime() - slot.loadedAt < opts.ttlMs) return slot.board;
      const board = load().then((entries) => ({ entries, asOf: now.toISOString() }));
      const fresh: Slot = { version, day: epochDay(now), loadedAt: now.getTime(), board };
      slots.set(key, fresh);
      // A failed read is not kept: the next request tries again.
      board.catch(() => {
        if (slots.get(key) === fresh) slots.delete(key);
      });
      return board;
    },
    invalidate() {
      version++;
    },
  };
}

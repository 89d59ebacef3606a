/**
 * Leaderboards and P&L history (docs/leaderboard.md): the boards read from precomputed rows through a per-process
 * cache, and the updater that keeps those rows current from the legs the indexer and the order loop append
 * (inbox.ts). This binds the operations of this folder.
 */
import type { Kysely } from 'kysely';
import { epochDay, isoDay, windowOf } from '../../core/leaderboard/boards.ts';
import { VALUE_UNITS } from '../../core/leaderboard/boards.ts';
import { keeperLoop } from '../keeper-loop.ts';
import { RenderedJson } from '../../core/rendered-json.ts';
import type { DB } from '../../db/schema.ts';
import { createBoardCache, type CachedBoard } from './board-cache.ts';
import type { LeaderboardDeps } from './deps.ts';
import { readBoard } from './read-board.ts';
import { readPnlHistory } from './pnl-history.ts';
import type { BoardQuery, LeaderboardPage, PnlHistory } from './types.ts';
import { changedBoards, runPass, totalsDue, type PassResult, type UpdaterMemory } from './updater.ts';

export type { LeaderboardDeps } from './deps.ts';
export type { BoardQuery, LeaderboardEntry, LeaderboardPage, PnlHistory } from './types.ts';
export type { PassResult } from './updater.ts';

/** The deepest offset a board answers (spec Limits). */
export const MAX_OFFSET = 200;

export interface LeaderboardService {
  /** A page of a board (limit 1..100, offset 0..200) serialised, from memory while its board is unchanged. */
  renderedBoard(q: PageQuery): Promise<RenderedJson<LeaderboardPage>>;
  /** A wallet's daily cumulative realized P&L. */
  pnlHistory(address: string): Promise<PnlHistory>;
  /** One updater pass now, the totals brought up to date (tests, the bench, a first start); waits for a pass in flight first. */
  runOnce(opts?: { forceRoles?: boolean }): Promise<PassResult>;
  /** The updater every intervalMs (the process that runs the indexer). */
  start(): void;
  stop(): Promise<void>;
}

type PageQuery = BoardQuery & { limit: number; offset: number };

/**
 * Legs per fold transaction: about 12 ms of the embedded database's one connection under the order bench's flow
 * (1,000 took 25-38 ms, with the totals out of the fold; docs/leaderboard.md "Maintenance").
 */
const FOLD_BATCH = 250;

/** Rendered pages kept per board; past it the oldest goes (limit × offset makes 20,000 possible pages a board). */
const PAGES_PER_BOARD = 256;

export interface LeaderboardOptions extends LeaderboardDeps {
  intervalMs: number;
  /** How long a process answers a board from memory without reading it again (default 5 s). */
  cacheTtlMs?: number;
  /** Legs per fold transaction (default FOLD_BATCH). */
  batch?: number;
  /** The database the updater's passes use (Database.background: on the embedded one they wait for the requests); default `db`. */
  background?: Kysely<DB>;
}

export function createLeaderboardService(o: LeaderboardOptions): LeaderboardService {
  const deps: LeaderboardDeps = { db: o.db, clock: o.clock, log: o.log, chainId: o.chainId, collateral: o.collateral };
  const cache = createBoardCache({ clock: o.clock, ttlMs: o.cacheTtlMs ?? 5_000 });
  const updaterDeps: LeaderboardDeps = { ...deps, db: o.background ?? o.db };
  const memory: UpdaterMemory = { rolesFingerprint: null, rolesBuiltAt: 0 };
  // Passes run one at a time, whoever asks (the loop or runOnce).
  let last: Promise<unknown> = Promise.resolve();
  // A timer's pass (forced: false) brings the totals up to date when due; runOnce always.
  const pass = (forced: boolean, forceRoles = false): Promise<PassResult> => {
    const next = last.catch(() => undefined).then(async () => {
      const due = forced || totalsDue(memory, deps.clock.now().getTime());
      const result = await runPass(updaterDeps, memory, { batch: o.batch ?? FOLD_BATCH, forceRoles, totalsDue: due });
      if (changedBoards(result)) cache.invalidate();
      return result;
    });
    last = next;
    return next;
  };
  const loop = keeperLoop({ name: 'leaderboard', pass: () => pass(false), log: o.log, intervalMs: o.intervalMs });
  // Everything in a page follows from its board: the window is the one of the day the board was read.
  const page = (q: PageQuery, { entries, asOf }: CachedBoard): LeaderboardPage => {
    const window = windowOf(q.period, epochDay(new Date(asOf)));
    const end = q.offset + q.limit;
    return {
      sort: q.sort,
      category: q.category,
      period: q.period,
      valueUnit: VALUE_UNITS[q.sort],
      window: window && { from: isoDay(window.from), to: isoDay(window.to) },
      limit: q.limit,
      offset: q.offset,
      nextOffset: end < entries.length && end <= MAX_OFFSET ? end : null,
      asOf,
      entries: entries.slice(q.offset, end),
    };
  };
  const boardOf = (q: PageQuery) => cache.get(`${q.sort}:${q.category}:${q.period}`, () => readBoard(o.db, q));
  // By board read: a new read of the board (the updater changed rows, the day turned, the TTL passed) starts afresh.
  const rendered = new WeakMap<CachedBoard, Map<string, RenderedJson<LeaderboardPage>>>();
  return {
    async renderedBoard(q) {
      const board = await boardOf(q);
      let pages = rendered.get(board);
      if (!pages) rendered.set(board, (pages = new Map()));
      const key = `${q.limit}:${q.offset}`;
      let text = pages.get(key);
      if (!text) {
        if (pages.size >= PAGES_PER_BOARD) pages.delete(pages.keys().next().value!);
        pages.set(key, (text = RenderedJson.of(page(q, board))));
      }
      return text;
    },
    pnlHistory: (address) => readPnlHistory(deps, address),
    runOnce: (opts) => pass(true, opts?.forceRoles ?? false),
    start: () => loop.start(),
    stop: async () => {
      await loop.stop();
      await last.catch(() => undefined);
    },
  };
}

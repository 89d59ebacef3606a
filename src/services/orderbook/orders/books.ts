/**
 * The in-memory books of the order-book markets, one per market, and the queue that runs a market's work in arrival
 * order: placements waiting next to each other are taken together (group commit, at most MAX_BATCH), everything
 * else (a cancel, a depth read) runs alone. A book is loaded from the market's resting orders on first use and
 * rebuilt from them whenever a transaction that changed it in memory failed, so memory never runs ahead of what
 * was committed.
 */
import type { Kysely } from 'kysely';
import type { Account } from '../../../core/ledger/types.ts';
import { OrderBook } from '../../../core/orderbook/engine.ts';
import type { OrderInput, Outcome, RestingOrder, SubmitResult, TimeInForce } from '../../../core/orderbook/types.ts';
import type { DB } from '../../../db/schema.ts';
import { ENGINE_CONFIG } from './types.ts';

/**
 * What a placement or cancel does to a book in memory: its two changes, a look at a resting order, and the agent that
 * placed one (kept beside the book, so a batch knows its makers' agents before it writes: settle-fills.ts).
 */
export interface BookChanges {
  /**
   * The engine's submit; the order, if it rests, is `agentId`'s. Answers with the result the agent of each resting
   * order it filled (`makerAgents`, by order id).
   */
  submit(order: OrderInput, agentId: string): SubmitResult & { makerAgents: ReadonlyMap<string, string> };
  cancel(orderId: string): RestingOrder | null;
  get(orderId: string): RestingOrder | null;
}

/** A market's book in memory with the agent of each of its resting orders. */
interface HeldBook {
  book: OrderBook;
  agents: Map<string, string>;
}

/** Placements taken into one batch at most: bounds one transaction's size and the wait of the last of them. */
export const MAX_BATCH = 64;
/**
 * Turns of the event loop a market's queue lets pass before it takes a batch (bench/orderbook-http.ts on PGlite: one
 * turn, 5.3 orders a batch and 408 orders/s on one market; two, 13.2 and 544; PostgreSQL unchanged).
 */
export const TURNS_BEFORE_BATCH = 2;

/**
 * Runs a batch of queued items. `take()` answers the batch: the items queued next to each other at the head of the
 * queue when it is first called (the same ones on every later call), so a runner that calls it once its transaction
 * holds a connection takes everyone who queued while it waited for one. Answers each taken item's outcome, in order.
 */
export type BatchRunner<I, R> = (take: () => I[]) => Promise<PromiseSettledResult<R>[]>;

interface AloneJob {
  kind: 'alone';
  run: () => Promise<void>;
}
interface BatchJob {
  kind: 'batch';
  group: string;
  item: unknown;
  runner: BatchRunner<unknown, unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}
type Job = AloneJob | BatchJob;

export class MarketBooks {
  readonly #db: Kysely<DB>;
  readonly #books = new Map<string, HeldBook>();
  // A market's jobs not yet taken; present while its queue is being worked through.
  readonly #queues = new Map<string, Job[]>();
  // One load of a market's book at a time, shared by everyone who asks meanwhile (depth reads too), and only
  // the latest load is cached: a load started before a rebuild or a drop never overwrites what came after.
  readonly #loads = new Map<string, Promise<HeldBook>>();

  /** Tells the database a batch's transaction will ask for a connection soon (Database.expectForeground); answers how to end that. */
  readonly #expect: () => () => void;

  constructor(db: Kysely<DB>, expect: () => () => void = () => () => undefined) {
    this.#db = db;
    this.#expect = expect;
  }

  /** Runs `fn` alone after every earlier job of the market, whether they failed or not. */
  serial<T>(marketId: bigint, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#enqueue(marketId.toString(), { kind: 'alone', run: () => Promise.resolve().then(fn).then(resolve, reject) });
    });
  }

  /**
   * Queues `item` behind every earlier job of the market. Items of one `group` queued next to each other are run
   * together by the first one's `runner` (at most MAX_BATCH), which answers each item's outcome; a job of another
   * kind in between starts a new batch, so nothing is reordered.
   */
  batched<I, R>(marketId: bigint, group: string, item: I, runner: BatchRunner<I, R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#enqueue(marketId.toString(), { kind: 'batch', group, item, runner: runner as BatchRunner<unknown, unknown>, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** The market's book, loaded from its resting orders if it is not cached. */
  async bookOf(marketId: bigint): Promise<OrderBook> {
    return (await this.#held(marketId)).book;
  }

  #held(marketId: bigint): Promise<HeldBook> {
    const key = marketId.toString();
    const cached = this.#books.get(key);
    return cached ? Promise.resolve(cached) : (this.#loads.get(key) ?? this.#load(marketId));
  }

  /**
   * Runs `change` on the market's book; if it throws after it changed the book, the book is rebuilt from the rows
   * (the database did not keep what memory did; a failed rebuild leaves nothing cached, so the next use loads again).
   */
  async changing<T>(marketId: bigint, change: (book: BookChanges) => Promise<T>): Promise<T> {
    const { book, agents } = await this.#held(marketId);
    let changed = false;
    // Marked once a change has returned: the engine changes nothing when it throws. An order that leaves the book
    // (filled, cancelled) leaves the agents' map as well, so the map holds what the book holds.
    const changes: BookChanges = {
      submit: (order, agentId) => {
        const result = book.submit(order);
        changed = true;
        const makerAgents = new Map<string, string>();
        for (const f of result.fills) {
          const agent = agents.get(f.makerOrderId);
          if (agent !== undefined) makerAgents.set(f.makerOrderId, agent);
          if (!book.get(f.makerOrderId)) agents.delete(f.makerOrderId);
        }
        if (result.resting) agents.set(order.id, agentId);
        return { ...result, makerAgents };
      },
      cancel: (orderId) => {
        const removed = book.cancel(orderId);
        changed = true;
        agents.delete(orderId);
        return removed;
      },
      get: (orderId) => book.get(orderId),
    };
    try {
      return await change(changes);
    } catch (err) {
      if (changed) await this.#load(marketId).catch(() => undefined);
      throw err;
    }
  }

  /** Drops the market's book (the next use loads it again). */
  forget(marketId: bigint): void {
    const key = marketId.toString();
    this.#loads.delete(key);
    this.#books.delete(key);
  }

  #enqueue(key: string, job: Job): void {
    const queue = this.#queues.get(key);
    if (queue) {
      queue.push(job);
      return;
    }
    const fresh = [job];
    this.#queues.set(key, fresh);
    void this.#drain(key, fresh);
  }

  /** Works through a market's queue until it is empty: a batch of the placements at its head, or the one job there. */
  async #drain(key: string, queue: Job[]): Promise<void> {
    while (queue.length > 0) {
      const head = queue[0]!;
      if (head.kind === 'alone') {
        queue.shift();
        await head.run();
        continue;
      }
      // Turns of the event loop first, so the requests already read from the network reach the queue and join. On
      // PGlite a whole request can otherwise run in one chain of microtasks (its queries do not wait on I/O), and
      // every batch would be one order; and a batch's own transaction never yields, so the requests that arrived
      // during it need a turn to be read and send their Idempotency-Key claims, and another for the claims' answer.
      // Background work waits for the batch meanwhile: the turns would otherwise let it take the connection first.
      const expected = this.#expect();
      for (let turn = 0; turn < TURNS_BEFORE_BATCH; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      let jobs: BatchJob[] | null = null;
      const take = (): BatchJob[] => {
        if (jobs) return jobs;
        expected();
        let n = 1;
        while (n < queue.length && n < MAX_BATCH && sameGroup(queue[n]!, head.group)) n++;
        jobs = queue.splice(0, n) as BatchJob[];
        return jobs;
      };
      try {
        const outcomes = await head.runner(() => take().map((j) => j.item));
        take().forEach((j, i) => {
          const o = outcomes[i];
          if (o === undefined) j.reject(new Error('order book: a batch answered fewer outcomes than it took items'));
          else if (o.status === 'fulfilled') j.resolve(o.value);
          else j.reject(o.reason);
        });
      } catch (err) {
        for (const j of take()) j.reject(err);
      } finally {
        expected();
      }
    }
    this.#queues.delete(key);
  }

  /** Rebuilds a market's book from its resting orders (replacing whatever is cached). */
  #load(marketId: bigint): Promise<HeldBook> {
    const key = marketId.toString();
    this.#books.delete(key);
    const load = restingBook(this.#db, key);
    this.#loads.set(key, load);
    const settle = (book: HeldBook | null) => {
      if (this.#loads.get(key) !== load) return;
      this.#loads.delete(key);
      if (book) this.#books.set(key, book);
    };
    load.then(settle, () => settle(null));
    return load;
  }
}

const sameGroup = (job: Job, group: string): boolean => job.kind === 'batch' && job.group === group;

/** A fresh book holding the market's resting orders, and their agents. */
async function restingBook(db: Kysely<DB>, marketId: string): Promise<HeldBook> {
  const book = new OrderBook(ENGINE_CONFIG);
  const rows = await db.selectFrom('orders').selectAll().where('market_id', '=', marketId).where('status', '=', 'resting').orderBy('seq').execute();
  book.restore(rows.map(toResting));
  return { book, agents: new Map(rows.map((r) => [r.id, r.agent_id])) };
}

function toResting(r: { id: string; owner: string; outcome: number; action: 'buy' | 'sell'; price_bps: number; shares: string; remaining: string; tif: TimeInForce; post_only: boolean; seq: string }): RestingOrder {
  return {
    id: r.id,
    owner: r.owner as Account,
    outcome: r.outcome as Outcome,
    action: r.action,
    priceBps: r.price_bps,
    shares: BigInt(r.shares),
    remaining: BigInt(r.remaining),
    tif: r.tif,
    postOnly: r.post_only,
    seq: BigInt(r.seq),
  };
}

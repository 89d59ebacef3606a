/**
 * The in-memory books of the order-book markets, one per market, and the queue that runs a market's placements,
 * cancels and depth reads one at a time. A book is loaded from the market's resting orders on first use and
 * rebuilt from them whenever a transaction that changed it in memory failed, so memory never runs ahead of what
 * was committed.
 */
import type { Kysely } from 'kysely';
import type { Account } from '../../../core/ledger/types.ts';
import { OrderBook } from '../../../core/orderbook/engine.ts';
import type { Outcome, RestingOrder, TimeInForce } from '../../../core/orderbook/types.ts';
import type { DB } from '../../../db/schema.ts';
import { ENGINE_CONFIG } from './types.ts';

/** The two changes a placement or cancel makes to a book in memory. */
export type BookChanges = Pick<OrderBook, 'submit' | 'cancel'>;

export class MarketBooks {
  readonly #db: Kysely<DB>;
  readonly #books = new Map<string, OrderBook>();
  readonly #queues = new Map<string, Promise<unknown>>();
  // One load of a market's book at a time, shared by everyone who asks meanwhile (depth reads too), and only
  // the latest load is cached: a load started before a rebuild or a drop never overwrites what came after.
  readonly #loads = new Map<string, Promise<OrderBook>>();

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  /** Runs `fn` after every earlier placement, cancel and depth read of the market, whether they failed or not. */
  serial<T>(marketId: bigint, fn: () => Promise<T>): Promise<T> {
    const key = marketId.toString();
    const next = (this.#queues.get(key) ?? Promise.resolve()).then(fn, fn);
    this.#queues.set(key, next.catch(() => undefined));
    return next;
  }

  /** The market's book, loaded from its resting orders if it is not cached. */
  bookOf(marketId: bigint): Promise<OrderBook> {
    const key = marketId.toString();
    const cached = this.#books.get(key);
    return cached ? Promise.resolve(cached) : (this.#loads.get(key) ?? this.#load(marketId));
  }

  /**
   * Runs `change` on the market's book; if it throws after it changed the book, the book is rebuilt from the rows
   * (the database did not keep what memory did; a failed rebuild leaves nothing cached, so the next use loads again).
   */
  async changing<T>(marketId: bigint, change: (book: BookChanges) => Promise<T>): Promise<T> {
    const book = await this.bookOf(marketId);
    let changed = false;
    // Marked once a change has returned: the engine changes nothing when it throws.
    const marking = <A, R>(fn: (arg: A) => R) => (arg: A): R => {
      const result = fn(arg);
      changed = true;
      return result;
    };
    try {
      return await change({ submit: marking((order) => book.submit(order)), cancel: marking((orderId) => book.cancel(orderId)) });
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

  /** Rebuilds a market's book from its resting orders (replacing whatever is cached). */
  #load(marketId: bigint): Promise<OrderBook> {
    const key = marketId.toString();
    this.#books.delete(key);
    const load = restingBook(this.#db, key);
    this.#loads.set(key, load);
    const settle = (book: OrderBook | null) => {
      if (this.#loads.get(key) !== load) return;
      this.#loads.delete(key);
      if (book) this.#books.set(key, book);
    };
    load.then(settle, () => settle(null));
    return load;
  }
}

/** A fresh book holding the market's resting orders. */
async function restingBook(db: Kysely<DB>, marketId: string): Promise<OrderBook> {
  const book = new OrderBook(ENGINE_CONFIG);
  const rows = await db.selectFrom('orders').selectAll().where('market_id', '=', marketId).where('status', '=', 'resting').orderBy('seq').execute();
  book.restore(rows.map(toResting));
  return book;
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

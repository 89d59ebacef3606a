/**
 * What a placement looks up before it queues, kept once known: an agent's bound wallet never changes, nor does a
 * market's address, model and ledger id (a re-mined creation aside, which the placement's transaction checks under
 * the market row's lock). Whether the market takes orders is not kept: the transaction checks that too. With both
 * known, a placement reads nothing before it joins its market's queue.
 */
import type { OrderBookMarket } from './tradeable-market.ts';
import type { Trader } from './trader.ts';

/** Entries kept per map; past it the oldest go (a later placement just reads again). */
const MAX_ENTRIES = 100_000;

class Known<V> {
  readonly #entries = new Map<string, V>();

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, value);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

export class Lookups {
  /** By agent id. */
  readonly traders = new Known<Trader>();
  /** By address, lower case. */
  readonly markets = new Known<OrderBookMarket>();
}

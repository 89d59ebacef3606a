/**
 * Places an order (POST /orderbook/place-order): the order joins its market's queue, and the placements waiting
 * there are placed together in one transaction (group commit, placeBatch): each matched by the market's book in
 * memory in arrival order, their rows, fills settled in the ledger and every owner's order events written once for
 * the batch, in the lock order of docs/orderbook.md "Concurrency". If that transaction fails for any reason but a
 * refusal of the whole batch, each of its orders is tried again alone, so only an order that fails by itself fails.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { problem } from '../../../core/error-codes.ts';
import type { Principal } from '../../../core/principal.ts';
import { baseUnitsOfShares, bpsOfPrice, priceOfBps, sharesOfBaseUnits } from '../../../core/orderbook/units.ts';
import type { FillAllowanceError } from './allowance.ts';
import { TURNS_BEFORE_BATCH, type BookChanges, type MarketBooks } from './books.ts';
import { retryingDeadlocks, type BusyError } from './locks.ts';
import type { Lookups } from './lookups.ts';
import { BatchRefused, placeBatch, type Placement } from './place-batch.ts';
import { PhaseClock, SLOW_TRANSACTION_MS } from './round-phases.ts';
import { PlacementRounds, type RoundEntry } from './rounds.ts';
import type { InsufficientBalanceError } from './reservations.ts';
import { openMarketOf, type MarketError, type OrderBookMarket } from './tradeable-market.ts';
import { walletOf, type Trader, type TraderError } from './trader.ts';
import type { StoredEvent } from '../../events/outbox.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import { ENGINE_CONFIG, type OrderBookDeps, type OrderLoopError, type OrderTerms, type OrderView, type PlaceOrderInput, type PlacementStats } from './types.ts';

/** What the placements' transactions need (a round, a market's batch, an order alone). */
type RoundDeps = OrderBookDeps & { books: MarketBooks; lookups: Lookups; stats: PlacementStats };
export type PlaceOrderDeps = RoundDeps & { rounds: PlacementRounds<Placement, OrderView> };
export interface PlaceOrderParams {
  principal: Principal;
  order: PlaceOrderInput;
  /** Under an Idempotency-Key: records the placement (by order id) in the transaction that places it, exactly once. */
  recordEffect?: EffectRecorder;
}
/** The order with its fills so far, as the transaction wrote them. */
export type PlaceOrderResult = OrderView;
export type PlaceOrderError = TraderError | MarketError | OrderLoopError<'INVALID_PAYLOAD'> | FillAllowanceError | InsufficientBalanceError | BusyError;

/** The queue group of placements (what batches together). */
const PLACEMENTS = 'place';

/**
 * With the trader and the market already known (an earlier placement looked them up), nothing is awaited before the
 * order joins its market's queue: orders placed in one turn join it in the order they were placed.
 */
export async function placeOrder(deps: PlaceOrderDeps, { principal, order, recordEffect }: PlaceOrderParams): Promise<PlaceOrderResult> {
  const terms = termsOf(order);
  const trader = (principal.agentId ? deps.lookups.traders.get(principal.agentId) : undefined) ?? (await lookUpTrader(deps, principal));
  const market = deps.lookups.markets.get(order.market.toLowerCase()) ?? (await lookUpMarket(deps, order.market));
  const placement: Placement = { orderId: randomUUID(), trader, market, order: terms, recordEffect };
  return deps.books.batched(market.marketId, PLACEMENTS, placement, (take) => deps.rounds.join(market.marketId, take));
}

/** The rounds of a service's placements (rounds.ts): what runs each round. */
export function placementRounds(deps: RoundDeps): PlacementRounds<Placement, OrderView> {
  // A market's queue joins its round after its own turns: a round waits one more for the markets due with it.
  return new PlacementRounds((round) => placeRound(deps, round), TURNS_BEFORE_BATCH + 1);
}

/**
 * One round: a single market's batch as it always ran (placeQueued); several markets' batches in one transaction, and
 * if that fails for any reason (a refusal of one market's batch, a failed write, a deadlock past its retries), each
 * market's batch again on its own, exactly as if it had been alone.
 */
async function placeRound(deps: RoundDeps, round: readonly RoundEntry<Placement, OrderView>[]): Promise<void> {
  if (round.length > 1) {
    const outcomes = await commit(deps, round).catch(() => null);
    if (outcomes) {
      round.forEach((entry, i) => entry.resolve(outcomes[i]!));
      return;
    }
  }
  for (const entry of round) {
    try {
      entry.resolve(await placeQueued(deps, entry.marketId, entry.take));
    } catch (err) {
      entry.reject(err);
    }
  }
}

async function lookUpTrader(deps: PlaceOrderDeps, principal: Principal): Promise<Trader> {
  const trader = await walletOf(deps, principal);
  deps.lookups.traders.set(trader.agentId, trader);
  return trader;
}

async function lookUpMarket(deps: PlaceOrderDeps, address: string): Promise<OrderBookMarket> {
  const market = await openMarketOf(deps, address);
  deps.lookups.markets.set(market.address, market);
  return market;
}

/**
 * Places the batch at the head of the market's queue, taken once its transaction holds a connection (everyone who
 * queued while it waited for one joins); answers each placement's outcome in the batch's order.
 */
async function placeQueued(deps: RoundDeps, marketId: bigint, take: () => Placement[]): Promise<PromiseSettledResult<OrderView>[]> {
  try {
    return (await commit(deps, [{ marketId, take }]))[0]!;
  } catch (err) {
    const batch = take();
    const refused = refusalOf(deps, batch, err);
    if (refused || batch.length === 1) return batch.map(() => ({ status: 'rejected', reason: refused ?? err }));
    // The batch failed as a whole (a database error, a failed write of one order, a deadlock that outlasted the
    // retries): alone, each order meets only its own failure. The book was rebuilt from the rows meanwhile.
    const outcomes: PromiseSettledResult<OrderView>[] = [];
    for (const p of batch) {
      try {
        outcomes.push(...(await commit(deps, [{ marketId, take: () => [p] }]))[0]!);
      } catch (alone) {
        outcomes.push({ status: 'rejected', reason: refusalOf(deps, batch, alone) ?? alone });
      }
    }
    return outcomes;
  }
}

/**
 * One transaction for the batches of one market or several (tried again on a deadlock); each market's book is rebuilt
 * from the rows if it fails. Its outbox events go to the event bus as written, once committed (no read of them back).
 * Answers each market's placements' outcomes, in the order of `markets`.
 */
async function commit(deps: RoundDeps, markets: readonly { marketId: bigint; take: () => Placement[] }[]): Promise<PromiseSettledResult<OrderView>[][]> {
  const started = performance.now();
  let published: StoredEvent[] = [];
  // The phases of the attempt that committed (an attempt the database broke as a deadlock counts in transactionMs only).
  let phases = new PhaseClock();
  const outcomes = await retryingDeadlocks(() =>
    changingAll(
      deps.books,
      markets.map((m) => m.marketId),
      async (books) => {
        published = [];
        phases = new PhaseClock();
        const placed = await deps.db.transaction().execute((trx) =>
          placeBatch(
            deps,
            trx,
            markets.map((m, i) => {
              const placements = m.take();
              return { market: placements[0]!.market, book: books[i]!, placements };
            }),
            { published: (events) => published.push(...events), phases },
          ),
        );
        phases.end('commit');
        return placed;
      },
    ),
  );
  const placed = outcomes.flat().filter((o) => o.status === 'fulfilled').length;
  const ms = performance.now() - started;
  deps.stats.transactionMs += ms;
  phases.countIn(deps.stats, placed);
  if (ms >= SLOW_TRANSACTION_MS) phases.countIn(deps.stats.slow, placed);
  if (published.length > 0) deps.events.committed(published);
  else deps.events.notify();
  return outcomes;
}

/** Runs `change` on the books of `marketIds` (distinct), in their order; each is rebuilt from the rows if it fails. */
function changingAll<T>(books: MarketBooks, marketIds: readonly bigint[], change: (books: BookChanges[]) => Promise<T>): Promise<T> {
  if (marketIds.length === 0) return change([]);
  return books.changing(marketIds[0]!, (first) => changingAll(books, marketIds.slice(1), (rest) => change([first, ...rest])));
}

/** The problem that refused the whole batch, if that is how it failed. */
function refusalOf(deps: RoundDeps, batch: readonly Placement[], err: unknown): Error | null {
  if (!(err instanceof BatchRefused)) return null;
  const { market } = batch[0]!;
  // Another process holds the book now: what memory has may be overtaken by its placements; the next use loads it.
  if (err.by === 'fence') deps.books.forget(market.marketId);
  // The market stopped trading or was registered again under another id: the next placement looks it up afresh.
  else deps.lookups.markets.delete(market.address);
  return err.problem;
}

/**
 * The order's terms in the engine's units (basis points, whole shares). A price off the tick or out of range, or a
 * size that is not a whole number of shares or below the minimum, is a 400 that says what is allowed (the engine
 * would refuse it with a RangeError).
 */
function termsOf(order: PlaceOrderInput): OrderTerms {
  const { tickBps, minShares } = ENGINE_CONFIG;
  const { price, shares } = order;
  const priceBps = bpsOfPrice(price);
  if (priceBps === null || priceBps % tickBps !== 0 || priceBps < tickBps || priceBps > 10_000 - tickBps) {
    throw problem('INVALID_PAYLOAD', `price must be a decimal on the ${priceOfBps(tickBps)} tick between ${priceOfBps(tickBps)} and ${priceOfBps(10_000 - tickBps)}, e.g. "0.57"; got "${price}"`);
  }
  const whole = sharesOfBaseUnits(shares);
  if (whole === null || whole < minShares) {
    throw problem('INVALID_PAYLOAD', `shares are base units, a whole number of shares (one share = ${baseUnitsOfShares(1n)}) of at least ${baseUnitsOfShares(minShares)}; got ${shares}`);
  }
  return { outcome: order.outcome, action: order.action, priceBps, shares: whole, tif: order.tif, postOnly: order.postOnly };
}


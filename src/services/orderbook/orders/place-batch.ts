/**
 * One transaction for a batch of placements on one market (group commit, docs/orderbook.md "The order loop"): the
 * fence, the owners' locks and the market row, then each order in arrival order — its checks against what the
 * earlier orders of the batch left, its matching in the book — and then the batch's writes (settleFills), the last of
 * them with each order's Idempotency-Key record and answer. An order refused by its checks answers its own problem and writes nothing; anything else thrown
 * fails the whole transaction.
 */
import type { Transaction } from 'kysely';
import { isProblemError, type ProblemError } from '../../../core/errors.ts';
import { COLLATERAL_ASSET, MATCH_KINDS, outcomeAsset } from '../../../core/ledger/types.ts';
import type { Fill, OrderAction, SubmitResult } from '../../../core/orderbook/types.ts';
import { runStepsAfter, type Step } from '../../../db/pipeline.ts';
import { takeNumbers } from '../../../db/sequences.ts';
import type { DB } from '../../../db/schema.ts';
import type { StoredEvent } from '../../events/outbox.ts';
import { ClaimTakenOver, type EffectRecorder } from '../../idempotency/idempotency.ts';
import { Allowances } from './allowance.ts';
import type { BookChanges } from './books.ts';
import { lockOwners } from './locks.ts';
import { renderView } from './order-view.ts';
import type { PhaseClock } from './round-phases.ts';
import { Availability, reservationOf, reservedAssetOf } from './reservations.ts';
import { matchOf, settleFills, type BatchFill, type MakerChange, type PlacedOrder, type SettledOrders } from './settle-fills.ts';
import { lockOpenMarket, type OrderBookMarket } from './tradeable-market.ts';
import type { Trader } from './trader.ts';
import type { OrderBookDeps, OrderTerms, OrderView } from './types.ts';

/** One order waiting in its market's queue: its id (kept across attempts), its trader and market, its terms in the engine's units. */
export interface Placement {
  orderId: string;
  trader: Trader;
  market: OrderBookMarket;
  order: OrderTerms;
  /** Under an Idempotency-Key: records the placement (by order id, with its answer) in the transaction that places it. */
  recordEffect?: EffectRecorder;
}

/**
 * The whole batch is refused with one problem, before anything was written: by the fence (another process holds the
 * market's book) or by the market row (the market stopped trading, or has another id now).
 */
export class BatchRefused extends Error {
  readonly problem: ProblemError;
  readonly by: 'fence' | 'market';

  constructor(refusal: ProblemError, by: 'fence' | 'market') {
    super(refusal.message, { cause: refusal });
    this.problem = refusal;
    this.by = by;
  }
}

/** `make`'s step, a problem it throws (making it or reading its answer) refusing the whole batch. */
function refusingBatch<T>(by: BatchRefused['by'], make: () => Step<T> | null | undefined): Step<T> | null {
  const refuse = (err: unknown) => (isProblemError(err) ? new BatchRefused(err, by) : err);
  try {
    const step = make();
    if (!step) return null;
    return {
      query: step.query,
      read: (result) => {
        try {
          return step.read(result);
        } catch (err) {
          throw refuse(err);
        }
      },
    };
  } catch (err) {
    throw refuse(err);
  }
}

/** A market's share of a batch: its book in memory and its placements, in their arrival order. */
export interface MarketPlacements {
  market: OrderBookMarket;
  book: BookChanges;
  placements: readonly Placement[];
}

/**
 * The transaction of a batch of placements on one market or several (a round, rounds.ts); answers each market's
 * placements' outcomes, in their order. The markets' fences and rows are locked in market id order; their orders
 * meet their books market after market, each against what the earlier ones left (an owner's collateral is one
 * balance whatever the market); then one set of writes for all of them.
 */
export async function placeBatch(
  deps: OrderBookDeps,
  trx: Transaction<DB>,
  parts: readonly MarketPlacements[],
  { published, phases }: { published?: (events: StoredEvent[]) => void; phases?: PhaseClock } = {},
): Promise<PromiseSettledResult<OrderView>[][]> {
  const sorted = [...parts].sort((a, b) => (a.market.marketId < b.market.marketId ? -1 : a.market.marketId > b.market.marketId ? 1 : 0));
  const batch = sorted.flatMap((part) => part.placements);
  const owners = [...new Set(batch.map((p) => p.trader.owner))];
  const agents = [...new Set(batch.map((p) => p.trader.agentId))];
  // Retries of answered requests: their keys' records, read first in the pipeline below (deferred by the recorders).
  const keyTaken = batch.map((p) => p.recordEffect?.alreadyRecorded?.(trx) ?? Promise.resolve(false));
  for (const taken of keyTaken) taken.catch(() => undefined); // awaited after the pipeline; its failure fails the batch there
  // The locks in their order, then the reads they protect: one pipeline (each statement sees what the ones before it locked).
  const fences = sorted.map((part) => refusingBatch('fence', () => deps.fence?.(trx, part.market.marketId)));
  const rows = sorted.map((part) => refusingBatch('market', () => lockOpenMarket(deps, part.market)));
  const [seqs, available, read] = await runStepsAfter(trx, [...fences, lockOwners(owners), ...rows], [
    reserveSeqs(batch.length),
    Availability.read(
      trx,
      deps.ledger.feeAccount,
      batch.map((p) => ({ owner: p.trader.owner, asset: reservedAssetOf(p.market.marketId, p.order) })),
    ),
    Allowances.read(deps, trx, agents),
  ] as const);
  const allowances = read ?? Allowances.none(deps, trx);
  const recorded = await Promise.all(keyTaken);
  phases?.end('reads');

  const states: BatchState[] = [];
  const outcomes: (PlacedOrder | ProblemError)[][] = [];
  let at = 0;
  for (const { market, book, placements } of sorted) {
    const done = new BatchState(market, available, allowances);
    const own: (PlacedOrder | ProblemError)[] = [];
    for (const p of placements) {
      const i = at++;
      if (recorded[i]) {
        // Its key's record answers it (execute.ts): it places nothing.
        own.push(new ClaimTakenOver());
        continue;
      }
      try {
        await allowances.require(p.trader);
        available.require(p.trader.owner, market.marketId, p.order);
      } catch (err) {
        if (!isProblemError(err)) throw err;
        own.push(err);
        continue;
      }
      const result = book.submit({ id: p.orderId, owner: p.trader.owner, ...p.order, seq: seqs[i]! }, p.trader.agentId);
      for (const { fill, makerRemaining } of withMakerRemainders(book, result.fills)) done.filled(fill, makerRemaining, p.trader.agentId, result.makerAgents.get(fill.makerOrderId) ?? null);
      own.push(done.placed(p, seqs[i]!, result));
    }
    states.push(done);
    outcomes.push(own);
  }

  // Each order's answer is what the transaction wrote for it (no fill of it can be in a committed batch yet), rendered
  // once it is known: its Idempotency-Key record keeps it. The records go in one statement with the batch's last writes
  // (each recorder defers its row to the transaction's next pipeline); all are awaited before the transaction commits.
  const views = new Map<string, OrderView>();
  const effects: Promise<void>[] = [];
  const answered = (settled: SettledOrders) => {
    for (const [orderId, { row, fills }] of settled) views.set(orderId, renderView(row, fills));
    for (const p of batch) {
      const view = views.get(p.orderId);
      if (!view || !p.recordEffect) continue;
      const effect = p.recordEffect(trx, p.orderId, view);
      effect.catch(() => undefined); // handled by the Promise.all below, even when it fails before that runs
      effects.push(effect);
    }
  };
  const makers = new Map(states.flatMap((done) => [...done.makers]));
  await settleFills(deps, trx, {
    placed: states.flatMap((done) => [...done.placedById.values()]),
    fills: states.flatMap((done) => done.fills),
    makers,
    reservations: available.changes(),
    allowances,
    answered,
    published,
    phases,
  });
  await Promise.all(effects);
  const answer = (o: PlacedOrder | ProblemError): PromiseSettledResult<OrderView> => ('orderId' in o ? { status: 'fulfilled', value: views.get(o.orderId)! } : { status: 'rejected', reason: o });
  // In the callers' order of the markets.
  return parts.map((part) => outcomes[sorted.indexOf(part)]!.map(answer));
}

/**
 * What the batch has done so far, in memory: its placed orders, its fills and the resting orders from before it that
 * it filled, with the owners' available balances and allowances kept in step for the next order's checks.
 */
class BatchState {
  readonly placedById = new Map<string, PlacedOrder>();
  readonly fills: BatchFill[] = [];
  readonly makers = new Map<string, MakerChange>();

  readonly #market: OrderBookMarket;
  readonly #available: Availability;
  readonly #allowances: Allowances;

  constructor(market: OrderBookMarket, available: Availability, allowances: Allowances) {
    this.#market = market;
    this.#available = available;
    this.#allowances = allowances;
  }

  /**
   * A fill of the current order: the ledger moves, both owners count a fill, the maker reserves less and has less left.
   * `makerAgent`: the maker's agent as the book knows it (null: unknown, read from its row).
   */
  filled(fill: Fill, makerRemaining: bigint, takerAgent: string, makerAgent: string | null): void {
    this.#available.settle(matchOf(this.#market.marketId, fill));
    this.#allowances.count(fill.maker);
    this.#allowances.count(fill.taker);
    const action = makerActionOf(fill);
    const asset = action === 'buy' ? COLLATERAL_ASSET : outcomeAsset(this.#market.marketId, fill.side);
    this.#available.reserve(fill.maker, asset, reservationOf(action, fill.priceBps, makerRemaining) - reservationOf(action, fill.priceBps, makerRemaining + fill.shares));
    const inBatch = this.placedById.get(fill.makerOrderId);
    if (inBatch) {
      const f = inBatch.final;
      inBatch.final = { ...f, filled: f.filled + fill.shares, remaining: makerRemaining, status: makerRemaining === 0n ? 'filled' : 'resting' };
    } else {
      const before = this.makers.get(fill.makerOrderId);
      this.makers.set(fill.makerOrderId, { action, priceBps: fill.priceBps, remaining: makerRemaining, filled: (before?.filled ?? 0n) + fill.shares });
    }
    this.fills.push({ market: this.#market, fill, takerAgent, makerRemaining, makerAgent: inBatch?.agentId ?? makerAgent });
  }

  /** The order after its matching: what it left resting is reserved. */
  placed(p: Placement, seq: bigint, result: SubmitResult): PlacedOrder {
    const remaining = result.resting?.remaining ?? 0n;
    this.#available.reserve(p.trader.owner, reservedAssetOf(this.#market.marketId, p.order), reservationOf(p.order.action, p.order.priceBps, remaining));
    const state = { filled: result.fills.reduce((n, f) => n + f.shares, 0n), remaining, status: result.status, reason: result.reason };
    const placed: PlacedOrder = { orderId: p.orderId, market: this.#market, agentId: p.trader.agentId, owner: p.trader.owner, order: p.order, seq, result, placedAs: state, final: state };
    this.placedById.set(p.orderId, placed);
    return placed;
  }
}

/**
 * Seqs (time priority in the book) for the batch's orders, one per order in arrival order, taken from the orders.seq
 * column's sequence before matching; a refused order's is never used.
 */
function reserveSeqs(n: number): Step<bigint[]> {
  const numbers = takeNumbers('orders.seq', n);
  return { query: numbers.query, read: (result) => numbers.read(result).map(BigInt) };
}

/** The resting order's action in a fill: it sells in a TRANSFER and a MERGE, buys in a TAKER_SELLS and a MINT. */
function makerActionOf(fill: Fill): OrderAction {
  return fill.kind === MATCH_KINDS.TRANSFER || fill.kind === MATCH_KINDS.MERGE ? 'sell' : 'buy';
}

/** The submit's fills, each with what its maker had left after it (the book shows what is left after the last). */
function withMakerRemainders(book: BookChanges, fills: readonly Fill[]): { fill: Fill; makerRemaining: bigint }[] {
  const left = new Map<string, bigint>();
  const out: { fill: Fill; makerRemaining: bigint }[] = [];
  for (let i = fills.length - 1; i >= 0; i--) {
    const fill = fills[i]!;
    const after = left.get(fill.makerOrderId) ?? book.get(fill.makerOrderId)?.remaining ?? 0n;
    left.set(fill.makerOrderId, after + fill.shares);
    out.push({ fill, makerRemaining: after });
  }
  return out.reverse();
}

/**
 * The order loop's shared vocabulary (docs/orderbook.md "The order loop"): what its operations take and answer, the
 * engine configuration every book is built with, and the reasons a market's orders are cancelled when it ends.
 */
import type { Kysely, Transaction } from 'kysely';
import type { z } from 'zod';
import type { Clock } from '../../../core/clock.ts';
import type { ErrorCode } from '../../../core/error-codes.ts';
import type { ProblemError } from '../../../core/errors.ts';
import { ORDERBOOK_FEES } from '../../../core/markets/fees.ts';
import type { OrderInput } from '../../../core/orderbook/types.ts';
import type { Step } from '../../../db/pipeline.ts';
import type { DB } from '../../../db/schema.ts';
import type { OrderSchema } from '../../../wire/orders.ts';
import type { EventBus } from '../../events/bus.ts';
import type { LedgerService } from '../../ledger/ledger.ts';
import type { PhaseTally } from './round-phases.ts';

export const ENGINE_CONFIG = { tickBps: ORDERBOOK_FEES.tickBps, minShares: BigInt(ORDERBOOK_FEES.minShares), takerFeeBps: ORDERBOOK_FEES.takerFeeBps };

/** The reason of orders cancelled because their market was voided (its creation reorged out). */
export const MARKET_VOID = 'MARKET_VOID';
/** The reason of orders cancelled because their market reached its close time. */
export const MARKET_CLOSED = 'MARKET_CLOSED';
/** The reason of orders cancelled because the operator took their market down (docs/markets.md "Controls"). */
export const MARKET_TAKEN_DOWN = 'MARKET_TAKEN_DOWN';
export type MarketEndReason = typeof MARKET_VOID | typeof MARKET_CLOSED | typeof MARKET_TAKEN_DOWN;

/**
 * A new order as the caller names it, in the wire's units (docs/units.md): `price` a decimal string on the tick,
 * `shares` base units (a whole number of shares, one share = SHARE_VALUE).
 */
export type PlaceOrderInput = Omit<OrderTerms, 'priceBps' | 'shares'> & { market: string; price: string; shares: bigint };

/** An order's terms in the engine's units (basis points, whole shares): the engine's order without what the service assigns. */
export type OrderTerms = Omit<OrderInput, 'id' | 'owner' | 'seq'>;

/** An order as the order loop answers it (the catalog's Order schema). */
export type OrderView = z.output<typeof OrderSchema>;

/** One order event as listed: its per-agent seq, type and order, plus the type's fields. */
export interface OrderEvent {
  seq: string;
  type: string;
  orderId: string;
  at: string;
  [field: string]: unknown;
}

/** What the order loop runs on; each operation names the part of it that it uses. */
export interface OrderBookDeps {
  db: Kysely<DB>;
  /** Database.expectForeground: a market's queue gathering a batch holds background work back until it asks. */
  expect?: () => () => void;
  clock: Clock;
  ledger: LedgerService;
  events: EventBus;
  chainId: number;
  fills: { enabled: boolean; freePerMonth: number };
  /**
   * An agent's free fills per month under its reputation tier (docs/reputation.md "Gates"), read with the caller's
   * executor (the placement's transaction) and only for an agent that has used at least `fewestFreeFills` this month;
   * `fills.freePerMonth` for everyone when not given.
   */
  freeFillsOf?: (db: Kysely<DB>, agentId: string) => Promise<number>;
  /** The fewest free fills per month `freeFillsOf` answers for any agent (0, the safe default, reads every tier). */
  fewestFreeFills?: number;
  /**
   * The first statement of every transaction that changes a market's book (a batch of placements, a cancel); it (or
   * reading its answer) throws to refuse the whole transaction (the market's book is owned by another process). A ProblemError it throws is the
   * answer of every order of the batch (none is retried alone) or of the cancel, and the market's book is dropped
   * from memory (the next use loads it from the rows).
   */
  fence?: (trx: Transaction<DB>, marketId: bigint) => Step<void> | null;
}

/** What the placement transactions did since the service started (group commit: orders per transaction). */
export interface PlacementStats extends PhaseTally {
  /**
   * Milliseconds those transactions took, each from its start to its commit (deadlock retries included). Rounds run one
   * after another (rounds.ts), so over a stretch of time this says how much of it a placement transaction was running.
   */
  transactionMs: number;
  /** The transactions of SLOW_TRANSACTION_MS or more (round-phases.ts), their orders and phases. */
  slow: PhaseTally;
}

/** The problem an operation throws with one of `C` as its code (the edge maps the code to a status). */
export type OrderLoopError<C extends ErrorCode> = ProblemError & { readonly code: C };

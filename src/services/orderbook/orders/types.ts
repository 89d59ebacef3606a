/**
 * The order loop's shared vocabulary (docs/orderbook.md "The order loop"): what its operations take and answer, the
 * engine configuration every book is built with, and the reasons a market's orders are cancelled when it ends.
 */
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Clock } from '../../../core/clock.ts';
import type { ErrorCode } from '../../../core/error-codes.ts';
import type { ProblemError } from '../../../core/errors.ts';
import { ORDERBOOK_FEES } from '../../../core/markets/fees.ts';
import type { OrderInput } from '../../../core/orderbook/types.ts';
import type { DB } from '../../../db/schema.ts';
import type { OrderSchema } from '../../../wire/orders.ts';
import type { EventBus } from '../../events/bus.ts';
import type { LedgerService } from '../../ledger/ledger.ts';

export const ENGINE_CONFIG = { tickBps: ORDERBOOK_FEES.tickBps, minShares: BigInt(ORDERBOOK_FEES.minShares), takerFeeBps: ORDERBOOK_FEES.takerFeeBps };

/** The reason of orders cancelled because their market was voided (its creation reorged out). */
export const MARKET_VOID = 'MARKET_VOID';
/** The reason of orders cancelled because their market reached its close time. */
export const MARKET_CLOSED = 'MARKET_CLOSED';
export type MarketEndReason = typeof MARKET_VOID | typeof MARKET_CLOSED;

/** A new order as the caller names it: the engine's order without what the service assigns, on `market`. */
export type PlaceOrderInput = Omit<OrderInput, 'id' | 'owner' | 'seq'> & { market: string };

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
  clock: Clock;
  ledger: LedgerService;
  events: EventBus;
  chainId: number;
  fills: { enabled: boolean; freePerMonth: number };
}

/** The problem an operation throws with one of `C` as its code (the edge maps the code to a status). */
export type OrderLoopError<C extends ErrorCode> = ProblemError & { readonly code: C };

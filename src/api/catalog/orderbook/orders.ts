// The order-book loop of play-money ORDERBOOK markets (docs/orderbook.md): place, cancel, confirm a
// cancellation, list order events after a sequence number, and list the caller's orders. Fills settle in the ledger.
import { z } from 'zod';
import { ORDERBOOK_FEES } from '../../../core/markets/fees.ts';
import { priceOfBps } from '../../../core/orderbook/units.ts';
import { PriceString } from '../../../wire/markets.ts';
import { ChainId, ChainIdQuery, EvmAddress, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { Digits, ORDERBOOK_MIN_SHARES, ORDERBOOK_TICK, OrderId, OrderSchema, OrderStatusSchema } from '../../../wire/orders.ts';
import { defineCapability } from '../types.ts';

// Units (docs/units.md): a price is an exact decimal string in (0, 1); shares are base units, one share = 1000000.
const PlaceBody = z.strictObject({
  market: EvmAddress,
  outcome: z.union([z.literal(0), z.literal(1)]),
  action: z.enum(['buy', 'sell']),
  price: PriceString.describe(`the limit price of the outcome, an exact decimal string on the ${ORDERBOOK_TICK} tick, from ${ORDERBOOK_TICK} to ${priceOfBps(10_000 - ORDERBOOK_FEES.tickBps)} (e.g. "0.57")`),
  shares: WeiString.max(45).describe(`shares in base units, a whole number of shares (one share = 1000000), at least ${ORDERBOOK_MIN_SHARES}`),
  tif: z.enum(['GTC', 'IOC', 'FOK']).default('GTC'),
  postOnly: z.boolean().default(false),
  chainId: ChainId.optional(),
});

export const placeOrder = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/orderbook/place-order',
  category: 'orderbook',
  summary: 'Place an order on a play-money order book',
  description: `Buys or sells shares of one outcome of an ORDERBOOK market at a limit price (a decimal string on the ${ORDERBOOK_TICK} tick; shares in base units, one share = 1000000). Price-time priority; a buy of one outcome also matches a buy of the other at ≥ 1 − price (the shares are minted), a sell matches a sell of the other (merged back to play money), and a buy matches a sell of the same outcome. GTC rests what does not fill, IOC cancels it, FOK fills completely or not at all; postOnly is refused if it would match. An order that would meet another order of the same wallet stops there (self-trade prevention). The taker pays ${ORDERBOOK_FEES.takerFeeBps} bps of its notional. The order reserves the play money or shares it can spend (ledger balance minus other resting orders). Every fill settles in the ledger at once and is final when its batch is committed on chain. A new order with no fills remaining answers 402 FILL_ALLOWANCE_EXHAUSTED.`,
  tier: 'execute',
  scopes: ['trade:execute'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'its fills are final only once a ledger batch is committed on chain, so it is refused while the node is down',
  mcp: { tool: 'svc_orderbook_place_order' },
  walletSession: 'principal',
  // Runs in the process that holds the market's book (docs/operations.md "Routing").
  route: { market: (raw) => (raw.body as { market?: unknown } | null)?.market },
  input: { body: PlaceBody },
  output: OrderSchema,
  outputName: 'Order',
  successStatus: 201,
  errors: ['UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'MARKET_NOT_TRADEABLE', 'INSUFFICIENT_BALANCE', 'FILL_ALLOWANCE_EXHAUSTED', 'WALLET_NOT_BOUND', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    return ctx.services.orderbook.place(ctx.principal, { ...body, shares: BigInt(body.shares) }, ctx.recordEffect ?? undefined);
  },
  // The key's record and answer are written with the placement, in its batch's transaction (the hot write).
  answerWithEffect: true,
  // A record written without its answer (by a process before answerWithEffect): the order as it is now.
  replayEffect: async (ctx, orderId) => ctx.services.orderbook.view(orderId),
});

const OrderRef = z.strictObject({ orderId: OrderId });

export const cancelOrder = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/orderbook/cancel-order',
  category: 'orderbook',
  summary: 'Cancel an order',
  description:
    'Cancels what is left of a resting order and releases its reservation. Always accepted, also when nothing is left to cancel (filled or already cancelled): the answer is the order as it stands. Complete the cancellation with POST /orderbook/confirm-cancel once it is final.',
  tier: 'execute',
  scopes: ['trade:execute'],
  rateClass: 'write',
  idempotent: true,
  mcp: { tool: 'svc_orderbook_cancel_order' },
  walletSession: 'principal',
  route: { order: (raw) => (raw.body as { orderId?: unknown } | null)?.orderId },
  input: { body: OrderRef },
  output: OrderSchema,
  outputName: 'Order',
  errors: ['ORDER_NOT_FOUND', 'WALLET_NOT_BOUND', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => ctx.services.orderbook.cancel(ctx.principal, body.orderId, ctx.recordEffect ?? undefined),
  // A retry after a crash between the cancel's commit and the stored answer: the order as it is now.
  replayEffect: async (ctx, orderId) => ctx.services.orderbook.view(orderId),
});

export const confirmCancel = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/orderbook/confirm-cancel',
  category: 'orderbook',
  summary: 'Confirm that a cancellation is final',
  description:
    'Completes a cancellation: answers the order with final true once nothing about it can change any more — it no longer rests and every fill it had is in a ledger batch committed on chain. Before that, 409 ORDER_CANCEL_PENDING with Retry-After (the pending fills are listed). Changes nothing.',
  tier: 'read-only',
  scopes: [],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  mcp: { tool: 'svc_confirm_order_cancel' },
  walletSession: 'principal',
  input: { body: OrderRef },
  output: OrderSchema.extend({ final: z.literal(true) }),
  outputName: 'ConfirmedCancel',
  errors: ['ORDER_NOT_FOUND', 'ORDER_CANCEL_PENDING', 'WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx, { body }) => ctx.services.orderbook.confirmCancel(ctx.principal, body.orderId),
});

export const listOrderEvents = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/orderbook/events',
  category: 'orderbook',
  summary: 'List order events after a sequence number',
  description:
    'The caller\'s order events (accepted, fill, cancelled, rejected) with their per-agent sequence, after `after` (0 for the start), oldest first, `limit` per page (1..200, default 100): the source of truth that execution:report pushes accelerate. Persist the last seq and page until hasMore is false to close every gap. Fill events say whether the fill is final (its ledger batch committed on chain).',
  tier: 'read-only',
  scopes: [],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  mcp: { tool: 'svc_list_order_events' },
  input: { body: z.strictObject({ after: Digits.max(19).default('0'), limit: z.number().int().min(1).max(200).default(100) }) },
  output: z.object({ events: z.array(z.looseObject({ seq: Digits, type: z.string(), orderId: z.string(), at: IsoTimestamp })), nextAfter: Digits, hasMore: z.boolean() }),
  outputName: 'OrderEvents',
  errors: ['WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx, { body }) => ctx.services.orderbook.events(ctx.principal, BigInt(body.after), body.limit),
});

export const listOrders = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/orderbook/orders',
  category: 'orderbook',
  summary: "List the caller's orders",
  description:
    "The caller's own orders, newest first: resting ones and every one placed before, each as place-order answers it (filled, remaining, cancelled, status, fills). Narrow by `market` and by `status` (resting: open on the book; filled; cancelled: by you, the market's end, IOC or self-trade prevention, with remaining 0; rejected). `limit` per page (1..200, default 50); pass `nextCursor` back as `cursor` for the next page (null on the last). Prices are decimal strings, shares base units (one share = 1000000). Nobody else's orders are ever listed.",
  tier: 'read-only',
  scopes: [],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_orderbook_orders' },
  walletSession: 'principal',
  input: {
    query: z.strictObject({
      market: EvmAddress.optional().describe('only this market\'s orders'),
      status: OrderStatusSchema.optional(),
      cursor: Digits.max(19).optional().describe('nextCursor of the prior page'),
      limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1).max(200).default(50),
      chainId: ChainIdQuery.optional().describe('the served chain when omitted'),
    }),
  },
  output: z.object({ orders: z.array(OrderSchema), nextCursor: z.string().nullable() }),
  outputName: 'OrderList',
  errors: ['INVALID_QUERY', 'UNSUPPORTED_CHAIN', 'WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx, { query }) => {
    ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    return ctx.services.orderbook.list(ctx.principal, { market: query.market, status: query.status, before: query.cursor === undefined ? undefined : BigInt(query.cursor), limit: query.limit });
  },
});

export const ORDERBOOK_CAPABILITIES = [placeOrder, cancelOrder, confirmCancel, listOrderEvents, listOrders];

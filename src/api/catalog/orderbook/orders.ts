// The order-book loop of play-money ORDERBOOK markets (docs/orderbook.md): place, cancel, confirm a
// cancellation, and list order events after a sequence number. Fills settle in the ledger.
import { z } from 'zod';
import { ORDERBOOK_FEES } from '../../../core/markets/fees.ts';
import { ChainId, EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { Digits, OrderId, OrderSchema } from '../../../wire/orders.ts';
import { defineCapability } from '../types.ts';

const PlaceBody = z.strictObject({
  market: EvmAddress,
  outcome: z.union([z.literal(0), z.literal(1)]),
  action: z.enum(['buy', 'sell']),
  priceBps: z.number().int().min(1).max(9999).describe(`the limit price of the outcome in basis points, a multiple of the ${ORDERBOOK_FEES.tickBps}-bps tick`),
  shares: Digits.max(39).describe(`whole shares, at least ${ORDERBOOK_FEES.minShares}`),
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
  description: `Buys or sells shares of one outcome of an ORDERBOOK market at a limit price (basis points, ${ORDERBOOK_FEES.tickBps}-bps tick). Price-time priority; a buy of one outcome also matches a buy of the other at ≥ 10000 − price (the shares are minted), a sell matches a sell of the other (merged back to play money), and a buy matches a sell of the same outcome. GTC rests what does not fill, IOC cancels it, FOK fills completely or not at all; postOnly is refused if it would match. An order that would meet another order of the same wallet stops there (self-trade prevention). The taker pays ${ORDERBOOK_FEES.takerFeeBps} bps of its notional. The order reserves the play money or shares it can spend (ledger balance minus other resting orders). Every fill settles in the ledger at once and is final when its batch is committed on chain. A new order with no fills remaining answers 402 FILL_ALLOWANCE_EXHAUSTED.`,
  tier: 'execute',
  scopes: ['trade:execute'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'its fills are final only once a ledger batch is committed on chain, so it is refused while the node is down',
  mcp: { tool: 'svc_orderbook_place_order' },
  input: { body: PlaceBody },
  output: OrderSchema,
  outputName: 'Order',
  successStatus: 201,
  errors: ['UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND', 'MARKET_NOT_TRADEABLE', 'INSUFFICIENT_BALANCE', 'FILL_ALLOWANCE_EXHAUSTED', 'WALLET_NOT_BOUND', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    return ctx.services.orderbook.place(ctx.principal, { ...body, shares: BigInt(body.shares) }, ctx.recordEffect ?? undefined);
  },
  // A retry after a crash that came between the placement's commit and its stored answer: the order as it is now.
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
  idempotencyExempt: 'a confirmation reads state and changes nothing',
  mcp: { tool: 'svc_confirm_order_cancel' },
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
  idempotencyExempt: 'a listing changes nothing',
  mcp: { tool: 'svc_list_order_events' },
  input: { body: z.strictObject({ after: Digits.max(19).default('0'), limit: z.number().int().min(1).max(200).default(100) }) },
  output: z.object({ events: z.array(z.looseObject({ seq: Digits, type: z.string(), orderId: z.string(), at: IsoTimestamp })), nextAfter: Digits, hasMore: z.boolean() }),
  outputName: 'OrderEvents',
  errors: ['WALLET_NOT_BOUND', 'FORBIDDEN'],
  handler: async (ctx, { body }) => ctx.services.orderbook.events(ctx.principal, BigInt(body.after), body.limit),
});

export const ORDERBOOK_CAPABILITIES = [placeOrder, cancelOrder, confirmCancel, listOrderEvents];

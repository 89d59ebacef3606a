// Wire shapes of an order-book order and its fills (docs/orderbook.md), shared by the order service and the catalog.
// Units (docs/units.md): prices are exact decimal strings in [0, 1]; shares and amounts are base units.
import { z } from 'zod';
import { ORDERBOOK_FEES } from '../core/markets/fees.ts';
import { baseUnitsOfShares, priceOfBps } from '../core/orderbook/units.ts';
import { PriceString } from './markets.ts';
import { IsoTimestamp, EvmAddress, WeiString } from './schemas.ts';

export const Digits = z.string().regex(/^[0-9]+$/);
export const OrderId = z.string().uuid();

/** The order book's price tick and smallest order, in wire units ("0.01", "1000000"). */
export const ORDERBOOK_TICK = priceOfBps(ORDERBOOK_FEES.tickBps);
export const ORDERBOOK_MIN_SHARES = baseUnitsOfShares(ORDERBOOK_FEES.minShares).toString();
const ONE_SHARE = baseUnitsOfShares(1n).toString();

/** Shares on the wire: base units of the play-money collateral, one share (which pays 1 play dollar) being 1000000. */
export const ShareUnits = WeiString.describe(`shares in base units: one share = ${ONE_SHARE} (what a winning share pays, in play-money base units)`);

/** resting: open on the book; filled: completely; cancelled: by its owner, its market's end, IOC or self-trade prevention; rejected: nothing happened. */
export const OrderStatusSchema = z.enum(['resting', 'filled', 'cancelled', 'rejected']);

const FillSchema = z.object({
  id: Digits,
  role: z.enum(['maker', 'taker']),
  counterpartyOrderId: z.string(),
  kind: z.enum(['TRANSFER', 'MINT', 'MERGE', 'TAKER_SELLS']),
  outcome: z.union([z.literal(0), z.literal(1)]),
  price: PriceString.describe("the maker's price of `outcome`, the execution price"),
  shares: ShareUnits,
  fee: WeiString.describe('play-money base units this order paid for the fill (the taker pays, the maker 0)'),
  ledgerSeq: Digits,
  final: z.boolean().describe('true once the ledger batch holding the fill is committed on chain'),
  batchNonce: Digits.nullable(),
  at: IsoTimestamp,
});

export const OrderSchema = z.object({
  id: z.string(),
  market: EvmAddress,
  marketId: Digits,
  outcome: z.union([z.literal(0), z.literal(1)]),
  action: z.enum(['buy', 'sell']),
  price: PriceString.describe(`the limit price of \`outcome\`, on the ${ORDERBOOK_TICK} tick`),
  shares: ShareUnits.describe('the order size, share base units'),
  filled: ShareUnits.describe('share base units filled so far'),
  remaining: ShareUnits.describe('share base units still resting on the book: 0 unless status is resting'),
  cancelled: ShareUnits.describe('share base units taken off without filling (owner or market-end cancel, IOC or self-trade remainder, a rejected order\'s whole size); shares = filled + remaining + cancelled'),
  tif: z.enum(['GTC', 'IOC', 'FOK']),
  postOnly: z.boolean(),
  status: OrderStatusSchema,
  reason: z.string().nullable(),
  reserved: WeiString.describe('what the resting remainder reserves, base units: play money (a buy: cost plus the most taker fee) or shares of the outcome (a sell)'),
  createdAt: IsoTimestamp,
  fills: z.array(FillSchema),
});

// Wire shapes of an order-book order and its fills (docs/orderbook.md), shared by the order service and the catalog.
import { z } from 'zod';
import { IsoTimestamp, EvmAddress } from './schemas.ts';

export const Digits = z.string().regex(/^[0-9]+$/);
export const OrderId = z.string().uuid();

const FillSchema = z.object({
  id: Digits,
  role: z.enum(['maker', 'taker']),
  counterpartyOrderId: z.string(),
  kind: z.enum(['TRANSFER', 'MINT', 'MERGE', 'TAKER_SELLS']),
  outcome: z.union([z.literal(0), z.literal(1)]),
  priceBps: z.number().int().describe("the maker's price of `outcome`, the execution price"),
  shares: Digits,
  fee: Digits.describe('collateral base units this order paid for the fill (the taker pays, the maker 0)'),
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
  priceBps: z.number().int(),
  shares: Digits,
  filled: Digits,
  remaining: Digits,
  tif: z.enum(['GTC', 'IOC', 'FOK']),
  postOnly: z.boolean(),
  status: z.enum(['resting', 'filled', 'cancelled', 'rejected']),
  reason: z.string().nullable(),
  reserved: Digits.describe('what the resting remainder reserves: collateral base units (buy) or shares (sell)'),
  createdAt: IsoTimestamp,
  fills: z.array(FillSchema),
});

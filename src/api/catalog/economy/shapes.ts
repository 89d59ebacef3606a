// The economy's request bodies (spec: CheckoutSessionBody, RelayPurchaseBody, CardSessionId) and response shapes
// (docs/economy.md "Responses"): amounts as decimal strings of base units, dollars as whole numbers.
import { z } from 'zod';
import { CARD_SESSION_ID_PATTERN } from '../../../core/economy/terms.ts';
import { ChainId, EvmAddress, IsoTimestamp, TxHash, WeiString } from '../../../wire/schemas.ts';

const SafeInt = z.number().int('must be an integer').positive('must be greater than 0').max(Number.MAX_SAFE_INTEGER);
const Hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x + 64 hex digits');

export const CheckoutSessionBody = z.strictObject({ usd: SafeInt.describe('whole US dollars: one of the bundles GET /economy/purchase-terms lists') });

export const RelayPurchaseBody = z.strictObject({
  paymentAmount: z.string().regex(/^[0-9]+$/, 'must be an integer in USDC base units').describe('USDC base units (6 decimals) to pay; the permit value'),
  minPmOut: z.string().regex(/^[0-9]+$/, 'must be an integer in PM base units').describe('the least PM (base units, 18 decimals) to accept'),
  deadline: SafeInt.describe('the permit deadline, Unix seconds'),
  v: z.number().int('must be an integer').min(0).max(28),
  r: Hex32,
  s: Hex32,
});

export const CardSessionIdParam = z.string().regex(CARD_SESSION_ID_PATTERN, 'must be a card session id (cs_ then 8..240 of A-Z a-z 0-9 _)');

const Unavailable = z.enum(['NOT_CONFIGURED', 'SALE_NOT_DEPLOYED', 'SALE_PAUSED', 'SALE_SOLD_OUT']).nullable();

export const PurchaseTermsResponse = z.object({
  chainId: ChainId,
  token: z.object({ symbol: z.literal('PM'), address: EvmAddress, decimals: z.number().int() }),
  paymentToken: z.object({ symbol: z.literal('USDC'), address: EvmAddress, decimals: z.number().int() }),
  price: z.object({
    usdcPerPm: WeiString.describe('USDC base units for one whole PM: the sale contract price'),
    usdPerPm: z.string().describe('dollars per PM, exact decimal'),
    pmPerUsd: z.string().describe('PM per dollar, exact decimal'),
  }),
  sale: z.object({
    state: z.enum(['open', 'paused', 'sold_out', 'not_deployed']).describe('as the sale contract says now'),
    address: EvmAddress.nullable(),
    inventoryWei: WeiString.describe('PM base units the sale contract holds'),
  }),
  methods: z.object({
    card: z.object({
      available: z.boolean(),
      unavailableReason: Unavailable,
      provider: z.string().nullable(),
      currency: z.literal('usd'),
      bundles: z.array(z.object({ usd: z.number().int().positive(), pmWei: WeiString })).describe('the only amounts POST /economy/checkout-session takes'),
      cap: z.object({ usd: z.number().int().positive(), periodHours: z.number().int().positive() }).describe('dollars one wallet may buy by card in a rolling period'),
    }),
    relay: z.object({
      available: z.boolean(),
      unavailableReason: Unavailable,
      gasSponsored: z.literal(true),
      minPaymentAmount: WeiString.describe('USDC base units'),
      quoteRule: z.string(),
      permit: z.object({
        spender: EvmAddress.nullable().describe('sign the EIP-2612 permit for this spender: the sale contract'),
        domain: z.object({ name: z.string(), version: z.string(), chainId: ChainId, verifyingContract: EvmAddress }).nullable().describe("the payment token's EIP-712 domain"),
      }),
    }),
  }),
  asOf: IsoTimestamp,
});

export const CardPurchaseResponse = z.object({
  sessionId: CardSessionIdParam,
  orderId: z.uuid(),
  state: z.enum(['open', 'paid', 'delivered', 'expired', 'failed']).describe('open: awaiting payment; paid: delivery under way; delivered: PM on chain in the wallet'),
  provider: z.string(),
  checkoutUrl: z.url().describe("the provider's hosted checkout page"),
  walletAddress: EvmAddress.describe('where the PM goes: the signed-in wallet (lowercase)'),
  usd: z.number().int().positive(),
  pmWei: WeiString,
  chainId: ChainId,
  createdAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  paidAt: IsoTimestamp.nullable(),
  deliveredAt: IsoTimestamp.nullable(),
  delivery: z.object({ txHash: TxHash, statusUrl: z.string() }).nullable().describe('the delivery transaction once delivered; statusUrl is GET /transactions/{hash}'),
});

export const RelayPurchaseResponse = z.object({
  chainId: ChainId,
  txHash: TxHash,
  blockNumber: WeiString,
  buyer: EvmAddress,
  paymentAmount: WeiString,
  minPmOut: WeiString,
  pmReceived: WeiString.describe('PM base units the Purchased event records'),
  sale: EvmAddress,
  createdAt: IsoTimestamp,
  statusUrl: z.string().describe('GET /transactions/{hash}: CONFIRMED'),
});

export const SignupGrantResponse = z.object({
  walletAddress: EvmAddress,
  granted: z.boolean(),
  amount: WeiString.describe('base units of the play-money collateral; 0 when nothing was granted'),
  decimals: z.number().int(),
  asset: z.object({ ledgerAssetId: z.literal('0'), kind: z.literal('play-money collateral') }),
  agentId: z.uuid().nullable().describe('the agent the wallet is bound to'),
  grantedAt: IsoTimestamp.nullable(),
  ledger: z.object({ seq: WeiString, committed: z.boolean().describe('whether a batch accepted on chain holds the credit'), proofUrl: z.string() }).nullable(),
  currentGrant: WeiString.describe('what a wallet bound now is granted (LEDGER_SIGNUP_GRANT)'),
});

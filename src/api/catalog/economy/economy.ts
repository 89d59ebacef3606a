// The consumer economy (spec: /economy/*; docs/economy.md): purchase terms, card checkout and its status, the USDC
// permit relay purchase, the signup-grant read. All but the terms take a wallet session (cookie svc_session or header
// Svc-Wallet-Session) besides the API key: the signed-in wallet is the buyer.
import { defineCapability } from '../types.ts';
import { CardPurchaseResponse, CardSessionIdParam, CheckoutSessionBody, PurchaseTermsResponse, RelayPurchaseBody, RelayPurchaseResponse, SignupGrantResponse } from './shapes.ts';
import { z } from 'zod';

const WALLET =
  'Sign in with Sign-In with Ethereum (POST /api/auth/verify) and send the session as the svc_session cookie (cookieAuth) or the Svc-Wallet-Session header (developerAuthHeader), besides the API key; no usable session is 401 WALLET_AUTH_REQUIRED. Without a key, the session alone is the caller (the web app; a cookie write sends Svc-Csrf: 1).';

export const purchaseTerms = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/economy/purchase-terms',
  category: 'economy',
  summary: 'What PM costs and how it may be bought',
  description:
    "PM's price (USDC base units per PM, dollars per PM, PM per dollar), the card bundles and the per-wallet card cap, the relay sale's minimum payment, its permit spender and the payment token's EIP-712 domain, and the sale's state as the sale contract says now. A method that cannot be used says why (card: NOT_CONFIGURED without a payment provider).",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  output: PurchaseTermsResponse,
  outputName: 'PurchaseTermsResponse',
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx) => ctx.services.economy.terms(),
});

export const checkoutSession = defineCapability({
  surface: 'consumer',
  method: 'POST',
  path: '/economy/checkout-session',
  category: 'economy',
  summary: 'Start a card purchase of a PM bundle',
  description: `Opens a checkout session with the card payment provider for one bundle (body {usd}: one of GET /economy/purchase-terms methods.card.bundles, else 400 PURCHASE_NOT_A_BUNDLE); send the buyer to checkoutUrl. The PM goes to the signed-in wallet once the provider confirms payment, exactly once (GET /economy/purchase-status/{sessionId}). A wallet may buy methods.card.cap.usd dollars in its rolling period (open sessions count): more is 429 PURCHASE_CAP_EXCEEDED. No provider configured, the sale paused or short, or the provider unreachable: 503 SERVICE_UNAVAILABLE with a reason. ${WALLET}`,
  tier: 'execute',
  scopes: ['trade:execute'],
  walletAuth: 'required',
  // The web app buys without a key: the signed-in wallet is the caller too (docs/web.md "Buying PM").
  walletSession: 'principal',
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the sale contract is read before the session opens',
  input: { body: CheckoutSessionBody },
  invalidInputCode: 'INVALID_PAYLOAD',
  output: CardPurchaseResponse,
  outputName: 'CheckoutSessionResponse',
  errors: ['INVALID_PAYLOAD', 'PURCHASE_NOT_A_BUNDLE', 'WALLET_AUTH_REQUIRED', 'PURCHASE_CAP_EXCEEDED', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => ctx.services.economy.checkout(ctx.walletSession!.walletAddress, body.usd, ctx.recordEffect),
  replayEffect: async (ctx, orderId) => ctx.services.economy.recordedCheckout(orderId),
});

export const purchaseStatus = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/economy/purchase-status/:sessionId',
  category: 'economy',
  summary: 'The status of one card purchase',
  description: `One card purchase of the signed-in wallet: open (awaiting payment), paid (delivery under way), delivered (with the delivery transaction), expired or failed. While open, the provider is asked, so a lost webhook does not strand a payment. A session of another wallet is 404 like an unknown one. No provider configured: 503 SERVICE_UNAVAILABLE. ${WALLET}`,
  tier: 'read-only',
  scopes: ['markets:read'],
  walletAuth: 'required',
  // The web app buys without a key: the signed-in wallet is the caller too (docs/web.md "Buying PM").
  walletSession: 'principal',
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ sessionId: CardSessionIdParam }) },
  output: CardPurchaseResponse,
  outputName: 'PurchaseStatusResponse',
  errors: ['INVALID_ID', 'WALLET_AUTH_REQUIRED', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params }) => ctx.services.economy.status(ctx.walletSession!.walletAddress, params.sessionId),
});

export const relayPurchase = defineCapability({
  surface: 'consumer',
  method: 'POST',
  path: '/economy/relay-purchase',
  category: 'economy',
  summary: 'Buy PM with USDC by permit, gas sponsored',
  description: `Buys PM for USDC from the sale contract with the signed-in wallet's EIP-2612 permit (spender: the sale contract, value: paymentAmount, deadline; the domain is GET /economy/purchase-terms methods.relay.permit.domain); the relayer submits it and pays the gas, and the answer comes once the chain has mined it, with the PM received. Checked first from the chain, in this order: 400 AMOUNT_BELOW_MINIMUM, 409 SALE_PAUSED, QUOTE_MISMATCH (paymentAmount buys less than minPmOut), SALE_INVENTORY_SHORT, INSUFFICIENT_PAYMENT_BALANCE; a permit that does not verify or a passed deadline is 409 RELAY_REVERTED (nothing sent); the node down 503 SERVICE_UNAVAILABLE. ${WALLET}`,
  tier: 'execute',
  scopes: ['trade:execute'],
  walletAuth: 'required',
  // The web app buys without a key: the signed-in wallet is the caller too (docs/web.md "Buying PM").
  walletSession: 'principal',
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the purchase is sent to the chain at once',
  input: { body: RelayPurchaseBody },
  invalidInputCode: 'INVALID_PAYLOAD',
  output: RelayPurchaseResponse,
  outputName: 'RelayPurchaseResponse',
  errors: ['INVALID_PAYLOAD', 'AMOUNT_BELOW_MINIMUM', 'WALLET_AUTH_REQUIRED', 'SALE_PAUSED', 'SALE_INVENTORY_SHORT', 'QUOTE_MISMATCH', 'INSUFFICIENT_PAYMENT_BALANCE', 'RELAY_REVERTED', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) =>
    ctx.services.economy.relayPurchase(
      ctx.walletSession!.walletAddress,
      { paymentAmount: BigInt(body.paymentAmount), minPmOut: BigInt(body.minPmOut), deadline: body.deadline, v: body.v, r: body.r as `0x${string}`, s: body.s as `0x${string}` },
      ctx.recordEffect,
    ),
  replayEffect: async (ctx, txHash) => ctx.services.economy.recordedRelayPurchase(txHash),
});

export const signupGrant = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/economy/signup-grant',
  category: 'economy',
  summary: 'What the account was credited at signup',
  description: `The play-money grant the ledger credited the signed-in wallet when it was first bound to an agent (reason SIGNUP_GRANT), as the ledger booked it: amount in base units (6 decimals), when, and whether a batch committed on chain holds it (proofUrl gives the Merkle proof). granted false and amount 0 for a wallet that was never granted anything. ${WALLET}`,
  tier: 'read-only',
  scopes: ['markets:read'],
  walletAuth: 'required',
  // The web app buys without a key: the signed-in wallet is the caller too (docs/web.md "Buying PM").
  walletSession: 'principal',
  rateClass: 'read',
  idempotent: true,
  output: SignupGrantResponse,
  outputName: 'SignupGrantResponse',
  errors: ['WALLET_AUTH_REQUIRED', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx) => ctx.services.economy.signupGrant(ctx.walletSession!.walletAddress),
});

export const ECONOMY_CAPABILITIES = [purchaseTerms, checkoutSession, purchaseStatus, relayPurchase, signupGrant] as const;

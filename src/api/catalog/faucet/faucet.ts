// The test-funds faucet (docs/faucet.md): GET /faucet says what a grant pays and how often, POST /faucet pays the
// calling agent's bound wallet gas (ETH), TestUSDC and PM on the embedded test chain. Off (403 FEATURE_DISABLED) on a
// live environment or an external chain.
import { z } from 'zod';
import { FAUCET_ASSETS } from '../../../core/faucet.ts';
import type { FaucetGrant } from '../../../services/faucet/faucet.ts';
import { ChainId, EvmAddress, IsoTimestamp, TxHash, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const Asset = z.enum(FAUCET_ASSETS);
const AmountFields = {
  asset: Asset,
  token: EvmAddress.nullable().describe('the ERC-20 token; null for ETH'),
  decimals: z.number().int().min(0),
  amount: WeiString.describe('base units'),
};
const Limits = z.object({
  windowSeconds: z.number().int().positive(),
  perWallet: z.number().int().positive().describe('grants per window for one wallet'),
  perKey: z.number().int().positive().describe('grants per window for one API key'),
});

const FaucetTermsResponse = z.object({
  enabled: z.boolean().describe('false on a live environment or an external chain: POST /faucet answers 403 FEATURE_DISABLED'),
  reason: z.enum(['FAUCET_LIVE_ENVIRONMENT', 'FAUCET_EXTERNAL_CHAIN']).nullable(),
  chainId: ChainId,
  amounts: z.array(z.object(AmountFields)).describe('what one grant pays; empty when the faucet is off'),
  limits: Limits,
});

const FaucetGrantResponse = z.object({
  grantId: z.uuid(),
  chainId: ChainId,
  wallet: EvmAddress.describe('the bound wallet that was paid (lowercase)'),
  transfers: z.array(z.object({ ...AmountFields, txHash: TxHash, blockNumber: WeiString })).describe('each confirmed on chain'),
  grantedAt: IsoTimestamp,
  nextGrantAt: IsoTimestamp.describe('when this wallet may ask again'),
});

const answer = (g: FaucetGrant): z.output<typeof FaucetGrantResponse> => ({
  grantId: g.id,
  chainId: g.chainId,
  wallet: g.wallet,
  transfers: g.transfers.map((t) => ({ asset: t.asset, token: t.token, decimals: t.decimals, amount: t.amount.toString(), txHash: t.txHash, blockNumber: t.blockNumber.toString() })),
  grantedAt: g.createdAt.toISOString(),
  nextGrantAt: g.nextGrantAt.toISOString(),
});

export const getFaucet = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/faucet',
  category: 'faucet',
  summary: 'What the test-funds faucet pays and how often',
  description:
    'Whether this service has a test-funds faucet (only the embedded test environment does), what one grant pays in base units (ETH for gas, TestUSDC, PM) and how often a wallet and an API key may ask (limits). Ask with POST /faucet.',
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_faucet' },
  output: FaucetTermsResponse,
  outputName: 'FaucetTerms',
  errors: [],
  handler: async (ctx) => {
    const t = ctx.services.faucet.terms();
    return {
      enabled: t.enabled,
      reason: t.reason,
      chainId: t.chainId,
      amounts: t.amounts.map((a) => ({ ...a, amount: a.amount.toString() })),
      limits: { windowSeconds: t.windowSeconds, perWallet: t.perWallet, perKey: t.perKey },
    };
  },
});

export const requestFaucet = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/faucet',
  category: 'faucet',
  summary: 'Test funds for your bound wallet (embedded test environment)',
  description:
    "Pays the wallet bound to your agent what GET /faucet lists (ETH for gas, TestUSDC, PM), each a transaction the operator sends and pays for, confirmed before the answer. At most one grant per wallet and per API key in each window (GET /faucet limits); sooner is 429 RATE_LIMITED with Retry-After. Body {}. Exactly once under its Idempotency-Key: a retry, even after a crash between submit and receipt, answers the same transactions. Only on the embedded test environment: elsewhere 403 FEATURE_DISABLED (reason FAUCET_LIVE_ENVIRONMENT or FAUCET_EXTERNAL_CHAIN). Needs a bound wallet (409 WALLET_NOT_BOUND).",
  tier: 'propose',
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the transfers are sent to the chain at once',
  mcp: { tool: 'svc_faucet' },
  input: { body: z.strictObject({}) },
  output: FaucetGrantResponse,
  outputName: 'FaucetGrant',
  errors: ['FEATURE_DISABLED', 'WALLET_NOT_BOUND', 'FORBIDDEN', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx) => answer(await ctx.services.faucet.grant(ctx.principal, ctx.recordEffect ?? undefined)),
  replayEffect: async (ctx, id) => answer(await ctx.services.faucet.replay(id)),
});

export const FAUCET_CAPABILITIES = [getFaucet, requestFaucet];

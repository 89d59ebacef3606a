// Wire shapes of the create loop (docs/markets.md, "The create loop").
import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { matchCollateral } from '../../../services/chain/chain-service.ts';
import type { MarketTerms } from '../../../core/markets/terms.ts';
import type { HandlerContext } from '../types.ts';
import type { NegotiationRow } from '../../../services/markets/negotiation.ts';
import { MarketCategory, PricingModelInput } from '../../../wire/markets.ts';
import { ChainId, EvmAddress, IsoTimestamp, TxHash, WeiString } from '../../../wire/schemas.ts';

const Label = z.string().trim().min(1).max(64);

export const TermsBody = z.strictObject({
  question: z.string().trim().min(10).max(300),
  description: z.string().trim().max(5000).optional(),
  category: MarketCategory,
  outcomes: z
    .array(Label)
    .min(2)
    .max(3)
    .refine((labels) => new Set(labels.map((l) => l.toLowerCase())).size === labels.length, 'outcome labels must differ')
    .default(['Yes', 'No'])
    .describe('outcome labels in trade-side order; 2 (binary) or 3 (ternary); default ["Yes", "No"]'),
  pricingModel: PricingModelInput.default('automated').describe('default automated (LMSR is accepted as another name for it): an LMSR market with on-chain collateral; ORDERBOOK: a binary play-money order-book market (no collateral, liquidity or creator fee; trades settle in the ledger)'),
  collateral: z.string().min(1).max(64).optional().describe('automated markets (required): collateral symbol (USDC or PM) or token address with creation=true in GET /discover/contracts; ORDERBOOK markets trade play money (omit it)'),
  closeTime: IsoTimestamp.describe('when trading stops; 1 hour to 365 days ahead; fractions of a second are dropped'),
  resolutionSource: z.string().trim().min(3).max(500).describe('where the outcome will be read from (URL or description)'),
  liquidity: WeiString.max(78).optional().describe('automated markets (required): LMSR b in collateral base units; at least the floor of GET /discover/fees'),
  creatorFeeBps: z.number().int().min(0).max(10_000).optional().describe('automated markets: creator fee, basis points (default 100); the schedule allows 0..300 (outside it the protocol counters)'),
  externalId: z.string().min(1).max(128).optional().describe("the creator's own id: a second market with the same externalId is refused in favour of the first"),
  chainId: ChainId.optional(),
});

export const TermsSchema = z.object({
  question: z.string(),
  description: z.string().nullable(),
  category: z.string(),
  outcomes: z.array(z.string()),
  pricingModel: z.enum(['automated', 'ORDERBOOK']),
  collateral: z.enum(['USDC', 'PM', 'PLAY']),
  closeTime: IsoTimestamp,
  resolutionSource: z.string(),
  liquidity: WeiString,
  creatorFeeBps: z.number().int(),
  externalId: z.string().nullable(),
});

export const CounterChangeSchema = z.object({
  field: z.string(),
  proposed: z.union([z.string(), z.number()]),
  countered: z.union([z.string(), z.number()]),
  rule: z.string(),
});

export const NegotiationSchema = z.object({
  id: z.uuid(),
  status: z.enum(['proposed', 'countered', 'accepted', 'rejected', 'deployed']),
  chainId: ChainId,
  creator: EvmAddress,
  proposedTerms: TermsSchema,
  terms: TermsSchema.describe('the terms in force: the proposal, or the protocol counter'),
  counter: z.array(CounterChangeSchema).nullable(),
  questionHash: TxHash,
  marketAddress: EvmAddress.nullable(),
  deployTxHash: TxHash.nullable(),
  createdAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
});

export const CreationApprovalSchema = z.object({
  kind: z.literal('erc20_approve'),
  reason: z.literal('create_market'),
  chainId: ChainId,
  token: EvmAddress,
  spender: EvmAddress.describe('the factory'),
  amount: WeiString,
  transaction: z
    .object({ chainId: ChainId, to: EvmAddress, data: z.string().regex(/^0x[0-9a-f]+$/), value: z.literal('0') })
    .describe('the approval ready to sign and send from the creator\'s wallet (to = token)'),
});

export const ChargesSchema = z.object({
  outcomeCount: z.number().int(),
  factory: EvmAddress,
  subsidy: z.object({ token: EvmAddress, symbol: z.string(), amount: WeiString }),
  bond: z.object({ token: EvmAddress, symbol: z.literal('PM'), amount: WeiString }),
});

export const BalanceShortSchema = z.object({ token: EvmAddress, symbol: z.string(), required: WeiString, balance: WeiString });

export const NegotiationParams = z.strictObject({ id: z.uuid() });

/** Resolves the body's collateral (symbol or address) and normalises the terms. */
export function termsFromBody(ctx: HandlerContext, body: z.output<typeof TermsBody>): MarketTerms {
  ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
  const common = {
    question: body.question,
    description: body.description ?? null,
    category: body.category,
    outcomes: body.outcomes,
    closeTime: new Date(Math.floor(Date.parse(body.closeTime) / 1000) * 1000).toISOString(),
    resolutionSource: body.resolutionSource,
    externalId: body.externalId ?? null,
  };
  if (body.pricingModel === 'ORDERBOOK') {
    const stray = (['collateral', 'liquidity', 'creatorFeeBps'] as const).filter((f) => body[f] !== undefined);
    if (stray.length > 0) {
      throw problem('INVALID_PAYLOAD', `an ORDERBOOK market trades play money: omit ${stray.join(', ')}`, { errors: stray.map((f) => ({ path: `body.${f}`, message: 'not used by ORDERBOOK markets' })) });
    }
    return { ...common, pricingModel: 'ORDERBOOK', collateral: 'PLAY', liquidity: '0', creatorFeeBps: 0 };
  }
  const missing = (['collateral', 'liquidity'] as const).filter((f) => body[f] === undefined);
  if (missing.length > 0) {
    throw problem('INVALID_PAYLOAD', `an automated market needs ${missing.join(' and ')}`, { errors: missing.map((f) => ({ path: `body.${f}`, message: 'required for automated markets' })) });
  }
  const [collateral] = matchCollateral(ctx.services.chain.collateral(), body.collateral!);
  if (!collateral) {
    throw problem('INVALID_PAYLOAD', `collateral '${body.collateral}' cannot create markets here`, { errors: [{ path: 'body.collateral', message: 'not a collateral with creation=true' }] });
  }
  return { ...common, pricingModel: 'automated', collateral: collateral.symbol, liquidity: BigInt(body.liquidity!).toString(), creatorFeeBps: body.creatorFeeBps ?? 100 };
}

/** Terms stored before the order-book lane have no pricingModel: they are automated. */
const withModel = (t: unknown): z.output<typeof TermsSchema> => ({ pricingModel: 'automated', ...(t as object) }) as z.output<typeof TermsSchema>;

export function negotiationBody(row: NegotiationRow): z.output<typeof NegotiationSchema> {
  return {
    id: row.id,
    status: row.status,
    chainId: row.chain_id,
    creator: row.creator,
    proposedTerms: withModel(row.proposed_terms),
    terms: withModel(row.terms),
    counter: (row.counter as z.output<typeof CounterChangeSchema>[] | null) ?? null,
    questionHash: row.question_hash,
    marketAddress: row.market_address,
    deployTxHash: row.deploy_tx_hash,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}

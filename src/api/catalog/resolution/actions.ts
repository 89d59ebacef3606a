// The steps of a market's resolution (docs/resolution.md "Actions"): a creator's proposal relayed at the protocol's
// gas and its REST-only preview, a challenge prepared for the challenger's own wallet (its bond is its money),
// finalize by anyone, and council members' signatures. Over MCP, the steps a wallet signs or pays for take a wallet
// proof of that wallet (spec "Wallet-proof elevation"); finalize moves nobody's money and needs none.
import { z } from 'zod';
import { ChainId, EvmAddress, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { Reply, defineCapability } from '../types.ts';

const MarketParams = z.strictObject({ address: EvmAddress.describe('the market') });
const Signature = z.string().regex(/^0x[0-9a-fA-F]{130,}$/, 'must be a 0x-hex signature (65 bytes for a wallet key)').max(4098);
const Outcome = z.number().int().min(0).max(255);

const RelayedStepSchema = z.object({
  market: EvmAddress,
  chainId: ChainId,
  operationId: z.string(),
  txHash: z.string(),
  state: z.enum(['submitted', 'confirmed', 'reverted', 'dropped']).describe('submitted: broadcast, not yet at the confirmation depth; the market.* events follow from the chain'),
});

export const proposeResolution = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/markets/:address/resolution/propose',
  category: 'resolution',
  summary: "Relay the creator's proposal of an outcome",
  description:
    "Sends the creator's proposal on chain at the protocol's gas (the resolver's proposeFor). The creator's wallet signs the EIP-712 Proposal(address market,uint8 outcome,uint256 deadline) under the resolver's domain (name MarketResolver, version 1, chain id, resolver address: GET /discover/contracts); outcome is 1-indexed, 0 proposes void; deadline (unix seconds) is the last moment the relay may be mined. The resolver checks the signature against the market's creator, so nothing but what was signed can be sent. Possible from creation until resolveBy; it stops trading and opens the challenge window (market.challengeWindowOpened). The same signed proposal posted again answers the same transaction. Preview first with POST /resolve/simulate.",
  tier: 'execute',
  scopes: ['resolution:execute'],
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: 'the relayed transaction is named by the signed proposal: a repeat answers the same transaction and sends nothing',
  needsChain: 'the proposal is sent to the chain at once',
  walletSession: 'principal',
  mcp: { tool: 'svc_markets_resolution_propose' },
  mcpElevation: { scope: 'resolution:execute', resourceId: ({ params }) => params.address.toLowerCase(), resourceIdSource: 'the market address (argument address), lowercase' },
  input: {
    params: MarketParams,
    body: z.strictObject({ outcome: Outcome, deadline: z.number().int().positive().max(2 ** 40).describe('unix seconds, signed'), signature: Signature }),
  },
  output: RelayedStepSchema.extend({ outcome: z.number().int(), isVoid: z.boolean(), proposer: EvmAddress }),
  outputName: 'RelayedProposal',
  successStatus: 202,
  errors: ['MARKET_NOT_FOUND', 'PROPOSAL_SIGNATURE_INVALID', 'RESOLUTION_STEP_REFUSED', 'FORBIDDEN', 'WALLET_PROOF_INVALID', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, body }) =>
    new Reply(await ctx.services.resolutionActions.propose({ market: params.address, outcome: body.outcome, deadline: BigInt(body.deadline), signature: body.signature, provenWallet: ctx.provenWallet }), 202),
});

export const simulateResolution = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/resolve/simulate',
  category: 'resolution',
  summary: 'Preview a proposal: deadlines and what is at risk',
  description:
    "Would the resolver take the creator's proposal of `outcome` now (simulated on chain from the creator's address), and what it would set: the challenge deadline by chain time, when the outcome becomes final if nobody challenges (eligibleAt), and what is at risk — the creator's bond, slashed if a dispute ends on another outcome, and the bond a challenger posts. A refusal is reported in the body (allowed false, refusal), not as an error. Changes nothing; REST-only by the spec.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read',
  mcp: { restOnly: 'a non-mutating preview for people and scripts; agents act with svc_markets_resolution_propose, whose refusals carry the same codes' },
  input: { body: z.strictObject({ marketAddress: EvmAddress, chainId: ChainId.optional(), outcome: Outcome }) },
  output: z.object({
    marketAddress: EvmAddress,
    chainId: ChainId,
    outcome: z.number().int(),
    isVoid: z.boolean(),
    creator: EvmAddress,
    phase: z.enum(['none', 'proposed', 'disputed', 'voting', 'council', 'resolved']),
    allowed: z.boolean(),
    refusal: z.object({ code: z.string(), detail: z.string() }).nullable(),
    chainTime: IsoTimestamp,
    resolveBy: IsoTimestamp,
    challengeWindowSeconds: z.number().int().positive(),
    challengeDeadline: IsoTimestamp.nullable(),
    eligibleAt: IsoTimestamp.nullable(),
    atRisk: z.object({ creationBond: WeiString, challengeBond: WeiString, token: z.literal('PM'), creatorSlashedIf: z.string() }),
  }),
  outputName: 'ProposalPreview',
  errors: ['MARKET_NOT_FOUND', 'UNSUPPORTED_CHAIN', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => {
    ctx.services.chain.requireServed(body.chainId, 'UNSUPPORTED_CHAIN');
    const p = await ctx.services.resolutionActions.simulate({ market: body.marketAddress, outcome: body.outcome });
    return {
      marketAddress: p.market,
      chainId: p.chainId,
      outcome: p.outcome,
      isVoid: p.isVoid,
      creator: p.creator,
      phase: p.phase,
      allowed: p.allowed,
      refusal: p.refusal,
      chainTime: p.chainTime.toISOString(),
      resolveBy: p.resolveBy.toISOString(),
      challengeWindowSeconds: p.challengeWindowSeconds,
      challengeDeadline: p.challengeDeadline?.toISOString() ?? null,
      eligibleAt: p.eligibleAt?.toISOString() ?? null,
      atRisk: { ...p.atRisk, creationBond: p.atRisk.creationBond.toString(), challengeBond: p.atRisk.challengeBond.toString() },
    };
  },
});

export const prepareChallenge = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/markets/:address/resolution/challenge/prepare',
  category: 'resolution',
  summary: 'Prepare the transactions of a challenge',
  description:
    "The transactions the challenger's wallet sends to dispute a proposal with a counter-outcome (1-indexed, 0 for void): an ERC-20 approval of the challenge bond (PM) to the resolver when the allowance is short, then challenge(market, counterOutcome). The bond is the wallet's money, so the wallet sends them (REST: the key's bound wallet; MCP: the wallet the proof names). Checked against the resolver's record on chain: a proposal must be waiting and its window open by chain time. Changes nothing; market.disputed follows the mined challenge.",
  tier: 'execute',
  scopes: ['resolution:execute'],
  rateClass: 'read',
  idempotent: true,
  effect: 'read', // preparing changes nothing: the wallet sends the transactions
  walletSession: 'principal',
  mcp: { tool: 'svc_markets_resolution_challenge_prepare' },
  mcpElevation: { scope: 'resolution:execute', resourceId: ({ params }) => params.address.toLowerCase(), resourceIdSource: 'the market address (argument address), lowercase' },
  input: { params: MarketParams, body: z.strictObject({ counterOutcome: Outcome }) },
  output: z.object({
    market: EvmAddress,
    chainId: ChainId,
    wallet: EvmAddress,
    proposedOutcome: z.number().int(),
    counterOutcome: z.number().int(),
    bond: WeiString,
    bondToken: EvmAddress,
    challengeDeadline: IsoTimestamp,
    transactions: z.array(z.object({ purpose: z.enum(['approve', 'challenge']), chainId: ChainId, from: EvmAddress, to: EvmAddress, data: z.string().regex(/^0x[0-9a-f]*$/), value: z.literal('0') })),
  }),
  outputName: 'PreparedChallenge',
  errors: ['MARKET_NOT_FOUND', 'RESOLUTION_STEP_REFUSED', 'CHALLENGE_WINDOW_CLOSED', 'INSUFFICIENT_BALANCE', 'WALLET_NOT_BOUND', 'WALLET_PROOF_INVALID', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, body }) => {
    const p = await ctx.services.resolutionActions.prepareChallenge({ market: params.address, counterOutcome: body.counterOutcome, principal: ctx.principal, provenWallet: ctx.provenWallet });
    return { ...p, bond: p.bond.toString(), challengeDeadline: p.challengeDeadline.toISOString() };
  },
});

export const finalizeResolution = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/markets/:address/resolution/finalize',
  category: 'resolution',
  summary: 'Finalize an unchallenged proposal',
  description:
    "Resolves a market whose proposal was not challenged before its deadline, with the proposed outcome, at the protocol's gas (the resolver's finalize, open to anyone). The keeper does it too; both use one operation, so it is sent once. 409 CHALLENGE_WINDOW_OPEN before the deadline (chain time); RESOLUTION_STEP_REFUSED when there is no such proposal.",
  tier: 'execute',
  scopes: ['resolution:execute'],
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: "one finalize per market (the keeper's operation): a repeat answers the same transaction",
  needsChain: 'finalize is sent to the chain at once',
  walletSession: 'principal',
  mcp: { tool: 'svc_markets_resolution_finalize' },
  input: { params: MarketParams },
  output: RelayedStepSchema,
  outputName: 'RelayedFinalize',
  successStatus: 202,
  errors: ['MARKET_NOT_FOUND', 'RESOLUTION_STEP_REFUSED', 'CHALLENGE_WINDOW_OPEN', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params }) => new Reply(await ctx.services.resolutionActions.finalize(params.address), 202),
});

export const signCouncilDecision = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/markets/:address/resolution/council-signatures',
  category: 'resolution',
  summary: "Submit a council member's decision",
  description:
    "A council member's EIP-712 CouncilDecision(address market,uint8 outcome,uint8 round) under the resolver's domain, for a market in council review (round: the vote round that ended without a binding verdict). Kept and published; a member signs one outcome per round (another answers 409 ALREADY_SIGNED, the same one again answers it as it stands). The signature that gives an outcome the council's threshold announces market.councilReview {phase: decided} and sends councilDecide at the protocol's gas; the chain's CouncilDecided then announces {phase: executed} and market.resolved.",
  tier: 'execute',
  scopes: ['resolution:execute'],
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: 'one signature per member and round: a repeat answers the one kept',
  needsChain: 'the council decision is sent to the chain once the threshold is reached',
  mcp: { tool: 'svc_markets_resolution_council_signatures' },
  mcpElevation: { scope: 'resolution:execute', resourceId: ({ params }) => params.address.toLowerCase(), resourceIdSource: 'the market address (argument address), lowercase' },
  input: { params: MarketParams, body: z.strictObject({ signer: EvmAddress, outcome: Outcome, signature: Signature }) },
  output: z.object({
    market: EvmAddress,
    chainId: ChainId,
    round: z.number().int(),
    signer: EvmAddress,
    outcome: z.number().int(),
    signedAt: IsoTimestamp,
    signatures: z.number().int().nonnegative().describe('signatures for this outcome in this round'),
    threshold: z.number().int().positive(),
    decision: RelayedStepSchema.omit({ market: true, chainId: true }).nullable(),
  }),
  outputName: 'CouncilSignature',
  successStatus: 201,
  errors: ['MARKET_NOT_FOUND', 'RESOLUTION_STEP_REFUSED', 'NOT_COUNCIL_MEMBER', 'COUNCIL_SIGNATURE_INVALID', 'ALREADY_SIGNED', 'FORBIDDEN', 'WALLET_PROOF_INVALID', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, body }) => {
    const s = await ctx.services.resolutionActions.councilSign({ market: params.address, ...body, provenWallet: ctx.provenWallet });
    return { ...s, signedAt: s.signedAt.toISOString() };
  },
});

export const ACTION_CAPABILITIES = [proposeResolution, simulateResolution, prepareChallenge, finalizeResolution, signCouncilDecision];

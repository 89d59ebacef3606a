// The participation release (spec agent-api "Participation release"; docs/participation.md): the member's state,
// claim prepare and finalize, and one distribution. Every refusal is one of the spec's 23 reason codes, as the
// problem's code and its reasonCode extension.
import { z } from 'zod';
import { ChainId, IsoTimestamp, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const Id128 = z.string().min(1).max(128);
const ReleaseId = z.string().regex(/^0x[0-9a-f]{64}$/, 'must be a release id: 0x + 64 lowercase hex digits');
const Iso = IsoTimestamp.nullable();
const REASONS = [
  'PARTICIPATION_RELEASE_NOT_DEPLOYED',
  'PARTICIPATION_RELEASE_ROUTE_NOT_DEPLOYED',
  'PARTICIPATION_RELEASE_INACTIVE',
  'PARTICIPATION_DISTRIBUTION_PAUSED',
  'PARTICIPATION_MONEY_PATH_INCOMPLETE',
  'PARTICIPATION_LEDGER_ACCOUNTING_INVALID',
  'PARTICIPATION_ROUTE_DEGRADED',
  'PARTICIPATION_ROUTE_QUARANTINED',
  'PARTICIPATION_INVENTORY_LOW',
  'ACTIVE_VERIFIED_IDENTITY_REQUIRED',
  'CURRENT_IDENTITY_MEMBERSHIP_REQUIRED',
  'AGENT_OPERATING_WALLET_NOT_LINKED',
  'IDENTITY_INTEGRITY_UNKNOWN',
  'NO_PARTICIPATION_RELEASE_CREDITS',
  'NEW_PARTICIPATION_RELEASE_UNITS_EXHAUSTED',
  'PARTICIPATION_CLAIM_CADENCE_ACTIVE',
  'PARTICIPATION_IDENTITY_ATTESTATION_REQUIRED',
  'PARTICIPATION_DISTRIBUTION_ZERO_DELTA',
  'PARTICIPATION_DISTRIBUTION_ALREADY_PREPARED',
  'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE',
  'PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED',
  'PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH',
  'PARTICIPATION_DISTRIBUTION_FINALITY_PENDING',
] as const;
const DistributionStatus = z.enum(['none', 'prepared', 'submitted', 'expired_awaiting_finality', 'projection_pending', 'paid', 'unpaid', 'failed']);

const Profile = z.object({
  profileId: Id128,
  stage: z.enum(['test', 'production']),
  name: z.string().min(1).max(128),
  symbol: z.string().min(1).max(32),
  decimals: z.number().int().min(0).max(30),
  releaseId: ReleaseId.nullable(),
});
const Distribution = z.object({
  status: DistributionStatus,
  deliveryMode: z.enum(['self_claim', 'protocol_push']).nullable(),
  recipientRelation: z.enum(['self', 'root', 'another_linked_member']).nullable(),
  intentId: Id128.nullable(),
  expiresAt: Iso,
  transactionHash: z.string().regex(/^0x[0-9a-f]{64}$/).nullable(),
});
const StateResponse = z.object({
  profile: Profile,
  deployment: z.object({
    state: z.enum(['not_deployed', 'route_not_deployed', 'inactive', 'active', 'payment_paused', 'degraded', 'quarantined', 'retired']),
    chainId: ChainId,
    claimEnabled: z.boolean(),
    reasonCode: z.enum(REASONS).nullable().describe("why the release does not pay now, or (member gate) why this member cannot claim; null when it can"),
  }),
  member: z.object({ status: z.enum(['unknown', 'not_linked', 'inactive', 'active']), role: z.enum(['root', 'linked_wallet', 'linked_agent']).nullable(), walletAddress: z.string().nullable() }),
  lane: z.object({ state: z.enum(['unavailable', 'not_activated', 'activation_pending', 'active', 'dormant']), firstActivatedAt: Iso, activeUntil: Iso, lastQualifyingTradeAt: Iso, nextCreditAt: Iso }),
  amounts: z.object({ bankedWei: WeiString, confirmedPaidWei: WeiString, nextEstimatedWei: WeiString, communityRemainingWei: WeiString, newUnitsExhausted: z.boolean() }),
  distribution: Distribution,
  updatedAt: IsoTimestamp,
});
const PrepareResponse = z.object({
  profileId: Id128,
  releaseId: ReleaseId.nullable(),
  intent: z.object({ id: Id128, status: DistributionStatus, expiresAt: Iso, deliveryMode: z.enum(['self_claim', 'protocol_push']) }),
  transaction: z.object({ chainId: ChainId, to: z.string(), data: z.string().regex(/^0x[0-9a-f]{8,}$/), value: z.literal('0') }).nullable().describe('self_claim: sign and send this from the root wallet, then finalize with its hash; protocol_push: null (the relayer sent it: read the distribution for its hash)'),
});
const DistributionResponse = z.object({ profileId: Id128, releaseId: ReleaseId.nullable(), distribution: Distribution, updatedAt: IsoTimestamp });

const ExpectedBody = { expectedProfileId: Id128, expectedReleaseId: ReleaseId };
const GATES = 'Refusals carry one of the spec\'s reason codes as the problem code (and reasonCode): docs/participation.md lists the condition of each.';

export const getParticipationRelease = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/participation-release',
  category: 'participation',
  summary: 'The participation release as it stands for you',
  description: `The release profile, the distributor deployment (state, claimEnabled, reasonCode), you as a member (status, role, operating wallet), your lane (activated by qualifying trades; a credit for each whole UTC day it is active), your amounts (banked, confirmed paid on chain, the next credit, the community's remaining units) and your latest distribution. ${GATES}`,
  tier: 'read-only',
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_participation_release' },
  output: StateResponse,
  outputName: 'ParticipationReleaseState',
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx) => ctx.services.participation.state(ctx.principal),
});

export const prepareParticipationClaim = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/participation-release/claim/prepare',
  category: 'participation',
  summary: 'Prepare a participation distribution',
  description: `Body {expectedProfileId, expectedReleaseId} (the release you read; another is 409 PARTICIPATION_RELEASE_INACTIVE). Checks the deployment, you as a member and your claim, then prepares an intent with a voucher the operator signed for everything credited to your account: the root wallet claims itself (deliveryMode self_claim: sign and send transaction, then finalize with its hash), a linked member's distribution is pushed to the root by the relayer (protocol_push: transaction null). ${GATES}`,
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: false,
  needsChain: 'the distributor is read and a push is sent at once',
  mcp: { tool: 'svc_participation_release_claim_prepare' },
  input: { body: z.strictObject(ExpectedBody) },
  output: PrepareResponse,
  outputName: 'ParticipationClaimPrepared',
  errors: ['INVALID_PAYLOAD', ...REASONS.filter((r) => !['PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED', 'PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH', 'PARTICIPATION_DISTRIBUTION_FINALITY_PENDING'].includes(r)), 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) => ctx.services.participation.prepare(ctx.principal, { profileId: body.expectedProfileId, releaseId: body.expectedReleaseId }, ctx.recordEffect),
  replayEffect: async (ctx, intentId) => ctx.services.participation.recordedPrepare(intentId),
});

export const finalizeParticipationClaim = defineCapability({
  surface: 'agent',
  method: 'POST',
  path: '/participation-release/claim/finalize',
  category: 'participation',
  summary: 'Finalize a participation distribution with its transaction',
  description: `Body {expectedProfileId, expectedReleaseId, intentId, transactionHash}. Reconciles the transaction with the chain: paid once it is mined at the required depth and carries the distributor's Distributed event for exactly this intent; not mined yet (or too shallow) is 409 PARTICIPATION_DISTRIBUTION_FINALITY_PENDING with Retry-After; a voucher that expired with nothing mined is 409 PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED (the intent is unpaid); a transaction that does not carry this distribution is 422 PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH and changes nothing; a reverted one marks the intent failed. Repeating it is safe: it reconciles again.`,
  tier: 'execute',
  scopes: ['fees:claim'],
  rateClass: 'write',
  idempotent: true,
  idempotencyExempt: 'finalize reconciles with the chain and changes nothing the chain does not say: repeating it answers the state as of then, so a retry needs no key (and a stored 409 FINALITY_PENDING must not be replayed)',
  needsChain: 'the receipt is read from the node',
  mcp: { tool: 'svc_participation_release_claim_finalize' },
  input: { body: z.strictObject({ ...ExpectedBody, intentId: Id128, transactionHash: z.string().regex(/^0x[0-9a-f]{64}$/, 'must be 0x + 64 lowercase hex digits') }) },
  output: DistributionResponse,
  outputName: 'ParticipationDistribution',
  errors: ['INVALID_PAYLOAD', 'NOT_FOUND', 'PARTICIPATION_RELEASE_INACTIVE', 'PARTICIPATION_DISTRIBUTION_RECIPIENT_STALE', 'PARTICIPATION_DISTRIBUTION_VOUCHER_EXPIRED', 'PARTICIPATION_DISTRIBUTION_EVENT_MISMATCH', 'PARTICIPATION_DISTRIBUTION_FINALITY_PENDING', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { body }) =>
    ctx.services.participation.finalize(ctx.principal, { expectedProfileId: body.expectedProfileId, expectedReleaseId: body.expectedReleaseId, intentId: body.intentId, transactionHash: body.transactionHash as `0x${string}` }),
});

export const getParticipationDistribution = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/participation-release/distributions/:intentId',
  category: 'participation',
  summary: 'One participation distribution',
  description: 'One of your distributions by intent id: its status (redacted: no voucher), delivery mode, recipient relation, expiry and transaction. Another member\'s or an unknown intent is 404.',
  tier: 'read-only',
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_participation_release_distributions_by_intent_id' },
  input: { params: z.strictObject({ intentId: Id128 }) },
  output: DistributionResponse,
  outputName: 'ParticipationDistribution',
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handler: async (ctx, { params }) => ctx.services.participation.distribution(ctx.principal, params.intentId),
});

export const PARTICIPATION_CAPABILITIES = [getParticipationRelease, prepareParticipationClaim, finalizeParticipationClaim, getParticipationDistribution] as const;

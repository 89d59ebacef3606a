// The wire shapes of the reputation reads (docs/reputation.md): tier, rank and gates, never a score.
import { z } from 'zod';
import { LEADERBOARD_ROLES } from '../../../core/reputation/standing.ts';
import { REPUTATION_TIERS } from '../../../core/reputation/tiers.ts';
import { ChainId, EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';

export const ReputationTierSchema = z.enum(REPUTATION_TIERS).describe('restricted < new < established < trusted (docs/reputation.md "Tiers")');

/** spec: subjectId 1..256. */
export const SubjectIdParam = z.string().min(1).max(256).describe('an opaque subjectId from a reputation read');

export const TierGatesSchema = z
  .object({
    maxLiveMarkets: z.number().int().nonnegative().describe('live (open or closed) markets a creator of this tier may have at once; the create loop answers 409 LIVE_MARKET_CAP_REACHED beyond it'),
    freeFillsPerMonth: z.number().int().nonnegative().describe('free order-book fills per UTC month (purchased fills come on top)'),
    mayVote: z.boolean().describe('whether the tier may cast a ballot (a verified human identity is required besides); false answers 403 REPUTATION_RESTRICTED'),
  })
  .describe('what the tier allows or limits');

export const ReputationSubjectPayloadWire = z.object({
  subjectId: z.string().describe('opaque and stable while the membership holds: an identity of linked wallets, or one wallet linked to nothing'),
  subjectKind: z.enum(['wallet', 'identity']),
  walletAddress: EvmAddress.nullable().describe('the wallet asked about (lowercase); null for a read by subject'),
  linkedWalletCount: z.number().int().positive().describe('wallets under the subject now (1 for a wallet linked to nothing)'),
  tier: ReputationTierSchema,
  tierSince: IsoTimestamp.nullable().describe('when the subject reached its tier; null before its first recorded activity'),
  rank: z.number().int().positive().nullable().describe('place among subjects with a record, tier first (the overall leaderboard, all time); null without a record'),
  gates: TierGatesSchema,
  updatedAt: IsoTimestamp.nullable().describe('when the reputation fold last touched the subject'),
});

export const ReputationLeaderboardEntry = z.object({
  rank: z.number().int().positive(),
  subjectId: z.string(),
  walletAddress: EvmAddress.describe("an identity's root wallet, or the subject's one wallet (lowercase)"),
  tier: ReputationTierSchema,
});

export const ReputationLeaderboardResponse = z.object({
  role: z.enum(LEADERBOARD_ROLES),
  period: z.enum(['7d', '30d', 'all']),
  entries: z.array(ReputationLeaderboardEntry),
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int().nonnegative().describe('subjects ranked in this role and period'),
  hasMore: z.boolean(),
});

const ReputationEventWire = z.object({
  id: z.string(),
  kind: z.enum(['input', 'tier']).describe('input: a fact that moved a wallet\'s record; tier: a tier change of the subject'),
  reason: z.string().describe('a reason code (docs/reputation.md "Events")'),
  walletAddress: EvmAddress.nullable(),
  chainId: ChainId.nullable(),
  marketAddress: EvmAddress.nullable(),
  change: z.record(z.string(), z.unknown()).describe('an input: the counts it moved; a tier change: {}'),
  tier: z.object({ from: ReputationTierSchema.nullable(), to: ReputationTierSchema }).nullable(),
  source: z.string().nullable().describe('event:<outbox seq>, trade:<tx>:<log index>, fill:<fill id>, attestation or identity'),
  occurredAt: IsoTimestamp,
  recordedAt: IsoTimestamp,
});

export const ReputationEventsResponse = z.object({
  subjectId: z.string(),
  filter: z.enum(['all_linked', 'this_wallet']),
  walletAddress: EvmAddress.describe('the wallet this_wallet means here (lowercase)'),
  events: z.array(ReputationEventWire),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
});

const int = (min: number, max: number, def: number) => z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min).max(max).default(def);
/** spec Limits: limit 1..100 (50), offset 0..9007199254740991 (0). */
export const PageQuery = { limit: int(1, 100, 50), offset: int(0, Number.MAX_SAFE_INTEGER, 0) };
export const EventsQuery = z.strictObject({ ...PageQuery, filter: z.enum(['all_linked', 'this_wallet']).default('all_linked') });

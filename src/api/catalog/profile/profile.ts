// GET /profile/:address: a counterparty's track record and reputation (spec "Reputation and profile reads";
// docs/reputation.md "Profiles").
import { z } from 'zod';
import { ChainId, EvmAddress, WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { ReputationSubjectPayloadWire } from '../reputation/shapes.ts';

const count = z.number().int().nonnegative();

export const ProfileResponse = z.object({
  address: EvmAddress.describe('checksummed'),
  chainId: ChainId,
  agent: z.object({ id: z.uuid(), name: z.string(), label: z.literal('AI').nullable().describe('AI for a claimed agent, which trades on its own record') }).nullable().describe('the agent bound to the wallet, if any'),
  trackRecord: z.object({
    marketsCreated: count,
    marketsLive: count.describe('open or closed now'),
    marketsResolved: count.describe('created markets that finished: resolved clean, or with the creation bond slashed'),
    marketsResolvedClean: count.describe('resolved without a lost dispute or an absent creator'),
    disputes: z.object({
      lost: count.describe('created markets whose proposal a dispute overturned'),
      creatorAbsences: count.describe('created markets left past resolveBy without a proposal'),
      challengesUpheld: count.describe('challenges the wallet filed that the final outcome upheld'),
      challengesLost: count.describe('challenges the wallet filed that the final outcome overturned'),
    }),
    ballots: z.object({ agreedWithVerdict: count, againstVerdict: count }).describe('ballots in rounds whose verdict was binding'),
    trades: count.describe('LMSR trades sent and order-book fills taken part in'),
    volume: z.array(z.object({ symbol: z.string(), trades: count, volume: WeiString.describe("fees excluded, the collateral's base units") })).describe('per collateral (PLAY: play money of order books)'),
  }),
  reputation: ReputationSubjectPayloadWire.nullable().describe("the wallet's subject: tier, rank and gates; null for a wallet nothing is known of"),
});

export const getProfile = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/profile/:address',
  category: 'reputation',
  summary: "A counterparty's track record and reputation",
  description:
    "What a wallet has done, as the service recorded it: markets created, live, resolved (clean or with the bond slashed), disputes and challenges, ballots against binding verdicts, trades and volume per collateral, the agent bound to it (labelled AI when claimed), and its reputation tier, rank and gates. The record follows the reputation fold (a few seconds behind the chain and the ledger). A wallet nothing is known of answers an empty record and reputation null.",
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_profile_by_address' },
  input: { params: z.strictObject({ address: EvmAddress }) },
  output: ProfileResponse,
  outputName: 'CounterpartyProfile',
  errors: ['INVALID_ID'],
  handler: async (ctx, { params }) => ctx.services.reputation.profile(params.address),
});

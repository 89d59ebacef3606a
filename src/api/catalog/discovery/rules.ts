// GET /discover/rules: the public protocol rules (resolution windows, bonds, fund flows, actor actions).
import { z } from 'zod';
import {
  BOND_SLASH_SPLIT,
  CLOSE_TIME_MAX_MS,
  CLOSE_TIME_MIN_MS,
  CREATION_BOND_PM,
  MAX_LIVE_MARKETS_PER_CREATOR,
  RESOLUTION_WINDOW_SECONDS,
} from '../../../core/markets/fees.ts';
import { REPUTATION_TIERS, tierRuleText } from '../../../core/reputation/tiers.ts';
import { WeiString } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';
import { ReputationTierSchema, TierGatesSchema } from '../reputation/shapes.ts';

export const discoverRules = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/rules',
  category: 'discovery',
  summary: 'Protocol rules',
  description:
    'The public protocol rules: close-time bounds, the resolution window and the 2-hour challenge window, the creation bond and how it is returned or slashed (5/20/75 keeper/voter/treasury), how funds flow (subsidy, fees, payouts, residual sweep), the live-market cap per creator, what each reputation tier allows or limits (live-market cap, free fills, voting) and how a subject enters it, and what each actor may do.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_rules' },
  output: z.object({
    markets: z.object({
      outcomeCounts: z.array(z.number().int()),
      closeTime: z.object({ minSecondsAhead: z.number().int(), maxSecondsAhead: z.number().int() }),
      maxLiveMarketsPerCreator: z.number().int().describe('the cap of a creator of tier new; each reputation tier sets its own (reputation.tiers[].gates.maxLiveMarkets)'),
    }),
    resolution: z.object({
      resolutionWindowSeconds: z.number().int(),
      challengeWindowSeconds: z.number().int(),
      challengeBond: z.object({ symbol: z.literal('PM'), amountWei: WeiString }).describe('posted by a challenger to the resolver'),
      voteWindowSeconds: z.number().int(),
      voteQuorum: z.number().int().describe('counted ballots (one per verified human identity) a binding verdict needs'),
      maxVoteRounds: z.number().int(),
      outcomeEncoding: z.string(),
    }),
    bonds: z.object({
      creationBond: z.object({ symbol: z.literal('PM'), amountWei: WeiString }),
      returnedWhen: z.string(),
      slashedWhen: z.string(),
      slashSplitPercent: z.object({ keeper: z.number().int(), voters: z.number().int(), treasury: z.number().int() }),
      votersShareRule: z.string(),
    }),
    fundFlows: z.array(z.object({ flow: z.string(), from: z.string(), to: z.string(), when: z.string() })),
    actors: z.array(z.object({ actor: z.string(), actions: z.array(z.string()) })),
    reputation: z.object({
      model: z.string(),
      tiers: z.array(z.object({ tier: ReputationTierSchema, gates: TierGatesSchema, rule: z.string().describe('how a subject enters and keeps the tier') })).describe('lowest first'),
      refusals: z.array(z.object({ gate: z.string(), code: z.string(), where: z.string() })).describe('what a closed gate answers'),
    }),
  }),
  outputName: 'ProtocolRules',
  errors: [],
  handler: async (ctx) => ({
    markets: {
      outcomeCounts: [2, 3],
      closeTime: { minSecondsAhead: CLOSE_TIME_MIN_MS / 1000, maxSecondsAhead: CLOSE_TIME_MAX_MS / 1000 },
      maxLiveMarketsPerCreator: MAX_LIVE_MARKETS_PER_CREATOR,
    },
    resolution: {
      resolutionWindowSeconds: RESOLUTION_WINDOW_SECONDS,
      challengeWindowSeconds: ctx.services.votes.windows.challengeWindowSeconds,
      challengeBond: { symbol: 'PM' as const, amountWei: CREATION_BOND_PM.toString() },
      voteWindowSeconds: ctx.services.votes.windows.voteWindowSeconds,
      voteQuorum: ctx.services.votes.quorum,
      maxVoteRounds: 2,
      outcomeEncoding: 'outcomes are 1-indexed in resolution and events (1, 2, 3); 0 means Invalid/Void, where every share redeems an equal split; trade sides are 0-indexed',
    },
    bonds: {
      creationBond: { symbol: 'PM' as const, amountWei: CREATION_BOND_PM.toString() },
      returnedWhen: 'the market resolves without a dispute going against the creator',
      slashedWhen: 'a dispute is finalized against the creator, or the creator is absent past resolveBy',
      slashSplitPercent: { ...BOND_SLASH_SPLIT },
      votersShareRule: 'the voters\' part is paid equally to the counted ballots of the final outcome in the binding vote round (the indivisible remainder to the treasury); when no vote was binding (the council decided) it goes to the treasury; the keeper part goes to whoever settles the bond',
    },
    fundFlows: [
      { flow: 'subsidy', from: 'creator', to: 'market', when: 'creation: b·ln(n) of the collateral, the market maker\'s worst-case loss' },
      { flow: 'creation bond', from: 'creator', to: 'market (held in PM)', when: 'creation; back to the creator after resolution, or slashed (bonds)' },
      { flow: 'trade cost', from: 'trader', to: 'market', when: 'buy, through the per-collateral router' },
      { flow: 'protocol fee', from: 'trader', to: 'protocol treasury', when: 'every trade' },
      { flow: 'creator fee', from: 'trader', to: 'market (creator marketBalance)', when: 'every trade; collectable by the creator once the market resolves' },
      { flow: 'payout', from: 'market', to: 'holders of winning shares', when: 'after resolution, claimed (the protocol submits claims)' },
      { flow: 'challenge bond', from: 'challenger', to: 'resolver, then the challenger (the final outcome is not the proposed one) or else the creator', when: 'a challenge; paid out after resolution (the protocol submits it)' },
      { flow: 'residual sweep', from: 'market', to: 'creator', when: 'after resolution: the balance beyond the unredeemed winning shares, the uncollected fees and (PM markets) the unsettled bond and voters\' part (the protocol submits it)' },
    ],
    actors: [
      { actor: 'creator', actions: ['negotiate and deploy a market', 'propose the outcome within the resolution window', 'collect creator funds', 'sweep residual funds'] },
      { actor: 'trader', actions: ['quote and trade while the market is open and tradeable', 'claim payouts after resolution'] },
      { actor: 'challenger', actions: ['dispute a proposal within the challenge window'] },
      { actor: 'voter', actions: ['cast one human vote per identity in a vote session'] },
      { actor: 'council', actions: ['decide markets whose vote reached no quorum or deadlocked'] },
    ],
    reputation: {
      model:
        'Black-box reputation (docs/reputation.md): a subject (an identity of linked wallets, or a wallet linked to nothing) holds a tier computed from its record (trades and volume, markets created and how they ended, disputes and challenges, ballots against binding verdicts, human verification), kept by a fold of the indexer, the ledger and the resolution every few seconds. Reads publish the tier, the rank and these gates, never the numbers behind them. Entering a tier takes a higher bar than keeping it.',
      tiers: REPUTATION_TIERS.map((tier) => ({ tier, gates: ctx.services.reputation.gates(tier), rule: tierRuleText()[tier] })),
      refusals: [
        { gate: 'maxLiveMarkets', code: 'LIVE_MARKET_CAP_REACHED', where: 'POST /negotiate/preflight (problems), /negotiate/propose and /negotiate/{id}/prepare-deploy (409)' },
        { gate: 'freeFillsPerMonth', code: 'FILL_ALLOWANCE_EXHAUSTED', where: 'POST /orderbook/place-order (402) once the free fills of the tier and purchased fills are spent; GET /me fills shows them' },
        { gate: 'mayVote', code: 'REPUTATION_RESTRICTED', where: 'POST /resolution/votes/{sessionId}/ballots (403)' },
      ],
    },
  }),
});

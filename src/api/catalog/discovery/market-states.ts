// GET /discover/market-states: the canonical lifecycle graph (src/core/markets/states.ts).
import { z } from 'zod';
import { CONTROL_AXES, MARKET_STATES, STATE_INFO, TRANSITIONS } from '../../../core/markets/states.ts';
import { ChainId, EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const State = z.enum(MARKET_STATES);

export const discoverMarketStates = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/market-states',
  category: 'discovery',
  summary: 'Market state graph',
  description:
    'The canonical market lifecycle used on every surface: the eight states (open, closed, creator_proposal, challenge, human_voting, council_review, resolved, void) with whether each is terminal, tradeable and claimable, every transition with its trigger and the event it emits, and the control axes (halt, unfreeze, takedown…) that decide isTradeable independently of the state; and where the market named by marketAddress stands in it: its state (also marked current: true in states) and, once its resolution started on chain, the phase, deadlines and outcomes (docs/resolution.md).',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_market_states' },
  input: {
    query: z.strictObject({
      marketAddress: EvmAddress.describe('the market whose current state to place in the graph'),
      chainId: z.coerce.number().pipe(ChainId).optional().describe('defaults to the active chain'),
    }),
  },
  output: z.object({
    market: z.object({
      address: EvmAddress,
      chainId: ChainId,
      state: State,
      resolution: z
        .object({
          phase: z.enum(['proposed', 'disputed', 'voting', 'council', 'resolved']),
          proposedOutcome: z.number().int().nullable(),
          challengeDeadline: IsoTimestamp.nullable(),
          voteRound: z.number().int(),
          voteDeadline: IsoTimestamp.nullable(),
          finalOutcome: z.number().int().nullable(),
        })
        .nullable(),
    }),
    states: z.array(z.object({ state: State, description: z.string(), terminal: z.boolean(), tradeable: z.boolean(), claimable: z.boolean(), current: z.boolean().describe("true for the named market's state") })),
    transitions: z.array(z.object({ from: State, to: State, trigger: z.string(), event: z.string().nullable() })),
    controls: z.object({ axes: z.array(z.enum(CONTROL_AXES)), rule: z.string() }),
  }),
  outputName: 'MarketStateGraph',
  errors: ['UNSUPPORTED_CHAIN', 'MARKET_NOT_FOUND'],
  handler: async (ctx, { query }) => {
    ctx.services.chain.requireServed(query.chainId, 'UNSUPPORTED_CHAIN');
    const market = await ctx.services.votes.market(query.marketAddress);
    return { market, ...GRAPH, states: STATE_INFO.map((s) => ({ ...s, current: s.state === market.state })) };
  },
});

/** The graph itself, the same for every market. */
const GRAPH = {
  transitions: [...TRANSITIONS],
  controls: {
    axes: [...CONTROL_AXES],
    rule: 'A market is tradeable when its state is open and no control axis blocks interaction; every change of a control emits market.controlsChanged with isTradeable recomputed.',
  },
};

/**
 * The catalog of event kinds the outbox carries (GET /events/discovery; docs/events.md): each kind's `data` fields as
 * JSON Schema, whether it is private to one agent, and what emits it. The spec's market kinds, its
 * negotiation.countered, and the order book's execution:report. Pure.
 */
type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const iso: Schema = { type: 'string', format: 'date-time' };
const address: Schema = { type: 'string', pattern: '^0x[0-9a-f]{40}$' };
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
const object = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: 'object', properties, required, additionalProperties: true });

export type EventKind = {
  type: string;
  private: boolean;
  description: string;
  emittedBy: string;
  data: Schema;
};

export const EVENT_KINDS: readonly EventKind[] = [
  { type: 'market.created', private: false, description: 'market metadata registered', emittedBy: 'commit-deploy or the indexer', data: object({ question: str, category: str }) },
  { type: 'market.live', private: false, description: 'the market became tradeable (its creation receipt)', emittedBy: 'commit-deploy or the indexer', data: object({ question: str, creatorAddress: address }) },
  { type: 'market.challengeWindowOpened', private: false, description: 'the creator proposed an outcome (1-indexed; 0 void)', emittedBy: 'the indexer (ResolutionProposed)', data: object({ outcome: int, isVoid: bool, challengeDeadline: iso, eligibleAt: iso }, ['outcome']) },
  { type: 'market.resolution_due', private: false, description: 'resolveBy approaches', emittedBy: 'the lifecycle scheduler', data: object({ question: str, resolveBy: iso, resolveFrom: nullable(iso), creatorAddress: address }) },
  {
    type: 'market.trade',
    private: false,
    description:
      "a trade: kind lmsr when the indexer records an LMSR market's Trade log (txHash, logIndex, trader, cost, pricesAfter; a reorg may take it back), kind orderbook for each fill of an order-book market (fillId, price; side is the taker's). Shares in base units. A hint to read the market again",
    emittedBy: 'the indexer (Trade) and the order loop (fills)',
    data: object({ kind: { enum: ['lmsr', 'orderbook'] }, outcome: int, side: { enum: ['buy', 'sell'] }, shares: str }),
  },
  { type: 'market.resolved', private: false, description: 'the market resolved (0 = void: every share redeems an equal split)', emittedBy: 'the indexer (MarketResolved)', data: object({ outcome: int, isVoid: bool }, ['outcome']) },
  {
    type: 'market.cancelled',
    private: false,
    description:
      'the market ceased to exist without an outcome: reason CREATION_REORGED (its creation left the chain), then CREATION_RELOCATED with relocatedTo once that same creation transaction (createdTx) is mined again at another address — the old address may by then hold another market',
    emittedBy: 'the indexer (a reorged creation)',
    data: object({ reason: { enum: ['CREATION_REORGED', 'CREATION_RELOCATED'] }, relocatedTo: address, createdTx: str, questionHash: str }, ['reason']),
  },
  { type: 'market.controlsChanged', private: false, description: 'an axis moved by an operator control edge (halt, unfreeze, takedown cascade, reinstate, quarantine, release, graduation, mutation lock)', emittedBy: 'svc market <edge> (one event per axis moved)', data: object({ axis: str, previousState: nullable(str), newState: str, reasonCode: nullable(str), isTradeable: bool }) },
  { type: 'market.disputed', private: false, description: 'a challenge was filed', emittedBy: 'the indexer (ResolutionChallenged)', data: object({ challenger: address, counterOutcome: int }) },
  { type: 'market.disputeFinalized', private: false, description: 'a dispute or escalation settled', emittedBy: 'the indexer (MarketResolved after a dispute or an absent creator)', data: object({ finalOutcome: int, creatorSlashed: bool }) },
  { type: 'market.voteOpened', private: false, description: 'a human-vote round opened', emittedBy: 'the indexer (VoteOpened)', data: object({ sessionId: str, round: int, voteDeadline: iso }) },
  { type: 'market.voteClosed', private: false, description: 'a vote round closed', emittedBy: 'the indexer (VoteClosed, or a restart replacing round 1)', data: object({ sessionId: str, verdictKind: { enum: ['binding', 'no_quorum', 'deadlock', 'replaced'] }, outcome: nullable(int) }) },
  { type: 'market.councilReview', private: false, description: 'a council review phase', emittedBy: 'the indexer and the council signatures', data: object({ phase: { enum: ['opened', 'decided', 'executed'] } }) },
  {
    type: 'market.frame',
    private: false,
    description: "an agent published a frame onto the market's surface (GET /market-data/discovery)",
    emittedBy: 'POST /market-data/frames',
    data: object({ frameId: str, kind: { enum: ['forecast', 'datapoint', 'evidence'] }, frame: { type: 'object' }, publisher: object({ agentId: str, name: str, walletAddress: nullable(address) }) }),
  },
  { type: 'negotiation.countered', private: true, description: 'the protocol countered proposed market terms', emittedBy: 'POST /negotiate/propose', data: object({ negotiationId: str, changes: { type: 'array' }, terms: { type: 'object' }, next: { type: 'object' } }, ['negotiationId']) },
  {
    type: 'execution:report',
    private: true,
    description: 'an order event of the agent (acceleration only: POST /orderbook/events is the truth; close gaps by its seq)',
    emittedBy: 'the order loop',
    data: object({ seq: str, type: str, orderId: str }, ['seq', 'type', 'orderId']),
  },
];

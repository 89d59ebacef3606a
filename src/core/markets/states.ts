/**
 * The canonical market lifecycle (GET /discover/market-states): the eight states of the spec and
 * every transition svc defines between them, with what triggers it and the event it emits. Trading
 * is possible only in `open` and only while the control plane allows it (isTradeable); the
 * control axes (halt, unfreeze, …) are orthogonal to the lifecycle state.
 */

export const MARKET_STATES = ['open', 'closed', 'creator_proposal', 'challenge', 'human_voting', 'council_review', 'resolved', 'void'] as const;
export type MarketState = (typeof MARKET_STATES)[number];

export const CONTROL_AXES = ['policy', 'discovery', 'mutation', 'interaction'] as const;
export type ControlAxis = (typeof CONTROL_AXES)[number];

export interface StateInfo {
  state: MarketState;
  description: string;
  terminal: boolean;
  /** Trading is possible in this state (when the controls also allow it). */
  tradeable: boolean;
  /** Payouts can be claimed in this state. */
  claimable: boolean;
}

export interface Transition {
  from: MarketState;
  to: MarketState;
  trigger: string;
  /** Event kind emitted on this edge (consumer-api-v1.md Events), or null. */
  event: string | null;
}

export const STATE_INFO: readonly StateInfo[] = [
  { state: 'open', description: 'Created on chain and tradeable until its close time.', terminal: false, tradeable: true, claimable: false },
  { state: 'closed', description: 'Past close time: no trading; waiting for the creator to propose an outcome within the resolution window.', terminal: false, tradeable: false, claimable: false },
  { state: 'creator_proposal', description: 'The creator proposed an outcome (or void); the 2-hour challenge window is open.', terminal: false, tradeable: false, claimable: false },
  { state: 'challenge', description: 'A challenger disputed the proposal; the dispute is being set up for a human vote.', terminal: false, tradeable: false, claimable: false },
  { state: 'human_voting', description: 'A human-vote session decides the outcome (after a dispute, an absent creator, or an integrity restart).', terminal: false, tradeable: false, claimable: false },
  { state: 'council_review', description: 'The vote reached no quorum or deadlocked; the council decides.', terminal: false, tradeable: false, claimable: false },
  { state: 'resolved', description: 'An outcome is final; winning shares redeem one collateral unit each.', terminal: true, tradeable: false, claimable: true },
  { state: 'void', description: 'Invalid/void is final, or the market was cancelled: every share redeems an equal split.', terminal: true, tradeable: false, claimable: true },
];

export const TRANSITIONS: readonly Transition[] = [
  { from: 'open', to: 'closed', trigger: 'close time reached (scheduler)', event: null },
  { from: 'open', to: 'void', trigger: 'creation reorged out or the market was taken down before close', event: 'market.cancelled' },
  { from: 'open', to: 'creator_proposal', trigger: 'the creator proposes before close time (early resolution is legal from open time); trading stops', event: 'market.challengeWindowOpened' },
  { from: 'closed', to: 'creator_proposal', trigger: 'the creator proposes an outcome or void within the resolution window', event: 'market.challengeWindowOpened' },
  { from: 'closed', to: 'human_voting', trigger: 'resolveBy passed without a proposal (absent creator: bond at risk, crowd backstop)', event: 'market.voteOpened' },
  { from: 'creator_proposal', to: 'resolved', trigger: 'the challenge window closed undisputed with a proposed outcome 1..n', event: 'market.resolved' },
  { from: 'creator_proposal', to: 'void', trigger: 'the challenge window closed undisputed with a void proposal', event: 'market.resolved' },
  { from: 'creator_proposal', to: 'challenge', trigger: 'a challenger files a dispute with a counter-outcome', event: 'market.disputed' },
  { from: 'challenge', to: 'human_voting', trigger: 'the dispute opens a human-vote session', event: 'market.voteOpened' },
  { from: 'human_voting', to: 'human_voting', trigger: 'an integrity restart replaces the session (round 2)', event: 'market.voteOpened' },
  { from: 'human_voting', to: 'resolved', trigger: 'binding verdict for an outcome', event: 'market.disputeFinalized' },
  { from: 'human_voting', to: 'void', trigger: 'binding verdict for void', event: 'market.disputeFinalized' },
  { from: 'human_voting', to: 'council_review', trigger: 'no quorum or deadlock', event: 'market.councilReview' },
  { from: 'council_review', to: 'resolved', trigger: 'the council decides an outcome', event: 'market.disputeFinalized' },
  { from: 'council_review', to: 'void', trigger: 'the council decides void', event: 'market.disputeFinalized' },
];

export const canTransition = (from: MarketState, to: MarketState): boolean => TRANSITIONS.some((t) => t.from === from && t.to === to);

export const isTerminal = (state: MarketState): boolean => STATE_INFO.find((s) => s.state === state)!.terminal;

/**
 * The control plane, orthogonal to the lifecycle: one value per axis. Edges: halt and unfreeze move
 * `interaction`; a takedown moves `policy` and cascades to discovery (hidden) and interaction (halted);
 * quarantine and graduation move `discovery`; a mutation lock moves `mutation`.
 */
export const CONTROL_VALUES = {
  policy: ['active', 'taken_down'],
  discovery: ['listed', 'quarantined', 'graduated', 'hidden'],
  mutation: ['unlocked', 'locked'],
  interaction: ['enabled', 'halted'],
} as const satisfies Record<ControlAxis, readonly string[]>;

export type Controls = { [A in ControlAxis]: (typeof CONTROL_VALUES)[A][number] };

export const DEFAULT_CONTROLS: Controls = { policy: 'active', discovery: 'listed', mutation: 'unlocked', interaction: 'enabled' };

/** The boolean a quoting agent must obey: open, before close, not halted, not taken down. */
export function isTradeable(state: MarketState, controls: Controls, closeTime: Date, now: Date): boolean {
  return state === 'open' && now.getTime() < closeTime.getTime() && controls.interaction === 'enabled' && controls.policy === 'active';
}

/** Whether listings show the market (detail reads always do). */
export const isListed = (controls: Controls): boolean => controls.policy === 'active' && (controls.discovery === 'listed' || controls.discovery === 'graduated');

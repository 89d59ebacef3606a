/**
 * The operator's control-plane edges (docs/markets.md "Controls"): what each edge moves on the four axes, when it is
 * refused, and the market.controlsChanged change list it produces — one change per axis moved, the takedown's
 * cascade included. Pure; src/services/markets/lifecycle.ts applies the changes with their events.
 */
import { CONTROL_AXES, type ControlAxis, type Controls } from './states.ts';

export const CONTROL_EDGES = ['halt', 'unfreeze', 'takedown', 'reinstate', 'quarantine', 'release', 'graduate', 'lock', 'unlock'] as const;
export type ControlEdge = (typeof CONTROL_EDGES)[number];

export const CONTROL_EDGE_TEXT: Record<ControlEdge, string> = {
  halt: 'interaction → halted: no trading or new orders (resting orders stay)',
  unfreeze: 'interaction → enabled (refused while taken down)',
  takedown: 'policy → taken_down, cascading discovery → hidden, interaction → halted and mutation → locked; resting orders are cancelled',
  reinstate: 'policy → active and discovery → listed after a takedown; interaction and mutation stay until unfreeze and unlock',
  quarantine: 'discovery → quarantined: out of listings and search, detail reads and trading unchanged (refused while taken down)',
  release: 'discovery quarantined → listed',
  graduate: 'discovery listed → graduated: listed, marked as past review',
  lock: 'mutation → locked: the market surface takes no new frames or comments',
  unlock: 'mutation → unlocked (refused while taken down)',
};

export interface ControlChange {
  axis: ControlAxis;
  previousState: string;
  newState: string;
}

/** Why `edge` cannot be applied to `controls`, or null. An edge that would change nothing is not refused (it is empty). */
export function edgeRefusal(controls: Controls, edge: ControlEdge): string | null {
  const down = controls.policy === 'taken_down';
  switch (edge) {
    case 'unfreeze':
    case 'unlock':
    case 'quarantine':
    case 'graduate':
    case 'release':
      if (down) return `the market is taken down: reinstate it before ${edge}`;
      if (edge === 'graduate' && controls.discovery === 'quarantined') return 'a quarantined market is released before it graduates';
      if (edge === 'release' && controls.discovery === 'graduated') return 'the market is not quarantined';
      return null;
    case 'reinstate':
      return down ? null : 'the market is not taken down';
    default:
      return null;
  }
}

/** The target value per axis an edge sets (the cascade of a takedown included). */
function targets(controls: Controls, edge: ControlEdge): Partial<Controls> {
  switch (edge) {
    case 'halt':
      return { interaction: 'halted' };
    case 'unfreeze':
      return { interaction: 'enabled' };
    case 'takedown':
      return { policy: 'taken_down', discovery: 'hidden', interaction: 'halted', mutation: 'locked' };
    case 'reinstate':
      return { policy: 'active', discovery: 'listed' };
    case 'quarantine':
      return { discovery: 'quarantined' };
    case 'release':
      return controls.discovery === 'quarantined' ? { discovery: 'listed' } : {};
    case 'graduate':
      return { discovery: 'graduated' };
    case 'lock':
      return { mutation: 'locked' };
    case 'unlock':
      return { mutation: 'unlocked' };
  }
}

/** The controls after `edge` and each axis it moved, in axis order (policy, discovery, mutation, interaction). */
export function applyEdge(controls: Controls, edge: ControlEdge): { next: Controls; changes: ControlChange[] } {
  const next = { ...controls, ...targets(controls, edge) } as Controls;
  const changes = CONTROL_AXES.filter((axis) => next[axis] !== controls[axis]).map((axis) => ({ axis, previousState: controls[axis], newState: next[axis] }));
  return { next, changes };
}

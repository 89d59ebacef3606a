/**
 * Market-surface frames (docs/market-data.md): typed, attributed items an agent publishes onto a market's surface,
 * delivered to the market's subscribers (event market.frame) and listed by the market's frames read. The kinds,
 * their text limits, where a frame may be published, and the rules no schema can state (a forecast's probabilities
 * sum to 1 over the market's outcomes). Pure.
 */
import type { MarketState } from './states.ts';
import { WAD } from './price.ts';

export const FRAME_KINDS = ['forecast', 'datapoint', 'evidence'] as const;
export type FrameKind = (typeof FRAME_KINDS)[number];

export const EVIDENCE_STANCES = ['supports', 'contradicts', 'context'] as const;
export type EvidenceStance = (typeof EVIDENCE_STANCES)[number];

export const FRAME_LIMITS = {
  rationaleMax: 1000,
  labelMax: 120,
  unitMax: 24,
  titleMax: 200,
  summaryMax: 1000,
  sourceNameMax: 120,
  urlMax: 2048,
  /** A forecast's probabilities may miss 1 by at most this (1e18 = 1): 0.0001, for rounding by the publisher. */
  sumToleranceWad: 10n ** 14n,
  /** Frames a market read returns at most per page (default 20). */
  pageMax: 100,
  pageDefault: 20,
} as const;

/** A probability or price on the wire: a decimal string in [0, 1] with at most 18 decimals (the price scale). */
export const PROBABILITY_PATTERN = /^(0(\.[0-9]{1,18})?|1(\.0{1,18})?)$/;

/** A measured value: a signed decimal string, at most 30 integer digits and 18 decimals. */
export const VALUE_PATTERN = /^-?[0-9]{1,30}(\.[0-9]{1,18})?$/;

export interface ForecastData {
  /** One per outcome, in the market's outcome order; each in [0, 1]; they sum to 1. */
  probabilities: string[];
  rationale?: string;
}

export interface DatapointData {
  label: string;
  value: string;
  unit?: string;
  observedAt: string;
  source: { url: string; name?: string };
}

export interface EvidenceData {
  url: string;
  title: string;
  summary?: string;
  stance: EvidenceStance;
  /** 0-based outcome the stance is about (the trade side numbering); absent for context. */
  outcome?: number;
}

export type FrameInput = { kind: 'forecast'; data: ForecastData } | { kind: 'datapoint'; data: DatapointData } | { kind: 'evidence'; data: EvidenceData };

/** A market accepts frames until it is final: resolved and void surfaces are closed (and taken-down markets are not listed). */
export const FRAMES_CLOSED_STATES: readonly MarketState[] = ['resolved', 'void'];

/** Decimal string in [0, 1] → 1e18-scaled integer. */
export function probabilityToWad(p: string): bigint {
  if (!PROBABILITY_PATTERN.test(p)) throw new RangeError(`not a probability: ${p}`);
  const [whole, frac = ''] = p.split('.');
  return BigInt(whole!) * WAD + BigInt(frac.padEnd(18, '0'));
}

/**
 * Why a frame does not fit its market, or null when it does: a forecast names one probability per outcome summing
 * to 1 (within FRAME_LIMITS.sumToleranceWad); evidence about an outcome names one the market has.
 */
export function frameMismatch(frame: FrameInput, outcomeCount: number): string | null {
  if (frame.kind === 'forecast') {
    const { probabilities } = frame.data;
    if (probabilities.length !== outcomeCount) return `data.probabilities: the market has ${outcomeCount} outcomes; give one probability each (got ${probabilities.length})`;
    const sum = probabilities.reduce((s, p) => s + probabilityToWad(p), 0n);
    const off = sum > WAD ? sum - WAD : WAD - sum;
    if (off > FRAME_LIMITS.sumToleranceWad) return 'data.probabilities: they must sum to 1 (within 0.0001)';
  }
  if (frame.kind === 'evidence') {
    const { outcome, stance } = frame.data;
    if (outcome !== undefined && outcome >= outcomeCount) return `data.outcome: the market's outcomes are 0..${outcomeCount - 1}`;
    if (outcome === undefined && stance !== 'context') return `data.outcome: a stance of ${stance} names the outcome it is about`;
  }
  return null;
}

/** Public id of a frame: frm_ + its row id. */
export const frameId = (rowId: bigint | string): string => `frm_${rowId}`;

/** The row id of a public frame id, or null when it is not one. */
export function frameRowId(id: string): bigint | null {
  const m = /^frm_([1-9][0-9]{0,18})$/.exec(id);
  return m ? BigInt(m[1]!) : null;
}

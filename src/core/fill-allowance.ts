/**
 * The fill allowance of GET /me (spec: Fill allowance). Counts are whole fills; prices are US
 * cents. Free fills reset at the first moment of each UTC month; purchased fills never expire.
 */

export interface FillPack {
  fills: number;
  usdCents: number;
}

export interface FillAllowance {
  enabled: boolean;
  freePerMonth: number;
  freeUsed: number;
  freeRemaining: number;
  paidRemaining: number;
  /** freeRemaining + paidRemaining. */
  remaining: number;
  /** ISO instant: the first moment of the next UTC month. */
  resetsOn: string;
  /** Cheapest first. */
  packs: FillPack[];
}

/** 'YYYY-MM' of the UTC month containing `at`: the key free fills are counted under. */
export const fillMonth = (at: Date): string => `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

/** The first moment of the UTC month after the one containing `at`. */
export const nextMonthStart = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

export function fillAllowance(p: { enabled: boolean; freePerMonth: number; freeUsedThisMonth: number; paidRemaining: number; packs: readonly FillPack[]; now: Date }): FillAllowance {
  // Disabled means nothing is counted: usage reads zero and nothing runs out.
  const freeUsed = p.enabled ? Math.min(p.freeUsedThisMonth, p.freePerMonth) : 0;
  const freeRemaining = p.freePerMonth - freeUsed;
  const paidRemaining = Math.max(0, p.paidRemaining);
  return {
    enabled: p.enabled,
    freePerMonth: p.freePerMonth,
    freeUsed,
    freeRemaining,
    paidRemaining,
    remaining: freeRemaining + paidRemaining,
    resetsOn: nextMonthStart(p.now).toISOString(),
    packs: [...p.packs].sort((a, b) => a.usdCents - b.usdCents || b.fills - a.fills),
  };
}

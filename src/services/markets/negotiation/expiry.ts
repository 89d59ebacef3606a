import { problem } from '../../../core/error-codes.ts';
import type { NegotiationRow } from './deps.ts';

/** How long a negotiation may wait for accept and deploy. */
export const NEGOTIATION_TTL_MS = 24 * 60 * 60 * 1000;

/** A deployed negotiation never expires: its market exists. */
export const isExpired = (row: NegotiationRow, now: Date): boolean => row.status !== 'deployed' && row.expires_at.getTime() <= now.getTime();

/** Throws NEGOTIATION_EXPIRED for a negotiation past its expiry; the message names it by `id` (as the caller asked). */
export function requireUnexpired(row: NegotiationRow, now: Date, id: string = row.id): void {
  if (isExpired(row, now)) throw problem('NEGOTIATION_EXPIRED', `negotiation ${id} expired at ${row.expires_at.toISOString()}; propose again`);
}

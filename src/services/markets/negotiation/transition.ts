import { problem } from '../../../core/error-codes.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import { requireUnexpired } from './expiry.ts';

type Status = NegotiationRow['status'];

/**
 * Moves a negotiation from one of `from` to `to`, once: a negotiation already in `to` answers unchanged (a repeated
 * step), and one changed by a concurrent step is NEGOTIATION_STATE. Under an Idempotency-Key, `recordEffect` records
 * the move (by negotiation id) in its own transaction; a repeated step moved nothing and records nothing.
 */
export async function transitionNegotiation(
  deps: Pick<NegotiationDeps, 'db' | 'clock'>,
  row: NegotiationRow,
  from: readonly Status[],
  to: Status,
  recordEffect?: EffectRecorder,
): Promise<NegotiationRow> {
  requireUnexpired(row, deps.clock.now());
  if (row.status === to) return row;
  if (!from.includes(row.status)) throw problem('NEGOTIATION_STATE', `negotiation ${row.id} is ${row.status}; this step needs ${from.join(' or ')}`);
  const updated = await deps.db.transaction().execute(async (trx) => {
    const moved = await trx.updateTable('negotiations').set({ status: to, updated_at: deps.clock.now() }).where('id', '=', row.id).where('status', '=', row.status).returningAll().executeTakeFirst();
    if (moved) await recordEffect?.(trx, row.id);
    return moved;
  });
  if (!updated) throw problem('NEGOTIATION_STATE', `negotiation ${row.id} changed while this step ran; read it again`);
  return updated;
}

import type { Principal } from '../../../core/principal.ts';
import type { EffectRecorder } from '../../idempotency/idempotency.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import { getNegotiation } from './get-negotiation.ts';
import { transitionNegotiation } from './transition.ts';

/** POST /negotiate/{id}/accept: a proposed or countered negotiation becomes accepted (ready for prepare-deploy). */
export async function acceptNegotiation(deps: Pick<NegotiationDeps, 'db' | 'clock'>, principal: Principal, id: string, recordEffect?: EffectRecorder): Promise<NegotiationRow> {
  return transitionNegotiation(deps, await getNegotiation(deps, principal, id), ['proposed', 'countered'], 'accepted', recordEffect);
}

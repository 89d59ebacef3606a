import type { Principal } from '../../../core/principal.ts';
import type { NegotiationDeps, NegotiationRow } from './deps.ts';
import { loadNegotiationWithAgent } from './load-negotiation.ts';

/** GET /negotiate/{id}: the agent's own negotiation, or NEGOTIATION_NOT_FOUND. */
export async function getNegotiation(deps: Pick<NegotiationDeps, 'db'>, principal: Principal, id: string): Promise<NegotiationRow> {
  return (await loadNegotiationWithAgent(deps.db, principal, id)).row;
}

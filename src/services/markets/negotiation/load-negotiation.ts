import type { Kysely } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { Principal } from '../../../core/principal.ts';
import type { DB } from '../../../db/schema.ts';
import { requireAgent, type AgentRow } from '../../identity/agents.ts';
import type { NegotiationRow } from './deps.ts';

export interface NegotiationWithAgent {
  row: NegotiationRow;
  agent: AgentRow;
}

/** The agent's own negotiation (another agent's is as unknown as a missing one: NEGOTIATION_NOT_FOUND), with the agent. */
export async function loadNegotiationWithAgent(db: Kysely<DB>, principal: Principal, id: string): Promise<NegotiationWithAgent> {
  const agent = await requireAgent(db, principal);
  const row = await db.selectFrom('negotiations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.agent_id !== agent.id) throw problem('NEGOTIATION_NOT_FOUND', `negotiation ${id} not found`);
  return { row, agent };
}

// An agent's reputation read: its bound wallet's (docs/reputation.md "Reads").
import { isUuid } from '../../../core/ids.ts';
import type { ReputationDeps } from '../deps.ts';
import { currentSubjectKey } from '../subjects.ts';
import { viewOf, type ReputationView } from './view.ts';

/** An agent's reputation: its bound wallet's. Null for an unknown agent or one without a wallet. */
export async function agentReputation(deps: Pick<ReputationDeps, 'db' | 'freeFillsPerMonth'>, agentId: string): Promise<(ReputationView & { agentId: string }) | null> {
  if (!isUuid(agentId)) return null;
  const agent = await deps.db.selectFrom('agents').select(['id', 'wallet_address']).where('id', '=', agentId.toLowerCase()).executeTakeFirst();
  if (!agent?.wallet_address) return null;
  return { agentId: agent.id, ...(await viewOf(deps, await currentSubjectKey(deps.db, agent.wallet_address), agent.wallet_address)) };
}

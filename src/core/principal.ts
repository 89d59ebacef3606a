// Who is calling: the authenticated principal of one request.
import type { Scope } from './scopes.ts';
import type { AgentTier } from './tiers.ts';

/** The authenticated caller of one request. */
export interface Principal {
  keyId: string;
  /** null for an operator key (issued by `svc keys create`, belonging to no agent). */
  agentId: string | null;
  tier: AgentTier;
  scopes: readonly Scope[];
}

// The catalog: the one list of capabilities. Adding an operation is one file plus one line here.
import type { Capability } from './types.ts';
import { getTime } from './system/time.ts';
import { getHealth } from './system/health.ts';
import { discoverCapabilities } from './discovery/capabilities.ts';
import { discoverChains } from './discovery/chains.ts';
import { discoverCollateral } from './discovery/collateral.ts';
import { discoverContracts } from './discovery/contracts.ts';
import { getTransactionAgent, getTransactionConsumer } from './transactions/status.ts';
import { agentOpenApi, consumerOpenApi } from './docs/openapi.ts';
import { createAuthNonce } from './auth/nonce.ts';
import { register } from './identity/register.ts';

export const CATALOG: readonly Capability[] = [
  getTime,
  getHealth,
  discoverCapabilities,
  discoverChains,
  discoverCollateral,
  discoverContracts,
  getTransactionAgent,
  getTransactionConsumer,
  agentOpenApi,
  consumerOpenApi,
  createAuthNonce,
  register,
];

/** AgentCapability objects exactly as the spec shapes them. */
export function agentCapabilities(catalog: readonly Capability[]) {
  return catalog
    .filter((c) => c.surface === 'agent')
    .map((c) => ({
      name: c.name,
      category: c.category,
      // Public capabilities need no key; they advertise the lowest tier (docs/http.md).
      requiredTier: c.tier ?? ('read-only' as const),
      description: c.description,
      method: c.method,
      path: c.path,
      idempotent: c.idempotent,
      surface: 'agent' as const,
    }));
}

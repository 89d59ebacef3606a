/**
 * What an agent's keys may do, derived from what the agent has proved (spec: Registration table).
 * Every change of proof — email verified, wallet bound, claim accepted — recomputes this and
 * applies it to the agent's live keys, so a key never carries more than its agent has earned.
 */
import type { AgentTier } from './tiers.ts';
import { ALL_SCOPES, type Scope } from './scopes.ts';

/** Anonymous keys expire this long after issue. */
export const ANONYMOUS_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export const ANONYMOUS_SCOPES: readonly Scope[] = ['markets:read'];
export const EMAIL_SCOPES: readonly Scope[] = ['markets:read', 'markets:propose', 'trade:quote', 'portfolio:read', 'social:write', 'keys:read'];
/** A claimed-path agent before its owner claims it: reads and quotes. */
export const CLAIM_PENDING_SCOPES: readonly Scope[] = ['markets:read', 'trade:quote', 'portfolio:read', 'keys:read'];
export const WALLET_SCOPES: readonly Scope[] = ALL_SCOPES;

export interface AgentProofs {
  registrationPath: 'anonymous' | 'email' | 'wallet' | 'claim' | 'operator';
  walletAddress: string | null;
  emailVerified: boolean;
  claimedAt: Date | null;
}

export interface Entitlement {
  tier: AgentTier;
  scopes: readonly Scope[];
  /** dormant: the key exists but authenticates nothing until the email is verified. */
  status: 'active' | 'dormant';
  /** true: keys expire 24 h after issue (anonymous); false: no expiry. */
  expires: boolean;
}

/** null for operator agents: their keys are issued by `svc keys create` with the tier named there. */
export function entitlementOf(agent: AgentProofs): Entitlement | null {
  if (agent.registrationPath === 'operator') return null;
  if (agent.registrationPath === 'claim' && agent.claimedAt === null) {
    return { tier: 'propose', scopes: CLAIM_PENDING_SCOPES, status: 'active', expires: false };
  }
  if (agent.walletAddress !== null) return { tier: 'execute', scopes: WALLET_SCOPES, status: 'active', expires: false };
  if (agent.emailVerified) return { tier: 'propose', scopes: EMAIL_SCOPES, status: 'active', expires: false };
  if (agent.registrationPath === 'email') return { tier: 'propose', scopes: EMAIL_SCOPES, status: 'dormant', expires: false };
  return { tier: 'read-only', scopes: ANONYMOUS_SCOPES, status: 'active', expires: true };
}

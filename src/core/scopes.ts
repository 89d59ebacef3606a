// The scope vocabulary of the agent API and the default scopes each tier's key gets when none are named.
import type { AgentTier } from './tiers.ts';

/** The eleven scopes of a wallet-registered agent (spec: Registration table). */
export const ALL_SCOPES = [
  'markets:read',
  'markets:propose',
  'markets:create',
  'trade:quote',
  'trade:execute',
  'resolution:execute',
  'fees:claim',
  'portfolio:read',
  'social:write',
  'webhooks:manage',
  'keys:read',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

export const isScope = (s: string): s is Scope => (ALL_SCOPES as readonly string[]).includes(s);

export const TIER_DEFAULT_SCOPES: Record<AgentTier, readonly Scope[]> = {
  'read-only': ['markets:read', 'portfolio:read', 'keys:read'],
  // The email path's scopes: propose and quote, no trading.
  propose: ['markets:read', 'markets:propose', 'trade:quote', 'portfolio:read', 'social:write', 'keys:read'],
  execute: ALL_SCOPES,
};

// The key tiers of the agent API, lowest first (spec: Registration table).

export const AGENT_TIERS = ['read-only', 'propose', 'execute'] as const;
export type AgentTier = (typeof AGENT_TIERS)[number];
/** 0 for read-only, 1 for propose, 2 for execute: a key reaches every tier at or below its own. */
export const tierRank = (t: AgentTier): number => AGENT_TIERS.indexOf(t);

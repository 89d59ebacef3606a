// Reputation reads of both surfaces (docs/reputation.md), in the catalog's order.
import { AGENT_REPUTATION_CAPABILITIES } from './agent.ts';
import { CONSUMER_REPUTATION_CAPABILITIES } from './consumer.ts';

export const REPUTATION_CAPABILITIES = [...AGENT_REPUTATION_CAPABILITIES, ...CONSUMER_REPUTATION_CAPABILITIES] as const;

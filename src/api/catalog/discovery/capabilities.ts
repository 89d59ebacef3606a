import { z } from 'zod';
import { AgentCapabilitySchema } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

export const discoverCapabilities = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/capabilities',
  category: 'discovery',
  summary: 'Agent capabilities',
  description: 'Every capability of the agent interface with its minimum tier, generated from the capability catalog.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_discover_capabilities' },
  output: z.object({ capabilities: z.array(AgentCapabilitySchema) }),
  errors: [],
  handler: async (ctx) => ({ capabilities: ctx.documents.agentCapabilities() }),
});

// GET /skill.json: how an agent uses svc (loops, auth, limits, errors, guarantees); skill.md renders the same object.
import { SkillSchema } from '../../docs/skill-schema.ts';
import { defineCapability } from '../types.ts';

export const skillJson = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/skill.json',
  category: 'discovery',
  summary: 'Agent skill',
  description:
    'The canonical agent loops (discover, create, trade, listen, order book), each step with its REST call and its MCP tool; authentication, tiers, registration and wallet-proof elevation; rate limits, paging bounds and other limits; the problem+json error shape and every error code; versioning; and the guarantees an agent may rely on. /skill.md is the same document in markdown.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_skill' },
  output: SkillSchema,
  outputName: 'Skill',
  errors: [],
  handler: async (ctx) => ctx.documents.skill(),
});

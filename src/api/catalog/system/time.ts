import { z } from 'zod';
import { defineCapability } from '../types.ts';

export const getTime = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/time',
  category: 'system',
  summary: 'Server time',
  description: 'The server clock in Unix epoch milliseconds, for signing wallet proofs with a timestamp the server accepts.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_time' },
  output: z.object({ serverTime: z.number().int() }),
  errors: [],
  handler: async (ctx) => ({ serverTime: ctx.clock.now().getTime() }),
});

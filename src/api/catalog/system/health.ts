import { z } from 'zod';
import { defineCapability, Reply } from '../types.ts';

const Check = z.object({ ok: z.boolean(), detail: z.string().nullable() });

export const getHealth = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/health',
  category: 'system',
  summary: 'Readiness',
  description:
    'Readiness of the service: database reachable, chain head (number and age), indexer lag (null until the indexer runs). 200 when ready, 503 with the same body when not.',
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_health' },
  output: z.object({
    status: z.enum(['ok', 'degraded']),
    checkedAt: z.iso.datetime({ offset: true }),
    database: Check.extend({ kind: z.enum(['pglite', 'postgres']) }),
    chain: Check.extend({
      chainId: z.number().int(),
      headBlock: z.string().regex(/^[0-9]+$/).nullable(),
      headAgeSeconds: z.number().int().nullable(),
    }),
    indexer: z.object({ lagSeconds: z.number().int().nullable(), healthy: z.boolean().nullable() }),
  }),
  alsoOutputStatuses: [503],
  errors: [],
  handler: async (ctx) => {
    const report = await ctx.services.health.check();
    return report.status === 'ok' ? report : new Reply(report, 503);
  },
});

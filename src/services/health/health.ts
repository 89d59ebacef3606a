// Readiness: the database answers, the chain node answers (head number and age) and is reconciled (liveness). The indexer's lag
// joins this report when the indexer exists.
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { DB } from '../../db/schema.ts';
import type { ChainService } from '../chain/chain-service.ts';

export interface HealthReport {
  status: 'ok' | 'degraded';
  checkedAt: string;
  database: { ok: boolean; detail: string | null; kind: 'pglite' | 'postgres' };
  chain: { ok: boolean; detail: string | null; chainId: number; headBlock: string | null; headAgeSeconds: number | null };
  indexer: { lagSeconds: number | null; healthy: boolean | null };
}

export interface HealthService {
  check(): Promise<HealthReport>;
}

export function createHealthService(deps: { db: Kysely<DB>; dbKind: 'pglite' | 'postgres'; chain: ChainService; clock: Clock }): HealthService {
  return {
    async check() {
      const now = deps.clock.now();
      const database = await sql`select 1 as ok`
        .execute(deps.db)
        .then(() => ({ ok: true, detail: null }))
        .catch((err: unknown) => ({ ok: false, detail: `database unreachable: ${(err as Error).message}` }));
      const chain = await deps.chain
        .head()
        .then((h) => ({
          ok: true,
          detail: null,
          headBlock: h.blockNumber.toString(),
          headAgeSeconds: Math.max(0, Math.floor((now.getTime() - h.timestamp.getTime()) / 1000)),
        }))
        .catch(() => ({ ok: false, detail: 'chain node unreachable', headBlock: null, headAgeSeconds: null }));
      // Answering is not enough: after the node came back, chain-dependent writes wait for the reconciliation.
      const live = deps.chain.liveness();
      if (chain.ok && !live.up) Object.assign(chain, { ok: false, detail: `chain node ${live.reason ?? 'down'}; reconciling` });
      return {
        status: database.ok && chain.ok ? 'ok' : 'degraded',
        checkedAt: now.toISOString(),
        database: { ...database, kind: deps.dbKind },
        chain: { ...chain, chainId: deps.chain.chainId },
        indexer: { lagSeconds: null, healthy: null },
      };
    },
  };
}

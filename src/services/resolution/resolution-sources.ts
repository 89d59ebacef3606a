/**
 * The resolutionSource catalog (GET /resolution/sources): where listed markets say their outcome will be read, grouped
 * by the host of an https URL, or as free text, with how many markets (and open ones) name each and the latest of
 * them as an example (docs/resolution-reads.md).
 */
import { sql } from 'kysely';
import type { ResolutionReadDeps } from './read-context.ts';

/** Most source groups one answer lists. */
export const RESOLUTION_SOURCES_LIMIT = 100;

export interface ResolutionSourceGroup {
  /** The lowercase host of an https URL (no credentials, no port), or 'text'. */
  source: string;
  kind: 'url' | 'text';
  marketCount: number;
  /** Of those, markets in state open. */
  openMarketCount: number;
  /** The most recently registered market of the group. */
  exampleMarket: { address: string; question: string; resolutionSource: string };
}

export interface ResolutionSources {
  chainId: number;
  sources: ResolutionSourceGroup[];
}

// The host of a value that starts with https:// (any case): what follows up to '/', '?', '#' or ':', after any
// credentials. Everything else is text.
const HOST = '^[hH][tT][tT][pP][sS]://(?:[^/?#@]*@)?([^/?#:@]+)';

export async function resolutionSources(deps: Pick<ResolutionReadDeps, 'db' | 'chainId'>): Promise<ResolutionSources> {
  const rows = await sql<{ source: string; kind: 'url' | 'text'; market_count: number; open_market_count: number; address: string; question: string; resolution_source: string }>`
    WITH grouped AS (
      SELECT coalesce(lower(substring(resolution_source FROM ${HOST})), 'text') AS source,
             CASE WHEN substring(resolution_source FROM ${HOST}) IS NULL THEN 'text' ELSE 'url' END AS kind,
             count(*)::int AS market_count,
             (count(*) FILTER (WHERE state = 'open'))::int AS open_market_count,
             max(id) AS example_id
        FROM markets
       WHERE chain_id = ${deps.chainId} AND listed AND resolution_source IS NOT NULL
       GROUP BY 1, 2
       ORDER BY market_count DESC, source, kind
       LIMIT ${RESOLUTION_SOURCES_LIMIT}
    )
    SELECT g.source, g.kind, g.market_count, g.open_market_count, m.address, m.question, m.resolution_source
      FROM grouped g JOIN markets m ON m.id = g.example_id
     ORDER BY g.market_count DESC, g.source, g.kind`.execute(deps.db);
  return {
    chainId: deps.chainId,
    sources: rows.rows.map((r) => ({
      source: r.source,
      kind: r.kind,
      marketCount: r.market_count,
      openMarketCount: r.open_market_count,
      exampleMarket: { address: r.address, question: r.question, resolutionSource: r.resolution_source },
    })),
  };
}

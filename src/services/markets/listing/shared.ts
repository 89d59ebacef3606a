/**
 * What the market listings share (docs/markets.md "Reads"): the filter builder over the `markets` projection, the
 * keyset cursor of sort=new and the 24-hour volume of a page. The reads themselves, one per file beside this one:
 * GET /discover/markets and GET /api/v1/markets (list-markets.ts), /markets/counts (count-markets.ts),
 * /markets/sitemap (list-sitemap.ts), and the live-market count of a creator for the create loop's
 * MAX_LIVE_MARKETS_PER_CREATOR rule (count-live-markets.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { problem } from '../../../core/error-codes.ts';
import type { MarketState } from '../../../core/markets/states.ts';
import type { DB } from '../../../db/index.ts';
import type { MarketRow } from '../records.ts';
import type { ListingSort } from '../../../wire/market-reads.ts';

/** Every field narrows the listing; absent fields do not. Strings are compared case-insensitively. */
export interface ListingFilter {
  chainId?: number;
  category?: string;
  state?: MarketState;
  /** A market address or a prefix of one ("0x" plus up to 40 hex digits). */
  addressPrefix?: string;
  creator?: string;
  /** 2..200 characters: substring of the question, or trigram similarity > 0.3 where pg_trgm exists. */
  search?: string;
  pricingModel?: 'automated' | 'ORDERBOOK';
  /** Collateral token addresses (already resolved from a symbol). */
  collateralTokens?: readonly string[];
  /** Open markets whose close time falls in (now, closesBefore]. */
  closesBefore?: Date;
  /** Whole-percent band of the first outcome's price: floor(price · 100), inclusive (percentOf). */
  probMin?: number;
  probMax?: number;
  geoPlace?: string;
  geoCountry?: string;
}

export interface ListingRequest {
  filter: ListingFilter;
  sort: ListingSort;
  /** Page size, 1..100. */
  limit: number;
  /** Opaque keyset cursor from a prior nextCursor; only with sort=new. */
  cursor?: string;
  now: Date;
}

export interface ListingPage {
  rows: MarketRow[];
  /** Σ cost of each returned market's trades in the 24 hours before `now`, keyed by marketKey(). */
  volume24h: Map<string, string>;
  /** Set only for sort=new when more markets follow. */
  nextCursor: string | null;
}

const DAY_MS = 86_400_000;
export const marketKey = (chainId: number, address: string): string => `${chainId}:${address.toLowerCase()}`;

// Which databases have pg_trgm, asked once per database handle (the extension is created by migration 0007).
const trigramByDb = new WeakMap<object, Promise<boolean>>();

/** Whether pg_trgm is installed in this database; search falls back to substring matching without it. */
export function hasTrigram(db: Kysely<DB>): Promise<boolean> {
  let known = trigramByDb.get(db);
  if (!known) {
    known = sql<{ present: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS present`
      .execute(db)
      .then((r) => r.rows[0]?.present === true)
      .catch(() => false);
    trigramByDb.set(db, known);
  }
  return known;
}

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The listing condition over `markets` aliased `m`: listed markets (mirrors isListed) narrowed by `f`. */
export function listingCondition(f: ListingFilter, now: Date, trigram: boolean): RawBuilder<boolean> {
  const c: RawBuilder<unknown>[] = [
    // The generated column: registered metadata and isListed(controls); the listing indexes are partial on it.
    sql`m.listed`,
  ];
  if (f.chainId !== undefined) c.push(sql`m.chain_id = ${f.chainId}`);
  if (f.category !== undefined) c.push(sql`lower(m.category) = ${f.category.toLowerCase()}`);
  if (f.state !== undefined) c.push(sql`m.state = ${f.state}`);
  if (f.addressPrefix !== undefined) c.push(sql`m.address LIKE ${`${likeEscape(f.addressPrefix.toLowerCase())}%`}`);
  if (f.creator !== undefined) c.push(sql`m.creator = ${f.creator.toLowerCase()}`);
  if (f.pricingModel !== undefined) c.push(sql`m.pricing_model = ${f.pricingModel}`);
  if (f.collateralTokens !== undefined) {
    const tokens = f.collateralTokens.map((t) => t.toLowerCase());
    c.push(tokens.length === 0 ? sql`false` : sql`m.collateral_token IN (${sql.join(tokens)})`);
  }
  if (f.closesBefore !== undefined) c.push(sql`m.close_time > ${now.toISOString()}::timestamptz AND m.close_time <= ${f.closesBefore.toISOString()}::timestamptz`);
  // floor(price · 100) of the first outcome, the integer percentOf() computes.
  const percent = sql`div((m.prices->>0)::numeric * 100, 1000000000000000000)`;
  if (f.probMin !== undefined) c.push(sql`${percent} >= ${f.probMin}`);
  if (f.probMax !== undefined) c.push(sql`${percent} <= ${f.probMax}`);
  if (f.geoPlace !== undefined) c.push(sql`lower(m.geo_place) = ${f.geoPlace.toLowerCase()}`);
  if (f.geoCountry !== undefined) c.push(sql`lower(m.geo_country) = ${f.geoCountry.toLowerCase()}`);
  if (f.search !== undefined) {
    const needle = f.search.toLowerCase();
    const substring = sql`lower(m.question) LIKE ${`%${likeEscape(needle)}%`}`;
    // `%` is similarity > pg_trgm.similarity_threshold (0.3 by default) and, unlike similarity(), uses the index.
    c.push(trigram ? sql`(${substring} OR lower(m.question) % ${needle})` : substring);
  }
  return sql<boolean>`(${sql.join(c, sql` AND `)})`;
}

// The keyset cursor of sort=new: the listing id of the last market of the page, opaque to callers.
const CURSOR_PREFIX = 'new:';

export function encodeCursor(id: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`, 'utf8').toString('base64url');
}

/** The id a cursor stands for; a cursor this service did not issue is 400 INVALID_QUERY. */
export function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^new:([1-9][0-9]{0,18})$/.exec(text);
  if (!match) {
    throw problem('INVALID_QUERY', 'cursor is not a cursor from a prior page: pass nextCursor (or X-Next-Cursor) back unchanged', {
      errors: [{ path: 'query.cursor', message: 'malformed cursor' }],
    });
  }
  return match[1]!;
}

/**
 * Σ cost of each market's trades (LMSR trades and order-book fills) in the 24 hours before `now` (docs/markets.md
 * "24-hour volume"): the maintained aggregate (migration 0031), corrected by the trades between its boundary and
 * now − 24 h, so it is exact at `now` while reading only a few seconds of trades. A derived table (chain_id, market,
 * volume) of every market with a volume.
 */
export function volumesAt(now: Date): RawBuilder<{ chain_id: number; market: string; volume: string }> {
  const cut = new Date(now.getTime() - DAY_MS).toISOString();
  return sql<{ chain_id: number; market: string; volume: string }>`(
    WITH w AS (SELECT since, ${cut}::timestamptz AS cut FROM market_volume_window WHERE id = 1),
    adj AS (
      SELECT e.chain_id, e.market, sum(CASE WHEN e.at <= w.cut THEN -e.cost ELSE e.cost END) AS d
        FROM market_trade_events e, w
       WHERE e.at > least(w.since, w.cut) AND e.at <= greatest(w.since, w.cut)
       GROUP BY e.chain_id, e.market)
    SELECT chain_id, market, coalesce(v.volume, 0) + coalesce(a.d, 0) AS volume
      FROM market_volumes v FULL JOIN adj a USING (chain_id, market))`;
}

/** The 24-hour volume of each of `rows` at `now` (volumesAt), keyed by marketKey(). */
export async function volume24hOf(db: Kysely<DB>, rows: readonly Pick<MarketRow, 'chain_id' | 'address'>[], now: Date): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (rows.length === 0) return out;
  const found = await db
    .selectFrom(volumesAt(now).as('v'))
    .select(['v.chain_id', 'v.market', sql<string>`v.volume::text`.as('volume')])
    .where('v.chain_id', 'in', [...new Set(rows.map((r) => r.chain_id))])
    .where('v.market', 'in', [...new Set(rows.map((r) => r.address))])
    .execute();
  for (const r of found) if (BigInt(r.volume) !== 0n) out.set(marketKey(r.chain_id, r.market), r.volume);
  return out;
}

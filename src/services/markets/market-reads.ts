/**
 * Reads of one market from the projection (detail, chart, trades, holders, related, comments) and its LMSR
 * depth ladder from the chain. Amounts are base-unit decimal strings and prices exact decimals (wadToDecimal);
 * the shapes are documented in docs/markets.md "Reads".
 */
import { getAddress, type Address, type PublicClient } from 'viem';
import { sql, type Kysely } from 'kysely';
import { loadArtifact } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import { isProblemError } from '../../core/errors.ts';
import { WAD, wadToDecimal } from '../../core/markets/price.ts';
import { toCount, type DB } from '../../db/index.ts';
import type { LmsrDepthT, MarketChartT, MarketCommentT, MarketHoldersT, MarketTradeT } from '../../wire/market-reads.ts';
import { subjectIdOf } from '../../core/reputation/subject.ts';
import { tiersOfWallets } from '../reputation/subjects.ts';
import { openInterestOf, type MarketRow } from './records.ts';

/** The projected market at `address` (any market, listed or not), or 404 MARKET_NOT_FOUND. */
/**
 * A market by its externalId on one chain (the creator's own id, unique per creator): the consumer chart's market_id
 * may be one. Two creators' markets sharing it are 400 INVALID_ID (ask by address).
 */
export async function findMarketByExternalId(db: Kysely<DB>, p: { externalId: string; chainId: number }): Promise<MarketRow> {
  const rows = await db.selectFrom('markets').selectAll().where('chain_id', '=', p.chainId).where('external_id', '=', p.externalId).limit(2).execute();
  if (rows.length > 1) throw problem('INVALID_ID', `externalId '${p.externalId}' names markets of several creators on chain ${p.chainId}: ask by market address`);
  if (rows.length === 0) throw problem('MARKET_NOT_FOUND', `no market with address or externalId '${p.externalId}' on chain ${p.chainId}`);
  return rows[0]!;
}

export async function findMarket(db: Kysely<DB>, p: { address: string; chainId?: number }): Promise<MarketRow> {
  let qb = db.selectFrom('markets').selectAll().where('address', '=', p.address.toLowerCase());
  if (p.chainId !== undefined) qb = qb.where('chain_id', '=', p.chainId);
  const row = await qb.orderBy('chain_id').executeTakeFirst();
  if (!row) throw problem('MARKET_NOT_FOUND', `no market ${p.address}${p.chainId === undefined ? '' : ` on chain ${p.chainId}`}`);
  return row;
}

/** Equal prices 1/n (1e18-scaled): every LMSR market's prices at creation, before any trade. */
export const initialPrices = (n: number): string[] => Array.from({ length: n }, () => (WAD / BigInt(n)).toString());

export type ChartWindow = '1H' | '1D' | '1W' | 'ALL';
const WINDOW_MS: Record<Exclude<ChartWindow, 'ALL'>, number> = { '1H': 3_600_000, '1D': 86_400_000, '1W': 7 * 86_400_000 };
/** Points of a chart: the opening point plus at most this many trade buckets. */
export const CHART_TRADE_BUCKETS = 199;

const toPrices = (wads: readonly string[]): string[] => wads.map((w) => wadToDecimal(w));

/**
 * Price series of a market over `window`: the prices in force at the window start (the market's creation
 * for ALL or a younger market), then the prices after each trade in the window, downsampled to the last
 * trade of each of CHART_TRADE_BUCKETS equal time buckets; `latest` is the projection's current prices.
 */
export async function marketChart(db: Kysely<DB>, m: MarketRow, p: { window: ChartWindow; now: Date }): Promise<MarketChartT> {
  const created = m.created_at;
  const start = p.window === 'ALL' ? created : new Date(Math.max(created.getTime(), p.now.getTime() - WINDOW_MS[p.window]));
  // LMSR trades and order-book fills alike (the market_trade_events view, ordered by o1, o2).
  const trades = db.selectFrom('market_trade_events').where('chain_id', '=', m.chain_id).where('market', '=', m.address);

  let opening = initialPrices(m.outcome_count);
  if (start.getTime() > created.getTime()) {
    const before = await trades.select('prices').where('at', '<', start).orderBy('o1', 'desc').orderBy('o2', 'desc').limit(1).executeTakeFirst();
    if (before) opening = before.prices;
  }

  const { n } = await trades.select(sql<string>`count(*)`.as('n')).where('at', '>=', start).executeTakeFirstOrThrow();
  let rows: { at: Date; prices: string[] }[];
  if (toCount(n) <= CHART_TRADE_BUCKETS) {
    rows = await trades.select(['at', 'prices']).where('at', '>=', start).orderBy('o1').orderBy('o2').execute();
  } else {
    const spanSeconds = Math.max(1, (p.now.getTime() - start.getTime()) / 1000);
    const from = start.toISOString();
    const bucketed = await sql<{ at: Date; prices: string[] }>`
      SELECT DISTINCT ON (bucket) bucket, at, prices FROM (
        SELECT at, prices, o1, o2,
          least(floor(extract(epoch FROM (at - ${from}::timestamptz)) * ${CHART_TRADE_BUCKETS} / ${spanSeconds}::numeric), ${CHART_TRADE_BUCKETS - 1}) AS bucket
        FROM market_trade_events
        WHERE chain_id = ${m.chain_id} AND market = ${m.address} AND at >= ${from}::timestamptz
      ) t
      ORDER BY bucket, o1 DESC, o2 DESC`.execute(db);
    rows = bucketed.rows.map((r) => ({ at: new Date(r.at), prices: r.prices }));
  }

  return {
    market: getAddress(m.address),
    chainId: m.chain_id,
    window: p.window,
    points: [{ t: start.toISOString(), prices: toPrices(opening) }, ...rows.map((r) => ({ t: r.at.toISOString(), prices: toPrices(r.prices) }))],
    latest: { t: (m.last_trade_at ?? created).toISOString(), prices: toPrices(m.prices) },
  };
}

/** The market's most recent trades, newest first. */
export async function marketTrades(db: Kysely<DB>, m: MarketRow, p: { limit: number }): Promise<MarketTradeT[]> {
  const rows = await db
    .selectFrom('market_trades')
    .selectAll()
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .orderBy('block_number', 'desc')
    .orderBy('log_index', 'desc')
    .limit(p.limit)
    .execute();
  return rows.map((t) => ({
    kind: 'lmsr' as const,
    txHash: t.tx_hash,
    logIndex: t.log_index,
    blockNumber: t.block_number,
    timestamp: t.block_time.toISOString(),
    trader: getAddress(t.trader),
    recipient: getAddress(t.recipient),
    outcome: t.outcome,
    side: t.is_buy ? ('buy' as const) : ('sell' as const),
    shares: t.shares,
    cost: t.cost,
    protocolFee: t.protocol_fee,
    creatorFee: t.creator_fee,
    pricesAfter: toPrices(t.prices_after),
  }));
}

/** Top holders shown per outcome. */
export const TOP_HOLDERS = 20;

/** Who holds the market's outcome shares: the largest holders per outcome, holder counts and open interest. */
export async function marketHolders(db: Kysely<DB>, m: MarketRow): Promise<MarketHoldersT> {
  const top = await sql<{ outcome: number; holder: string; shares: string }>`
    SELECT outcome, holder, shares::text AS shares FROM (
      SELECT outcome, holder, shares, row_number() OVER (PARTITION BY outcome ORDER BY shares DESC, holder) AS rank
      FROM market_positions WHERE chain_id = ${m.chain_id} AND market = ${m.address} AND shares > 0
    ) p
    WHERE rank <= ${TOP_HOLDERS}
    ORDER BY outcome, rank`.execute(db);
  const perOutcome = await db
    .selectFrom('market_positions')
    .select(['outcome', sql<string>`count(*)`.as('n')])
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .where('shares', '>', '0')
    .groupBy('outcome')
    .execute();
  const distinct = await db
    .selectFrom('market_positions')
    .select(sql<string>`count(DISTINCT holder)`.as('n'))
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .where('shares', '>', '0')
    .executeTakeFirstOrThrow();
  return {
    market: getAddress(m.address),
    chainId: m.chain_id,
    holders: Array.from({ length: m.outcome_count }, (_, i) => ({
      index: i,
      label: m.outcomes[i] ?? `Outcome ${i + 1}`,
      outstandingShares: m.outstanding[i] ?? '0',
      holderCount: toCount(perOutcome.find((r) => Number(r.outcome) === i)?.n ?? 0),
      top: top.rows.filter((r) => Number(r.outcome) === i).map((r) => ({ address: getAddress(r.holder), shares: r.shares })),
    })),
    holderCount: toCount(distinct.n),
    openInterest: openInterestOf(m.outstanding, m.prices).toString(),
  };
}

/** Listed markets of the same category and chain, open ones first, then newest. */
export async function relatedMarkets(db: Kysely<DB>, m: MarketRow, p: { limit: number }): Promise<MarketRow[]> {
  return db
    .selectFrom('markets')
    .selectAll()
    .where('chain_id', '=', m.chain_id)
    .where('category', '=', m.category)
    .where('address', '<>', m.address)
    .where('question', 'is not', null)
    .where(sql<boolean>`controls->>'policy' = 'active' AND controls->>'discovery' IN ('listed', 'graduated')`)
    .orderBy(sql`state = 'open'`, 'desc')
    .orderBy('id', 'desc')
    .limit(p.limit)
    .execute();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Human comments on a market, newest first, each tagged with its author's current position and reputation tier. `cursor` is the
 * id of the last comment of the prior page; an id that is not a comment of this market is 400 INVALID_QUERY.
 */
export async function marketComments(db: Kysely<DB>, m: MarketRow, p: { limit: number; cursor?: string }): Promise<{ comments: MarketCommentT[]; nextCursor: string | null }> {
  let qb = db
    .selectFrom('market_comments')
    .selectAll()
    .where('chain_id', '=', m.chain_id)
    .where('market', '=', m.address)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(p.limit + 1);
  if (p.cursor !== undefined) {
    const known =
      UUID.test(p.cursor) &&
      (await db.selectFrom('market_comments').select('id').where('id', '=', p.cursor).where('chain_id', '=', m.chain_id).where('market', '=', m.address).executeTakeFirst());
    if (!known) {
      throw problem('INVALID_QUERY', 'cursor is not a comment of this market: pass nextCursor back unchanged', {
        errors: [{ path: 'query.cursor', message: 'unknown cursor' }],
      });
    }
    // The row comparison runs in the database, at its full timestamp precision.
    qb = qb.where(sql<boolean>`(created_at, id) < (SELECT created_at, id FROM market_comments WHERE id = ${p.cursor}::uuid)`);
  }
  const fetched = await qb.execute();
  const page = fetched.slice(0, p.limit);
  const authors = [...new Set(page.map((c) => c.author_wallet))];
  const positions =
    authors.length === 0
      ? []
      : await db
          .selectFrom('market_positions')
          .select(['holder', 'outcome', 'shares'])
          .where('chain_id', '=', m.chain_id)
          .where('market', '=', m.address)
          .where('holder', 'in', authors)
          .execute();
  const positionOf = (author: string) =>
    Array.from({ length: m.outcome_count }, (_, i) => positions.find((r) => r.holder === author && Number(r.outcome) === i)?.shares ?? '0');
  // Each author's reputation tag: the subject and tier as the last reputation fold left them (docs/reputation.md).
  const tiers = await tiersOfWallets(db, authors);
  const tagOf = (author: string) => {
    const t = tiers.get(author.toLowerCase())!;
    return { subjectId: subjectIdOf(t.key), tier: t.tier };
  };
  return {
    comments: page.map((c) => ({
      id: c.id,
      author: getAddress(c.author_wallet),
      body: c.body,
      createdAt: c.created_at.toISOString(),
      position: positionOf(c.author_wallet),
      reputation: tagOf(c.author_wallet),
    })),
    nextCursor: fetched.length > p.limit ? page[page.length - 1]!.id : null,
  };
}

/** Depth ladder sizes as fractions of b, in basis points: 1 %, 5 %, 10 %, 25 %, 50 %. */
export const DEPTH_LEVELS_BPS = [100, 500, 1000, 2500, 5000] as const;

type Quote = readonly [amount: bigint, protocolFee: bigint, creatorFee: bigint, pricesAfter: readonly bigint[]];

export interface DepthDeps {
  client: PublicClient;
  /** Maps an unreachable node to 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * The LMSR buy ladder of every outcome: for sizes of 1, 5, 10, 25 and 50 % of b (shares in collateral base
 * units), the exact quoteBuy of the market contract via eth_call, all at one block. A market past its close
 * time refuses quotes; it is then quoted as of its last tradeable second (block time close − 1 s) on the
 * current state. A market the chain no longer quotes at all (proposed, resolved, or no code at the address)
 * gets `quote: null` on every level.
 */
export async function marketDepth(deps: DepthDeps, m: MarketRow, p: { tradeable: boolean }): Promise<LmsrDepthT> {
  const { client } = deps;
  const abi = loadArtifact('LmsrMarket').abi;
  const address = getAddress(m.address) as Address;
  const b = BigInt(m.liquidity);
  const blockNumber = await deps.guard(() => client.getBlockNumber({ cacheTime: 0 }));
  const closeSecond = BigInt(Math.floor(m.close_time.getTime() / 1000)) - 1n;

  const quote = async (outcome: number, shares: bigint, atClose: boolean): Promise<Quote | null> => {
    try {
      return (await deps.guard(() =>
        client.readContract({
          address,
          abi,
          functionName: 'quoteBuy',
          args: [outcome, shares],
          blockNumber,
          ...(atClose ? { blockOverrides: { time: closeSecond } } : {}),
        }),
      )) as Quote;
    } catch (err) {
      // A revert, no code at the address (a market gone with a reorg) or a node refusing block overrides: no
      // quote. An unreachable node is not a refusal: guard made it SERVICE_UNAVAILABLE, which propagates.
      if (isProblemError(err)) throw err;
      return null;
    }
  };

  // One probe decides the basis; a quote refused at one level only (a price leaving its band) is null alone.
  const probeShares = (b * BigInt(DEPTH_LEVELS_BPS[0])) / 10_000n;
  let basis: LmsrDepthT['basis'] = 'live';
  if ((await quote(0, probeShares, false)) === null) basis = (await quote(0, probeShares, true)) === null ? 'unavailable' : 'at_close';

  const outcomes = await Promise.all(
    Array.from({ length: m.outcome_count }, async (_, i) => ({
      index: i,
      label: m.outcomes[i] ?? `Outcome ${i + 1}`,
      price: wadToDecimal(m.prices[i] ?? '0'),
      levels: await Promise.all(
        DEPTH_LEVELS_BPS.map(async (bps) => {
          const shares = (b * BigInt(bps)) / 10_000n;
          const q = basis === 'unavailable' || shares === 0n ? null : await quote(i, shares, basis === 'at_close');
          return {
            fractionBps: bps,
            shares: shares.toString(),
            quote: q && {
              amount: q[0].toString(),
              protocolFee: q[1].toString(),
              creatorFee: q[2].toString(),
              averagePrice: wadToDecimal((q[0] * WAD) / shares),
              priceAfter: wadToDecimal(q[3][i] ?? 0n),
            },
          };
        }),
      ),
    })),
  );
  return {
    kind: 'lmsr',
    market: address,
    chainId: m.chain_id,
    tradeable: p.tradeable && basis === 'live',
    basis,
    blockNumber: blockNumber.toString(),
    liquidity: m.liquidity,
    outcomes,
  };
}

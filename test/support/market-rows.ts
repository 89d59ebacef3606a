// Seeds the market projection directly (markets, trades, positions, comments) for read tests, with the
// values a real USDC market would have: b = 1,000 USDC, subsidy b·ln 2, a 100 PM bond, 1 % fees. Trades go
// through the projection's own applyTrade, so the market's aggregates (volume, prices, outstanding) agree.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { systemClock } from '../../src/core/clock.ts';
import { DEFAULT_CONTROLS, type Controls, type MarketState } from '../../src/core/markets/states.ts';
import type { DB } from '../../src/db/schema.ts';
import { applyTrade } from '../../src/services/markets/projection/apply-trade.ts';
import type { MarketRow } from '../../src/services/markets/records.ts';
import type { CallOptions, CallResult, TestServer } from './harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const WAD = 10n ** 18n;
export const USDC = 10n ** 6n;

export const randomAddress = (): string => `0x${randomBytes(20).toString('hex')}`;
export const randomHash = (): string => `0x${randomBytes(32).toString('hex')}`;

/**
 * A complete open binary USDC market row for suites that write the database without a running service
 * (random factory, creator and token addresses): override what the test is about.
 */
export function bareMarketRow(o: { chainId: number; address?: string; question: string; category?: string; now?: Date }) {
  const now = o.now ?? new Date();
  return {
    chain_id: o.chainId,
    address: (o.address ?? randomAddress()).toLowerCase(),
    pricing_model: 'automated' as const,
    factory: randomAddress(),
    creator: randomAddress(),
    collateral_token: randomAddress(),
    collateral_symbol: 'USDC',
    outcome_count: 2,
    question: o.question,
    description: null,
    category: o.category ?? 'OTHER',
    outcomes: JSON.stringify(['Yes', 'No']),
    resolution_source: null,
    external_id: null,
    question_hash: randomHash(),
    close_time: new Date(now.getTime() + DAY),
    resolve_by: new Date(now.getTime() + 4 * DAY),
    resolution_window_seconds: 259_200,
    liquidity: 1_000_000_000n,
    bond: 10n ** 20n,
    subsidy: 693_147_181n,
    protocol_fee_bps: 100,
    creator_fee_bps: 100,
    state: 'open' as const,
    controls: JSON.stringify(DEFAULT_CONTROLS),
    prices: JSON.stringify(['500000000000000000', '500000000000000000']),
    outstanding: JSON.stringify(['0', '0']),
    created_block: '1',
    created_block_hash: randomHash(),
    created_tx: randomHash(),
    created_at: now,
    updated_at: now,
  };
}

export interface SeedMarket {
  address?: string;
  chainId?: number;
  /** null: created on chain without registered metadata (never listed). */
  question?: string | null;
  category?: string;
  state?: MarketState;
  controls?: Partial<Controls>;
  creator?: string;
  pricingModel?: 'automated' | 'ORDERBOOK';
  collateral?: 'USDC' | 'PM';
  outcomes?: string[];
  /** 1e18-scaled, one per outcome (default equal). */
  prices?: bigint[];
  outstanding?: bigint[];
  createdAt?: Date;
  closeTime?: Date;
  geoPlace?: string | null;
  geoCountry?: string | null;
  liquidity?: bigint;
}

/** Inserts one market row; returns it as the database has it (with its listing id). */
export async function seedMarket(server: TestServer, o: SeedMarket = {}): Promise<MarketRow> {
  const db = server.runtime.database.db;
  const now = server.runtime.clock.now();
  const outcomes = o.outcomes ?? ['Yes', 'No'];
  const n = outcomes.length;
  const collateral = o.collateral ?? 'USDC';
  const token = server.runtime.services.chain.collateral().find((c) => c.symbol === collateral)!;
  const createdAt = o.createdAt ?? new Date(now.getTime() - DAY);
  const closeTime = o.closeTime ?? new Date(now.getTime() + 30 * DAY);
  const liquidity = o.liquidity ?? 1_000n * (collateral === 'USDC' ? USDC : WAD);
  const lane = server.runtime.services.chain.lane();
  return db
    .insertInto('markets')
    .values({
      chain_id: o.chainId ?? server.config.chain.id,
      address: (o.address ?? randomAddress()).toLowerCase(),
      pricing_model: o.pricingModel ?? 'automated',
      factory: (n === 2 ? lane.factories.binary : lane.factories.ternary).toLowerCase(),
      creator: (o.creator ?? randomAddress()).toLowerCase(),
      collateral_token: token.token.toLowerCase(),
      collateral_symbol: collateral,
      outcome_count: n,
      question: o.question === undefined ? `Will test market ${randomBytes(3).toString('hex')} resolve Yes?` : o.question,
      description: 'Seeded by test/support/market-rows.ts',
      category: o.category ?? 'CRYPTO',
      outcomes: JSON.stringify(outcomes),
      resolution_source: 'https://example.org/source',
      external_id: null,
      question_hash: randomHash(),
      geo_place: o.geoPlace ?? null,
      geo_country: o.geoCountry ?? null,
      close_time: closeTime,
      resolve_by: new Date(closeTime.getTime() + 72 * HOUR),
      resolution_window_seconds: 72 * 3600,
      liquidity,
      bond: 100n * WAD,
      // b·ln(n), rounded up: what the creator paid.
      subsidy: (liquidity * (n === 2 ? 693_147_181n : 1_098_612_289n)) / 1_000_000_000n,
      protocol_fee_bps: 100,
      creator_fee_bps: 100,
      state: o.state ?? 'open',
      controls: JSON.stringify({ ...DEFAULT_CONTROLS, ...o.controls }),
      prices: JSON.stringify((o.prices ?? outcomes.map(() => WAD / BigInt(n))).map(String)),
      outstanding: JSON.stringify((o.outstanding ?? outcomes.map(() => 0n)).map(String)),
      created_block: '1',
      created_block_hash: randomHash(),
      created_tx: randomHash(),
      created_at: createdAt,
      confirmed: true,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

let blockSeq = 1_000;

export interface SeedTrade {
  outcome?: number;
  isBuy?: boolean;
  shares?: bigint;
  /** LMSR cost, fees excluded (default: shares × half a unit). */
  cost?: bigint;
  pricesAfter: bigint[];
  at: Date;
  trader?: string;
}

/** Records a trade through the projection (market aggregates follow). */
export async function seedTrade(server: TestServer, market: MarketRow, t: SeedTrade): Promise<void> {
  const db = server.runtime.database.db;
  const shares = t.shares ?? 10n * USDC;
  const cost = t.cost ?? shares / 2n;
  const trader = t.trader ?? randomAddress();
  await db.transaction().execute((trx) =>
    applyTrade(trx, systemClock, {
      chainId: market.chain_id,
      txHash: randomHash(),
      logIndex: 0,
      blockNumber: BigInt(++blockSeq),
      blockHash: randomHash(),
      blockTime: t.at,
      market: market.address,
      trader,
      recipient: trader,
      outcome: t.outcome ?? 0,
      isBuy: t.isBuy ?? true,
      shares,
      cost,
      protocolFee: cost / 100n,
      creatorFee: cost / 100n,
      pricesAfter: t.pricesAfter,
    }),
  );
}

/** Many trades in one insert (no aggregates): for chart downsampling. */
export async function seedTradesBulk(db: Kysely<DB>, market: MarketRow, trades: { at: Date; pricesAfter: bigint[] }[]): Promise<void> {
  const rows = trades.map((t) => ({
    chain_id: market.chain_id,
    tx_hash: randomHash(),
    log_index: 0,
    block_number: String(++blockSeq),
    block_hash: randomHash(),
    block_time: t.at,
    market: market.address,
    trader: randomAddress(),
    recipient: randomAddress(),
    outcome: 0,
    is_buy: true,
    shares: 1_000_000n,
    cost: 500_000n,
    protocol_fee: 5_000n,
    creator_fee: 5_000n,
    prices_after: JSON.stringify(t.pricesAfter.map(String)),
  }));
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('market_trades').values(rows.slice(i, i + 500)).execute();
}

export async function seedPosition(db: Kysely<DB>, market: MarketRow, holder: string, outcome: number, shares: bigint): Promise<void> {
  await db.insertInto('market_positions').values({ chain_id: market.chain_id, market: market.address, holder: holder.toLowerCase(), outcome, shares }).execute();
}

export async function seedComment(db: Kysely<DB>, market: MarketRow, author: string, body: string, at: Date): Promise<string> {
  const id = randomUUID();
  await db.insertInto('market_comments').values({ id, chain_id: market.chain_id, market: market.address, author_wallet: author.toLowerCase(), body, created_at: at }).execute();
  return id;
}

/** GET under `prefix` with a read-only key renewed every 100 calls, keeping a suite under the per-key read budget. */
export function readGetter(server: TestServer, prefix: string): (url: string, opts?: CallOptions) => Promise<CallResult> {
  let calls = 0;
  let key = '';
  return async (url, opts = {}) => {
    if (calls++ % 100 === 0) key = await server.key('read-only');
    return server.call('GET', `${prefix}${url}`, { key, ...opts });
  };
}

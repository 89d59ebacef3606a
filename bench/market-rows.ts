// Plausible `markets` and `market_trades` rows for the listing benchmark, seeded so every run lists the same
// data: ten categories, mostly open markets with close times spread over six months, prices that sum to 1e18,
// and trades in the last 24 hours for a subset (so sort=volume_24h has something to rank).
import type { Insertable } from 'kysely';
import { DEFAULT_CONTROLS, type Controls } from '../src/core/markets/states.ts';
import type { MarketStateName, MarketsTable, MarketTradesTable } from '../src/db/schema.ts';

/** A word about 3% of questions contain: the search scenario looks for it. */
export const SEARCH_WORD = 'bitcoin';

const WAD = 10n ** 18n;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface RowContext {
  chainId: number;
  now: Date;
  /** The chain head when the rows are made: creations and trades are dated at or below it. */
  blockNumber: bigint;
  collateral: readonly { symbol: string; token: string; decimals: number }[];
  factories: { binary: string; ternary: string };
}

export interface GeneratedRows {
  markets: Insertable<MarketsTable>[];
  trades: Insertable<MarketTradesTable>[];
  /** Markets with at least one trade in the 24 hours before `now`. */
  tradedLastDay: number;
}

export type Rng = () => number;

/** mulberry32: a tiny seeded generator, uniform in [0, 1). */
export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface Topic {
  question: string;
  outcomes: string[];
  description: string;
  source: string;
}

type Template = (pick: <T>(xs: readonly T[]) => T, n: (lo: number, hi: number) => number) => Topic;

const yesNo = (question: string, description: string, source: string): Topic => ({ question, outcomes: ['Yes', 'No'], description, source });

/** Question templates per category, with the share of markets each category gets. */
const CATEGORIES: { name: string; weight: number; templates: Template[] }[] = [
  {
    name: 'CRYPTO',
    weight: 20,
    templates: [
      (pick, n) => {
        const coin = pick(['Bitcoin', 'Ethereum', 'Solana', 'Dogecoin', 'Chainlink', 'Polkadot']);
        return yesNo(`Will ${coin} close above $${n(1, 200) * 500} on the last day of ${pick(MONTHS)}?`, `Resolves Yes if the ${coin}/USD daily close is above the threshold.`, 'https://www.coingecko.com');
      },
      (pick) => {
        const coin = pick(['Bitcoin', 'Ethereum', 'Solana', 'Avalanche', 'Cardano', 'Litecoin']);
        return yesNo(`Will the ${coin} spot ETF see net inflows in ${pick(MONTHS)}?`, `Sum of daily net flows of US ${coin} spot ETFs over the month.`, 'https://www.example.org/etf-flows');
      },
    ],
  },
  {
    name: 'SPORTS',
    weight: 18,
    templates: [
      (pick) => {
        const [home, away] = [pick(['Rovers', 'United', 'Athletic', 'Wanderers', 'City', 'Albion']), pick(['Rangers', 'Town', 'Villa', 'Hotspur', 'County', 'Forest'])];
        return { question: `Who wins ${home} vs ${away} this weekend: home, away or a draw?`, outcomes: ['Home', 'Away', 'Draw'], description: 'The full-time result of the league match.', source: 'https://www.example.org/league/results' };
      },
      (pick) => yesNo(`Will ${pick(['the Falcons', 'the Sharks', 'the Comets', 'the Lions'])} reach the ${pick(['cup final', 'playoffs', 'semi-finals'])} this season?`, 'Resolves Yes if the team qualifies.', 'https://www.example.org/league/table'),
    ],
  },
  {
    name: 'POLITICS',
    weight: 12,
    templates: [
      (pick) => yesNo(`Will parliament pass the ${pick(['housing', 'energy', 'privacy', 'pension', 'transport'])} bill before ${pick(MONTHS)}?`, 'Resolves Yes on a final passing vote.', 'https://www.example.org/parliament/votes'),
      (pick) => ({ question: `Which party wins the ${pick(['northern', 'coastal', 'capital', 'southern'])} regional election?`, outcomes: ['Greens', 'Labour', 'Another party'], description: 'The party with the most seats after the official count.', source: 'https://www.example.org/elections' }),
    ],
  },
  {
    name: 'FINANCE',
    weight: 12,
    templates: [
      (pick, n) => yesNo(`Will the ${pick(['S&P 500', 'DAX', 'Nikkei 225', 'FTSE 100'])} end ${pick(MONTHS)} above ${n(10, 60) * 500}?`, 'The index close on the last trading day of the month.', 'https://www.example.org/indices'),
      (pick) => yesNo(`Will the central bank cut rates at its ${pick(MONTHS)} meeting?`, 'Resolves Yes if the policy rate is lowered.', 'https://www.example.org/central-bank'),
    ],
  },
  {
    name: 'TECH',
    weight: 10,
    templates: [
      (pick) => yesNo(`Will ${pick(['an open-weights model', 'a new startup', 'the search giant'])} top the public leaderboard in ${pick(MONTHS)}?`, 'Rank on the last day of the month.', 'https://www.example.org/leaderboard'),
      (pick) => yesNo(`Will the ${pick(['foldable phone', 'VR headset', 'electric scooter', 'smart ring'])} ship before ${pick(MONTHS)}?`, 'General availability in at least one market.', 'https://www.example.org/launches'),
    ],
  },
  {
    name: 'DAILY_LIFE',
    weight: 6,
    templates: [(pick, n) => yesNo(`Will a coffee in ${pick(['Paris', 'Berlin', 'Lagos', 'Austin', 'Tokyo'])} cost more than ${n(2, 6)} dollars by ${pick(MONTHS)}?`, 'Average price of a flat white, city survey.', 'https://www.example.org/prices')],
  },
  {
    name: 'LOCAL',
    weight: 5,
    templates: [(pick) => yesNo(`Will ${pick(['Paris', 'Berlin', 'Lagos', 'Austin', 'Tokyo'])} open the new ${pick(['tram line', 'library', 'bridge', 'stadium'])} before ${pick(MONTHS)}?`, 'Official opening to the public.', 'https://www.example.org/city-news')],
  },
  {
    name: 'SOCIAL',
    weight: 5,
    templates: [(pick, n) => yesNo(`Will ${pick(['the space agency', 'the pop star', 'the chess champion'])} reach ${n(2, 90)} million followers by ${pick(MONTHS)}?`, 'Follower count on the main account.', 'https://www.example.org/social')],
  },
  {
    name: 'FUN',
    weight: 7,
    templates: [(pick) => yesNo(`Will it snow in ${pick(['Paris', 'Berlin', 'Austin', 'Tokyo', 'the capital'])} on ${pick(['New Year’s Day', 'Christmas Eve', 'the first of March'])}?`, 'Measurable snowfall at the main weather station.', 'https://www.example.org/weather')],
  },
  {
    name: 'OTHER',
    weight: 5,
    templates: [(pick) => yesNo(`Will the ${pick(['comet', 'rover', 'deep-sea probe'])} send new images before ${pick(MONTHS)}?`, 'Images published by the mission team.', 'https://www.example.org/missions')],
  },
];

/** Lifecycle states of markets past their close time, with their weights. */
const PAST_STATES: [MarketStateName, number][] = [
  ['closed', 35],
  ['creator_proposal', 10],
  ['challenge', 5],
  ['human_voting', 3],
  ['council_review', 2],
  ['resolved', 35],
  ['void', 10],
];

const PLACES: [string, string][] = [
  ['Paris', 'FR'],
  ['Berlin', 'DE'],
  ['Lagos', 'NG'],
  ['Austin', 'US'],
  ['Tokyo', 'JP'],
];

/** `count` markets (oldest first: insert them in order so the listing id follows creation time) and their trades. */
export function generateRows(count: number, ctx: RowContext, seed = 20_240_601): GeneratedRows {
  const r = seeded(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const n = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const weighted = <T>(xs: readonly [T, number][]): T => {
    let left = r() * xs.reduce((s, [, w]) => s + w, 0);
    for (const [x, w] of xs) if ((left -= w) < 0) return x;
    return xs[xs.length - 1]![0];
  };
  const hex = (bytes: number): string => {
    let s = '0x';
    for (let i = 0; i < bytes; i++) s += Math.floor(r() * 256).toString(16).padStart(2, '0');
    return s;
  };
  const creators = Array.from({ length: 300 }, () => hex(20));
  const traders = Array.from({ length: 2_000 }, () => hex(20));
  const categories = CATEGORIES.map((c) => [c, c.weight] as [(typeof CATEGORIES)[number], number]);
  const now = ctx.now.getTime();
  const block = ctx.blockNumber.toString();
  const markets: Insertable<MarketsTable>[] = [];
  const trades: Insertable<MarketTradesTable>[] = [];
  let tradedLastDay = 0;

  for (let i = 0; i < count; i++) {
    const category = weighted(categories);
    const topic = pick(category.templates)(pick, n);
    const outcomeCount = topic.outcomes.length;
    const collateral = r() < 0.7 ? ctx.collateral.find((c) => c.symbol === 'USDC')! : ctx.collateral.find((c) => c.symbol === 'PM')!;
    const unit = 10n ** BigInt(collateral.decimals);

    const open = r() < 0.8;
    const closeTime = open ? now + 2 * HOUR_MS + Math.floor(r() * 180 * DAY_MS) : now - HOUR_MS - Math.floor(r() * 60 * DAY_MS);
    const state: MarketStateName = open ? 'open' : weighted(PAST_STATES);
    const windowSeconds = pick([1, 3, 7]) * 86_400;
    const resolveBy = closeTime + windowSeconds * 1000;
    // Creation times follow the insert order (the listing id), and come at least a day before the close.
    const createdAt = Math.min(now - 120 * DAY_MS + Math.floor((i / count) * 120 * DAY_MS), closeTime - DAY_MS);

    // Prices: random weights scaled to 1e18, the last outcome taking the rounding remainder.
    const weights = Array.from({ length: outcomeCount }, () => BigInt(n(50, 1_000)));
    const total = weights.reduce((a, b) => a + b, 0n);
    const prices = weights.map((w) => (WAD * w) / total);
    prices[outcomeCount - 1] = WAD - prices.slice(0, -1).reduce((a, b) => a + b, 0n);

    const address = hex(20);
    const liquidity = BigInt(n(100, 5_000)) * unit;
    const creatorFeeBps = pick([0, 50, 100, 150, 200]);

    // Trades: some open markets traded in the last day; about a quarter of all markets traded earlier.
    const marketTrades: Insertable<MarketTradesTable>[] = [];
    const addTrade = (blockTime: number) => {
      const shares = BigInt(n(1, 500)) * unit;
      const outcome = n(0, outcomeCount - 1);
      const cost = (shares * prices[outcome]!) / WAD;
      const trader = pick(traders);
      marketTrades.push({
        chain_id: ctx.chainId,
        tx_hash: hex(32),
        log_index: n(0, 20),
        block_number: block,
        block_hash: hex(32),
        block_time: new Date(blockTime),
        market: address,
        trader,
        recipient: trader,
        outcome,
        is_buy: r() < 0.8,
        shares: shares.toString(),
        cost: cost.toString(),
        protocol_fee: ((cost * 100n) / 10_000n).toString(),
        creator_fee: ((cost * BigInt(creatorFeeBps)) / 10_000n).toString(),
        prices_after: JSON.stringify(prices.map(String)),
      });
    };
    const olderUntil = Math.min(now - DAY_MS, closeTime);
    if (r() < 0.25 && olderUntil > createdAt) {
      for (let k = n(1, 5); k > 0; k--) addTrade(createdAt + Math.floor(r() * (olderUntil - createdAt)));
    }
    if (open && r() < 0.15) {
      tradedLastDay++;
      for (let k = n(1, 12); k > 0; k--) addTrade(now - Math.floor(r() * 23.5 * HOUR_MS));
    }
    marketTrades.sort((a, b) => (a.block_time as Date).getTime() - (b.block_time as Date).getTime());
    trades.push(...marketTrades);

    const controls: Controls = (() => {
      const x = r();
      if (x < 0.02) return { ...DEFAULT_CONTROLS, discovery: 'hidden' };
      if (x < 0.03) return { ...DEFAULT_CONTROLS, discovery: 'quarantined' };
      if (x < 0.04) return { ...DEFAULT_CONTROLS, discovery: 'graduated' };
      return DEFAULT_CONTROLS;
    })();
    const place = r() < 0.1 ? pick(PLACES) : null;
    const traded = marketTrades.length > 0;
    const lastTrade = marketTrades[marketTrades.length - 1]?.block_time as Date | undefined;

    markets.push({
      chain_id: ctx.chainId,
      address,
      pricing_model: r() < 0.95 ? 'automated' : 'ORDERBOOK',
      factory: outcomeCount === 2 ? ctx.factories.binary.toLowerCase() : ctx.factories.ternary.toLowerCase(),
      creator: pick(creators),
      collateral_token: collateral.token.toLowerCase(),
      collateral_symbol: collateral.symbol,
      outcome_count: outcomeCount,
      // A few markets were created on chain without registered metadata: not listed.
      question: r() < 0.005 ? null : topic.question,
      description: topic.description,
      category: category.name,
      outcomes: JSON.stringify(topic.outcomes),
      resolution_source: topic.source,
      external_id: r() < 0.3 ? `bench-${i}` : null,
      question_hash: hex(32),
      negotiation_id: null,
      geo_place: place?.[0] ?? null,
      geo_country: place?.[1] ?? null,
      close_time: new Date(closeTime),
      resolve_by: new Date(resolveBy),
      resolution_window_seconds: windowSeconds,
      liquidity: liquidity.toString(),
      bond: (liquidity / 10n).toString(),
      subsidy: (liquidity / 5n).toString(),
      protocol_fee_bps: 100,
      creator_fee_bps: creatorFeeBps,
      state,
      controls: JSON.stringify(controls),
      cancel_reason: state === 'void' && r() < 0.3 ? 'CREATOR_CANCELLED' : null,
      prices: JSON.stringify(prices.map(String)),
      outstanding: JSON.stringify(prices.map(() => (traded ? BigInt(n(0, 20_000)) * unit : 0n).toString())),
      volume: marketTrades.reduce((s, t) => s + BigInt(t.cost as string), 0n).toString(),
      trade_count: marketTrades.length,
      creator_fees: marketTrades.reduce((s, t) => s + BigInt(t.creator_fee as string), 0n).toString(),
      last_trade_at: lastTrade ?? null,
      created_block: block,
      created_block_hash: hex(32),
      created_tx: hex(32),
      created_at: new Date(createdAt),
      // The lifecycle scheduler would otherwise emit resolution-due events for thousands of rows mid-run.
      resolution_due_sent_at: (state === 'open' || state === 'closed') && resolveBy <= now + 2 * DAY_MS ? new Date(now) : null,
      confirmed: true,
      updated_at: new Date(now),
    });
  }
  return { markets, trades, tradedLastDay };
}

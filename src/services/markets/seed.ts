/**
 * Demo data for a development chain (`svc seed`, and the embedded first start unless SEED_DEMO_MARKETS=false):
 * a few markets in several categories, created through the create loop by dev-account agents, and real trades
 * by other dev accounts through the trade loop, so a newcomer sees live markets, charts and holders. Runs once
 * per chain: a kv_settings flag records that it ran.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createWalletClient, http, parseUnits, type Address, type Chain, type Hex, type PrivateKeyAccount, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvilDevAccounts } from '../../chain/anvil.ts';
import { fundFromOperator } from '../../chain/dev-funding.ts';
import type { Relayer } from '../../chain/relayer.ts';
import type { Clock } from '../../core/clock.ts';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../core/principal.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { MarketIndexer } from './indexer.ts';
import type { NegotiationService } from './negotiation.ts';
import type { TradingService } from './trading.ts';
import { approvalCalldata, collateralApproval, outcomeTokenApproval } from './approvals.ts';
import type { MarketTerms } from '../../core/markets/terms.ts';
import { CREDIT_REASONS, type Account } from '../../core/ledger/types.ts';
import type { LedgerService } from '../ledger/ledger.ts';
import type { OrderBookService } from '../orderbook/orders.ts';
import { baseUnitsOfShares, priceOfBps } from '../../core/orderbook/units.ts';
import { gasWithHeadroom } from '../../chain/gas.ts';

const SEED_FLAG = 'seed:demo-markets';
const DAY = 86_400_000;

interface DemoMarket {
  creator: number;
  terms: Omit<MarketTerms, 'closeTime' | 'externalId' | 'description' | 'pricingModel'> & { closeInDays: number; description: string };
  /** [trader, outcome, side, whole shares] */
  trades: [number, number, 'buy' | 'sell', number][];
}

const DEMO: DemoMarket[] = [
  {
    creator: 0,
    terms: { question: 'Will ETH close above $5,000 on the last day of the quarter?', description: 'Resolves Yes if the ETH/USD daily close on the last day of the quarter is above 5,000.', category: 'CRYPTO', outcomes: ['Yes', 'No'], collateral: 'USDC', resolutionSource: 'https://www.coingecko.com/en/coins/ethereum', liquidity: parseUnits('500', 6).toString(), creatorFeeBps: 100, closeInDays: 60 },
    trades: [[0, 0, 'buy', 120], [1, 1, 'buy', 80], [2, 0, 'buy', 200], [0, 0, 'sell', 40]],
  },
  {
    creator: 1,
    terms: { question: 'Who wins the next city derby: home, away or a draw?', description: 'The full-time result of the next league derby.', category: 'SPORTS', outcomes: ['Home', 'Away', 'Draw'], collateral: 'USDC', resolutionSource: 'https://www.example.org/league/results', liquidity: parseUnits('300', 6).toString(), creatorFeeBps: 150, closeInDays: 14 },
    trades: [[1, 0, 'buy', 60], [2, 2, 'buy', 90], [0, 1, 'buy', 30]],
  },
  {
    creator: 2,
    terms: { question: 'Will the open-source model top the public leaderboard this month?', description: 'Resolves Yes if an open-weights model ranks first on the leaderboard on the last day of the month.', category: 'TECH', outcomes: ['Yes', 'No'], collateral: 'PM', resolutionSource: 'https://www.example.org/leaderboard', liquidity: parseUnits('1000', 18).toString(), creatorFeeBps: 50, closeInDays: 30 },
    trades: [[2, 1, 'buy', 300], [1, 0, 'buy', 150]],
  },
  {
    creator: 0,
    terms: { question: 'Will the central bank cut rates at its next meeting?', description: 'Resolves Yes if the policy rate announced at the next scheduled meeting is lower than today.', category: 'FINANCE', outcomes: ['Yes', 'No'], collateral: 'USDC', resolutionSource: 'https://www.example.org/central-bank/decisions', liquidity: parseUnits('800', 6).toString(), creatorFeeBps: 100, closeInDays: 45 },
    trades: [[1, 1, 'buy', 250], [0, 0, 'buy', 100]],
  },
  {
    creator: 1,
    terms: { question: 'Will it snow in the capital on New Year’s Day?', description: 'Measurable snowfall at the main weather station on January 1st.', category: 'FUN', outcomes: ['Yes', 'No'], collateral: 'USDC', resolutionSource: 'https://www.example.org/weather/archive', liquidity: parseUnits('200', 6).toString(), creatorFeeBps: 0, closeInDays: 40 },
    trades: [[2, 0, 'buy', 25]],
  },
];

export interface SeedDeps {
  db: Kysely<DB>;
  clock: Clock;
  chain: ChainService;
  chainDefinition: Chain;
  rpcUrl: string;
  relayer: Relayer;
  negotiations: NegotiationService;
  trading: TradingService;
  indexer: MarketIndexer;
  ledger: LedgerService;
  orderbook: OrderBookService;
  progress: (line: string) => void;
}

/** Play money each seed agent receives for the demo order books, collateral base units (10,000 play dollars). */
const SEED_PLAY_MONEY = 10_000_000_000n;

/** The demo order books: created by dev creators, then a few trades and a resting book on both sides. */
const ORDERBOOK_DEMO = [
  { creator: 0, question: 'Will the community vote pass the protocol upgrade this month?', description: 'Play-money order book: resolves Yes if the on-chain vote passes before the end of the month.', category: 'CRYPTO', closeInDays: 25 },
  { creator: 1, question: 'Will the home team score first in the next derby?', description: 'Play-money order book on the first goal of the next league derby.', category: 'SPORTS', closeInDays: 12 },
];


/** Seeds the demo markets once per chain; returns how many markets it created (0 when already seeded). */
export async function seedDemoMarkets(deps: SeedDeps, opts: { force?: boolean } = {}): Promise<number> {
  const { db, clock, chain } = deps;
  const flag = `${SEED_FLAG}:${chain.chainId}`;
  if (!opts.force && (await db.selectFrom('kv_settings').select('key').where('key', '=', flag).executeTakeFirst())) return 0;
  const keys = anvilDevAccounts();
  // Dev accounts 1..3 create, 4..6 trade (account 0 funds the operator).
  const creators = keys.slice(1, 4).map((k) => privateKeyToAccount(k as Hex));
  const traders = keys.slice(4, 7).map((k) => privateKeyToAccount(k as Hex));
  const tokens = { USDC: chain.collateral().find((c) => c.symbol === 'USDC')!.token, PM: chain.collateral().find((c) => c.symbol === 'PM')!.token };
  const run = `${clock.now().getTime()}`;
  deps.progress(`seed: funding ${creators.length + traders.length} dev accounts`);
  for (const account of [...creators, ...traders]) {
    await fundFromOperator(deps.relayer, tokens, account.address, { usdc: parseUnits('100000', 6), pm: parseUnits('100000', 18) }, `seed:${run}:${account.address}`);
  }
  const principals = await Promise.all([...creators, ...traders].map((a, i) => ensureAgent(db, clock, a.address, i < creators.length ? `demo-creator-${i + 1}` : `demo-trader-${i - creators.length + 1}`)));
  const send = sender(deps);

  // Traders approve both routers for collateral and the outcome token once.
  const lane = chain.lane();
  for (const t of traders) {
    for (const symbol of ['USDC', 'PM'] as const) {
      for (const recipe of [collateralApproval(chain.chainId, tokens[symbol], lane.routers[symbol]), outcomeTokenApproval(chain.chainId, lane.outcomeToken, lane.routers[symbol])]) {
        await send(t, recipe.token, approvalCalldata(recipe));
      }
    }
  }

  let created = 0;
  for (const [i, demo] of DEMO.entries()) {
    const creator = creators[demo.creator]!;
    const principal = principals[demo.creator]!;
    const { closeInDays, ...rest } = demo.terms;
    const terms: MarketTerms = { ...rest, pricingModel: 'automated', closeTime: new Date(Math.floor((clock.now().getTime() + closeInDays * DAY) / 1000) * 1000).toISOString(), externalId: `demo-${chain.chainId}-${i + 1}-${run}` };
    const { negotiation } = await deps.negotiations.propose(principal, terms);
    await deps.negotiations.accept(principal, negotiation.id);
    const prepared = await deps.negotiations.prepareDeploy(principal, negotiation.id);
    for (const a of prepared.approvalsMissing) await send(creator, a.token, approvalCalldata(a));
    const hash = await send(creator, prepared.transaction.to, prepared.transaction.data);
    const { market } = await deps.negotiations.commitDeploy(principal, negotiation.id, hash);
    created++;
    const unit = terms.collateral === 'USDC' ? 10n ** 6n : 10n ** 18n;
    for (const [trader, outcome, side, shares] of demo.trades) {
      const p = await deps.trading.prepare(principals[creators.length + trader]!, { market: market.address, outcome, side, shares: (BigInt(shares) * unit).toString() });
      await send(traders[trader]!, p.transaction.to, p.transaction.data);
    }
    deps.progress(`seed: market ${i + 1}/${DEMO.length} "${terms.question}" with ${demo.trades.length} trade(s)`);
  }
  created += await seedOrderBooks(deps, principals.slice(0, creators.length), principals.slice(creators.length), creators, send, run);
  await deps.indexer.syncNow();
  await db
    .insertInto('kv_settings')
    .values({ key: flag, value: JSON.stringify({ markets: created, at: clock.now().toISOString() }), updated_at: clock.now() })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify({ markets: created, at: clock.now().toISOString() }), updated_at: clock.now() }))
    .execute();
  return created;
}

/**
 * Order-book demo markets through the same create loop (pricingModel ORDERBOOK), and a live book:
 * traders get play money, mint a few complete sets (so they hold shares to sell) and rest bids and
 * asks at several prices on both outcomes.
 */
async function seedOrderBooks(
  deps: SeedDeps,
  creators: Principal[],
  traders: Principal[],
  creatorAccounts: PrivateKeyAccount[],
  send: ReturnType<typeof sender>,
  run: string,
): Promise<number> {
  for (const t of traders) {
    const wallet = (await deps.db.selectFrom('agents').select('wallet_address').where('id', '=', t.agentId!).executeTakeFirstOrThrow()).wallet_address!;
    await deps.ledger.submit([{ type: 'credit', credit: { account: wallet.toLowerCase() as Account, id: 0n, delta: SEED_PLAY_MONEY, reason: CREDIT_REASONS.SIGNUP_GRANT } }], { source: `seed-play-money:${t.agentId}` });
  }
  const [a, b, c] = traders as [Principal, Principal, Principal];
  let created = 0;
  for (const [i, demo] of ORDERBOOK_DEMO.entries()) {
    const principal = creators[demo.creator]!;
    const terms: MarketTerms = {
      question: demo.question,
      description: demo.description,
      category: demo.category,
      outcomes: ['Yes', 'No'],
      pricingModel: 'ORDERBOOK',
      collateral: 'PLAY',
      closeTime: new Date(Math.floor((deps.clock.now().getTime() + demo.closeInDays * DAY) / 1000) * 1000).toISOString(),
      resolutionSource: 'https://www.example.org/demo-order-books',
      liquidity: '0',
      creatorFeeBps: 0,
      externalId: `demo-orderbook-${deps.chain.chainId}-${i + 1}-${run}`,
    };
    const { negotiation } = await deps.negotiations.propose(principal, terms);
    await deps.negotiations.accept(principal, negotiation.id);
    const prepared = await deps.negotiations.prepareDeploy(principal, negotiation.id);
    const hash = await send(creatorAccounts[demo.creator]!, prepared.transaction.to, prepared.transaction.data);
    const { market } = await deps.negotiations.commitDeploy(principal, negotiation.id, hash);
    created++;
    // Prices in bps and whole shares here, for brevity; the order loop takes the wire's units (docs/units.md).
    const order = (who: Principal, outcome: 0 | 1, action: 'buy' | 'sell', priceBps: number, shares: bigint, tif: 'GTC' | 'IOC' = 'GTC') =>
      deps.orderbook.place(who, { market: market.address, outcome, action, price: priceOfBps(priceBps), shares: baseUnitsOfShares(shares), tif, postOnly: false });
    // Complete sets minted between two traders, so both hold shares.
    await order(a, 0, 'buy', 5500, 40n);
    await order(b, 1, 'buy', 4500, 40n, 'IOC');
    // The resting book: bids and asks on both outcomes.
    await order(a, 0, 'buy', 5000, 25n);
    await order(c, 0, 'buy', 4800, 15n);
    await order(b, 1, 'buy', 4300, 20n); // an ask at 57 % on the Yes axis
    await order(a, 0, 'sell', 6000, 10n);
    await order(b, 1, 'sell', 5300, 10n); // selling No at 53 % is a bid at 47 % on the Yes axis
    deps.progress(`seed: order book ${i + 1}/${ORDERBOOK_DEMO.length} "${terms.question}"`);
  }
  return created;
}

/** A dev wallet's agent (registration path operator), created once; the seed acts as it with a full-scope principal. */
async function ensureAgent(db: Kysely<DB>, clock: Clock, wallet: Address, name: string): Promise<Principal> {
  const lower = wallet.toLowerCase();
  let agent = await db.selectFrom('agents').select('id').where('wallet_address', '=', lower).executeTakeFirst();
  agent ??= await db.insertInto('agents').values({ id: randomUUID(), name, wallet_address: lower, registration_path: 'operator', created_at: clock.now() }).returning('id').executeTakeFirstOrThrow();
  return { keyId: 'seed', agentId: agent.id, tier: 'execute', scopes: ['markets:read', 'markets:propose', 'markets:create', 'trade:quote', 'trade:execute'] };
}

function sender(deps: SeedDeps) {
  const client = deps.chain.client as PublicClient;
  return async (account: PrivateKeyAccount, to: Address, data: Hex): Promise<Hex> => {
    const wallet = createWalletClient({ account, chain: deps.chainDefinition, transport: http(deps.rpcUrl) });
    // Gas with headroom over the estimate, as the relayer sends (src/chain/gas.ts): a failed seed stops `npm start`.
    const gas = gasWithHeadroom(await client.estimateGas({ account: account.address, to, data }));
    const hash = await wallet.sendTransaction({ to, data, gas });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`seed: transaction ${hash} to ${to} reverted`);
    return hash;
  };
}

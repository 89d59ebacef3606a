/**
 * End-to-end order placement: POST /api/agent/v1/orderbook/place-order over HTTP on a real runtime (embedded
 * anvil; PGlite in memory, or a fresh PostgreSQL database when DATABASE_URL is set), each order persisted with
 * its fills, ledger matches, order events and outbox rows, next to an anchor: a bare Fastify POST route on the
 * same process that parses the same JSON body and answers one real place-order body verbatim. Prints, asserts
 * nothing (its report: orderbook-http-report.ts). Run alone with `node --max-semi-space-size=64 --import
 * ./bench/compile.mjs bench/orderbook-http.ts` (the flag as svc start runs the service: bin/node-flags.mjs); knobs in
 * bench/run.ts.
 */
import { statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { createWalletClient, http, keccak256, toHex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Principal } from '../src/core/principal.ts';
import { anvilDevAccounts } from '../src/chain/anvil.ts';
import { chainDefinition } from '../src/chain/clients.ts';
import { walletProofText } from '../src/core/auth-templates.ts';
import type { MarketTerms } from '../src/core/markets/terms.ts';
import { baseUnitsOfShares, priceOfBps } from '../src/core/orderbook/units.ts';
import { toCount } from '../src/db/index.ts';
import { createLogger } from '../src/runtime/logger.ts';
import type { Runtime } from '../src/runtime/runtime.ts';
import { waitingOperations } from '../src/services/ledger/batch-range.ts';
import { ENGINE_CONFIG } from '../src/services/orderbook/orders.ts';
import { ROUND_PHASES, SLOW_TRANSACTION_MS, type PhaseTally, type RoundPhase } from '../src/services/orderbook/orders/round-phases.ts';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../src/services/rate-limit/limits.ts';
import { startLoadClient, type LoadClient, type LoadResult, type ScriptedRequest } from './load.ts';
import { pauseSingleWriters, placeDirectAtRate, type DirectOrder } from './direct-placements.ts';
import { formatOrderBookHttpReport, goalLines, PLACE_GOALS, type PlaceBenchReport, type PlaceScenario } from './orderbook-http-report.ts';
import { startBenchRuntime } from './markets-listing.ts';
import { prng } from './prng.ts';
import { LONG_HOLD_MS, watchHolds } from './holds.ts';
import { startProfile } from './profile.ts';
import { startTimeline } from './timeline.ts';
import { watchServerCpu, watchWal } from './server-cpu.ts';
import { watchThreadCpu } from './thread-cpu.ts';
import { coreSpeedMs, watchMachineCpu } from './machine-cpu.ts';
import { SLOW_SYNC_MS, watchDiskSync } from './disk-sync.ts';
import { watchLoopDelay } from './loop-delay.ts';
import { fitCostModel, type CostModel, type CostPoint } from './cost-model.ts';
import { intFromEnv, listenAnchor, runIfMain, withCleanups } from './scope.ts';
import { missingServiceFlags, SERVICE_NODE_FLAGS } from '../bin/node-flags.mjs';

export interface PlaceBenchOptions {
  /** Measured seconds per scenario, after its warm-up. */
  seconds: number;
  /**
   * Seconds of orders on a market of their own before the scenarios (BENCH_PLACE_PRIME_SECONDS, default 8; 0: none),
   * not measured: the first few seconds of order load are V8 compiling the order path in the background, which a server
   * that has run for a while has done (docs/orderbook.md, session 25).
   */
  primeSeconds: number;
  /** Seconds of load before each scenario's measured ones (BENCH_WARMUP_SECONDS, default 1). */
  warmupSeconds: number;
  connections: number;
  /** Trading agents (wallet registrations); bids come from the even ones, asks from the odd ones. */
  agents: number;
  /** Execute-tier API keys spread over the agents, so the per-key write budget does not throttle the run. */
  keys: number;
  /** Markets of the spread scenario (the first scenario uses one more, alone). */
  markets: number;
  /** A folder to write a CPU profile of the service's process per scenario into (BENCH_PLACE_PROFILE), or none. */
  profileDir?: string;
  /**
   * List the long turns on the embedded database's connection by who took them (BENCH_PLACE_HOLDS=1; holds.ts). Off by
   * default: each is a stack trace written out, a few per cent of the service's thread when batches are slow.
   */
  holds?: boolean;
  /** Print this many of each scenario's longest stalls with what happened during them (BENCH_PLACE_STALLS; timeline.ts). */
  stalls?: number;
  /** Every this many seconds of a scenario, print what its last interval placed and cost (BENCH_PLACE_PROGRESS; 0: never). */
  progressSeconds?: number;
  /**
   * After the two scenarios, the one-market stream again at each of these numbers of connections (BENCH_PLACE_SWEEP,
   * e.g. "4,32"), and an order's cost told from a round's over those runs (cost-model.ts).
   */
  sweep?: readonly number[];
  /**
   * After the closed-loop scenarios, both streams again in an open loop at this many orders a second
   * (BENCH_PLACE_RATE; default the issue's goal on the database: 2,000 on PostgreSQL, 1,000 on PGlite; 0: none): does
   * the service keep up with that rate, and at what latency, timed from when each order was due (load-worker.ts).
   */
  rate?: number;
  /**
   * After the HTTP scenarios, the fixed rate's streams again in the service's own process, without the HTTP edge, once
   * as the process runs and once with the single writers beside the order path paused (BENCH_PLACE_DIRECT, default on
   * with a fixed rate; 0: none; direct-placements.ts): where the fixed rate's tail comes from.
   */
  direct?: boolean;
  /** The open loop's keep-alive connections at most (BENCH_PLACE_RATE_CONNECTIONS, default 64: one an agent). */
  rateConnections?: number;
  log: (line: string) => void;
}

export interface PlaceOrderBody {
  market: string;
  outcome: 0 | 1;
  action: 'buy' | 'sell';
  /** Decimal price string on the tick (docs/units.md). */
  price: string;
  /** Share base units (one share = 1000000). */
  shares: string;
  tif: 'GTC' | 'IOC';
  postOnly: boolean;
}

const PATH = '/api/agent/v1/orderbook/place-order';
/** With BENCH_PLACE_STALLS: placements slower than this count towards a stall. */
const STALL_MS = 30;
const TICKS = 10_000 / ENGINE_CONFIG.tickBps;
/** Play money of every agent (LEDGER_SIGNUP_GRANT): 10^9 play dollars, so no order of the run is short of collateral. */
const GRANT = 10n ** 15n;
/** Shares of each outcome every agent holds in every market before the run (complete sets minted in pairs), so sells are covered. */
const INVENTORY = 100_000n;
/** Orders in a scenario's seeded stream per second of its run; the load starts it over if the server is faster. */
const STREAM_PER_SECOND = 2_000;
/** Dev account 9 creates the markets (it holds ether on anvil; the runtime uses account 0, the demo seed 1..6). */
const CREATOR_DEV_ACCOUNT = 9;

/**
 * The seeded order stream, like bench/orderbook.ts's: each order picks a market, bid or ask on the outcome-0
 * axis at 2 ticks through to 8 ticks away from that market's mid (which drifts a tick at a time), 1..100
 * shares, outcome 0 or 1 — so bids are buys of 0 or sells of 1 and asks the reverse, and crosses settle as
 * TRANSFER, TAKER_SELLS, MINT and MERGE. One order in ten is IOC, the rest GTC. Bids come from even agents and
 * asks from odd ones, so self-trade prevention never stops a match. `agent` is the index of the sender.
 */
export function placeOrderStream(n: number, markets: readonly string[], agents: number, seed = 0x0b00c): { agent: number; body: PlaceOrderBody }[] {
  const next = prng(seed);
  const mids = markets.map(() => TICKS / 2);
  const out: { agent: number; body: PlaceOrderBody }[] = [];
  for (let i = 0; i < n; i++) {
    const m = next() % markets.length;
    const r = next();
    if (r % 7 === 0) mids[m] = Math.min(TICKS - 12, Math.max(12, mids[m]! + ((r >>> 3) & 1 ? 1 : -1)));
    const x = next();
    const bid = (x & 1) === 0;
    const outcome = ((x >>> 1) & 1) as 0 | 1;
    const away = ((x >>> 2) % 11) - 2;
    const axisBps = Math.min(TICKS - 1, Math.max(1, bid ? mids[m]! - away : mids[m]! + away)) * ENGINE_CONFIG.tickBps;
    const shares = 1 + ((x >>> 8) % 100);
    out.push({
      agent: ((next() % Math.floor(agents / 2)) << 1) | (bid ? 0 : 1),
      body: {
        market: markets[m]!,
        outcome,
        action: (outcome === 0) === bid ? 'buy' : 'sell',
        price: priceOfBps(outcome === 0 ? axisBps : 10_000 - axisBps),
        shares: baseUnitsOfShares(shares).toString(),
        tif: next() % 10 === 0 ? 'IOC' : 'GTC',
        postOnly: false,
      },
    });
  }
  return out;
}

/**
 * The seeded stream (placeOrderStream) as the load client sends it: each order with the next of its agent's keys in
 * rotation (`keysOf[agent]`), so every key's write budget is spent evenly.
 */
export function placeOrderScript(n: number, markets: readonly string[], keysOf: readonly (readonly string[])[], seed: number): ScriptedRequest[] {
  const used = new Array<number>(keysOf.length).fill(0);
  return placeOrderStream(n, markets, keysOf.length, seed).map(({ agent, body }) => {
    const keys = keysOf[agent]!;
    const turn = used[agent]!;
    used[agent] = turn + 1;
    return { token: keys[turn % keys.length]!, body: JSON.stringify(body) };
  });
}

export interface Trader {
  principal: Principal;
  keys: string[];
}

/** Registers a wallet agent the way POST /register does (wallet proof over a fresh nonce); its wallet gets the signup grant. */
export async function registerWalletAgent(runtime: Runtime, account: PrivateKeyAccount, name: string, clientIp: string): Promise<{ principal: Principal; key: string }> {
  const { services, clock, config } = runtime;
  const { nonce } = await services.nonces.issue('auth');
  const timestamp = Math.floor(clock.now().getTime() / 1000);
  const message = walletProofText('agent-register', { walletAddress: account.address, nonce, chainId: config.chain.id, timestamp, agentName: name });
  const registered = await services.registration.register(
    { kind: 'wallet', name, walletAddress: account.address, walletSignature: await account.signMessage({ message }), proofNonce: nonce, signatureTimestamp: timestamp },
    clientIp,
  );
  return { principal: await services.keys.authenticate(registered.key), key: registered.key };
}

/** This run's /16 of 10.0.0.0/8 for its registrations' client addresses (registrationAddress). */
const RUN_BLOCK = 1 + Math.floor(Math.random() * 254);
/** The creator's registration, apart from the agents' (at most 10,000 of them: BENCH_PLACE_AGENTS). */
const CREATOR_REGISTRATION = 65_000;

/**
 * The client address of the `i`th wallet registration of a bench run. The hourly registration budget is per address,
 * and with the rate limits in Redis (BENCH_REDIS_URL, bench/processes.ts) it outlives the run: every run takes a /16 of
 * 10.0.0.0/8 of its own at random, so twenty runs in an hour do not spend one address's budget.
 */
export function registrationAddress(i: number): string {
  return `10.${RUN_BLOCK}.${i >> 8}.${i & 255}`;
}

/** ORDERBOOK markets through the create loop, as the demo seed makes them: propose, accept, prepare-deploy, send, commit-deploy. */
export async function createMarkets(runtime: Runtime, count: number, log: (line: string) => void): Promise<string[]> {
  const creator = privateKeyToAccount(anvilDevAccounts()[CREATOR_DEV_ACCOUNT]!);
  const { principal } = await registerWalletAgent(runtime, creator, 'bench-creator', registrationAddress(CREATOR_REGISTRATION));
  const { negotiations, chain } = runtime.services;
  const wallet = createWalletClient({ account: creator, chain: chainDefinition(runtime.config.chain.id, runtime.config.chain.name, runtime.rpcUrl), transport: http(runtime.rpcUrl) });
  const closeTime = new Date(Math.floor((runtime.clock.now().getTime() + 30 * 86_400_000) / 1000) * 1000).toISOString();
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) {
    const terms: MarketTerms = {
      question: `Will order-book bench market ${i + 1} resolve Yes?`,
      description: 'Play-money order book created by bench/orderbook-http.ts.',
      category: 'TECH',
      outcomes: ['Yes', 'No'],
      pricingModel: 'ORDERBOOK',
      collateral: 'PLAY',
      closeTime,
      resolutionSource: 'https://www.example.org/bench',
      liquidity: '0',
      creatorFeeBps: 0,
      externalId: `bench-orderbook-${i + 1}-${runtime.clock.now().getTime()}`,
    };
    const { negotiation } = await negotiations.propose(principal, terms);
    await negotiations.accept(principal, negotiation.id);
    const prepared = await negotiations.prepareDeploy(principal, negotiation.id);
    const hash = await wallet.sendTransaction({ to: prepared.transaction.to, data: prepared.transaction.data });
    const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`bench: market creation ${hash} reverted`);
    const { market } = await negotiations.commitDeploy(principal, negotiation.id, hash);
    addresses.push(market.address);
  }
  log(`bench: ${count} ORDERBOOK markets created through the negotiate loop`);
  return addresses;
}

/**
 * Every agent ends up holding INVENTORY shares of both outcomes in every market: in pairs, one rests a buy of
 * outcome 0 at 50 % and the other buys outcome 1 at 50 % against it (a MINT), then the other way round.
 */
export async function mintInventory(runtime: Runtime, traders: readonly Trader[], markets: readonly string[], log: (line: string) => void): Promise<void> {
  const t0 = performance.now();
  const { orderbook } = runtime.services;
  const place = async (who: Trader, market: string, outcome: 0 | 1) => {
    const order = await orderbook.place(who.principal, { market, outcome, action: 'buy', price: '0.5', shares: baseUnitsOfShares(INVENTORY), tif: 'GTC', postOnly: false });
    return order.status;
  };
  for (const market of markets) {
    for (let i = 0; i + 1 < traders.length; i += 2) {
      const [a, b] = [traders[i]!, traders[i + 1]!];
      for (const [maker, taker] of [[a, b], [b, a]] as const) {
        await place(maker, market, 0);
        const status = await place(taker, market, 1);
        if (status !== 'filled') throw new Error(`bench: minting the inventory left an order ${status}`);
      }
    }
  }
  log(`bench: inventory minted: ${INVENTORY} shares of each outcome per agent and market (${Math.round(performance.now() - t0)} ms)`);
}

/** One place-order over HTTP; throws unless 201. */
async function placeOverHttp(base: string, key: string, body: PlaceOrderBody, idempotencyKey: string): Promise<{ text: string; json: { status: string; fills: unknown[] } }> {
  const res = await fetch(`${base}${PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`bench: POST ${PATH} answered ${res.status}: ${text.slice(0, 300)}`);
  return { text, json: JSON.parse(text) as { status: string; fills: unknown[] } };
}

type Counts = Record<string, number>;

/** The server's error log lines, counted by cause (error code and message), with the first detail of each: a 500's body only names a request id. */
function errorCollector(): { stream: Writable; causes: Map<string, { count: number; detail: string }> } {
  const causes = new Map<string, { count: number; detail: string }>();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (text.trim() === '') continue;
        try {
          const line = JSON.parse(text) as { msg?: string; err?: { code?: string; message?: string; detail?: string; where?: string } };
          const cause = [line.msg, line.err?.code, line.err?.message].filter(Boolean).join(': ');
          const seen = causes.get(cause);
          if (seen) seen.count++;
          else causes.set(cause, { count: 1, detail: [line.err?.detail, line.err?.where].filter(Boolean).join(' / ').replaceAll('\n', ' ') });
        } catch {
          causes.set(text.slice(0, 200), { count: 1, detail: '' });
        }
      }
      done();
    },
  });
  return { stream, causes };
}

async function countsOf(runtime: Runtime, markets: readonly string[], since: Date): Promise<{ orders: number; orderStatuses: Counts; fills: Counts }> {
  const { db } = runtime.database;
  const ids = (await db.selectFrom('markets').select('ledger_market_id').where('address', 'in', markets).execute()).map((r) => r.ledger_market_id!);
  const orderRows = await db.selectFrom('orders').select(['status', sql<string>`count(*)`.as('n')]).where('market_id', 'in', ids).where('created_at', '>=', since).groupBy('status').execute();
  const fillRows = await db.selectFrom('order_fills').select(['kind', sql<string>`count(*)`.as('n')]).where('market_id', 'in', ids).where('created_at', '>=', since).groupBy('kind').execute();
  const kinds = ['TRANSFER', 'MINT', 'MERGE', 'TAKER_SELLS'];
  const orderStatuses = Object.fromEntries(orderRows.map((r) => [r.status, toCount(r.n)]));
  return {
    orders: Object.values(orderStatuses).reduce((a, b) => a + b, 0),
    orderStatuses,
    fills: Object.fromEntries(fillRows.map((r) => [kinds[r.kind] ?? String(r.kind), toCount(r.n)])),
  };
}

/** How far the background writers are behind: ledger operations not in a batch, fills the leaderboard has not folded. */
async function ledgerState(runtime: Runtime): Promise<{ confirmed: number; pendingOps: number; pendingFills: number }> {
  const { db } = runtime.database;
  const batches = await db.selectFrom('ledger_batches').select(sql<string>`count(*)`.as('n')).where('status', '=', 'confirmed').executeTakeFirstOrThrow();
  const pending = await waitingOperations(db).clearOrderBy().select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const fills = await db
    .selectFrom('order_fills')
    .select(sql<string>`count(*)`.as('n'))
    .where('id', '>', (eb) => eb.selectFrom('leaderboard_fill_cursor').select('fill_id').where('id', '=', 1))
    .executeTakeFirstOrThrow();
  return { confirmed: toCount(batches.n), pendingOps: toCount(pending.n), pendingFills: toCount(fills.n) };
}

/**
 * The background work the scenarios left for later, done now: the ledger's batches committed on chain, the
 * leaderboard's legs and the reputation's facts folded. Its CPU time belongs to the orders as much as theirs does.
 */
async function catchUp(runtime: Runtime): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await runtime.services.ledgerBatcher.catchUp();
  await runtime.services.leaderboard.runOnce();
  await runtime.services.reputation.foldNow();
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

export async function benchOrderBookHttp(opts: PlaceBenchOptions): Promise<PlaceBenchReport> {
  const { log } = opts;
  if (opts.agents < 2 || opts.agents % 2 !== 0) throw new Error('bench: the number of agents must be even and at least 2');
  return withCleanups(log, async (cleanups) => {
    const serverErrors = errorCollector();
    const runtime = await startBenchRuntime(
      {
        log,
        logger: createLogger('error', serverErrors.stream),
        env: {
          REGISTRATION_PATHS: 'wallet',
          LEDGER_SIGNUP_GRANT: GRANT.toString(),
          // The allowance stays on (its reads and writes are part of every order), just out of reach.
          FILLS_FREE_PER_MONTH: '1000000000',
          // The rate limits in Redis, as several processes share them (docs/operations.md): BENCH_REDIS_URL.
          ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
        },
      },
      cleanups,
    );
    const t0 = performance.now();
    // The scenarios' markets, then the priming run's own (its orders stay out of the scenarios' books and counts).
    const markets = await createMarkets(runtime, 1 + opts.markets + (opts.primeSeconds > 0 ? 1 : 0), log);
    const primeMarket = opts.primeSeconds > 0 ? markets[1 + opts.markets]! : null;

    const traders: Trader[] = [];
    for (let i = 0; i < opts.agents; i++) {
      const account = privateKeyToAccount(keccak256(toHex(`svc-bench-orderbook-agent-${i}`)));
      // The hourly wallet-registration budget is per client address: one address per agent.
      const { principal, key } = await registerWalletAgent(runtime, account, `bench-trader-${i}`, registrationAddress(i));
      traders.push({ principal, keys: [key] });
    }
    const keyCount = Math.max(opts.keys, opts.agents);
    // Keys of the agents with their entitlement, key k to agent k mod agents: the first `from` are taken already (the
    // registered ones). Spread over enough keys, the per-key write budget does not throttle.
    const issueKeys = async (sets: string[][], from: number, label: string): Promise<string[][]> => {
      for (let k = from; k < keyCount; k++) {
        const { principal } = traders[k % opts.agents]!;
        sets[k % opts.agents]!.push((await runtime.services.keys.create({ tier: principal.tier, scopes: principal.scopes, agentId: principal.agentId, label: `bench-${label}-${k}` })).key);
      }
      return sets;
    };
    await issueKeys(
      traders.map((t) => t.keys),
      opts.agents,
      'run',
    );
    log(`bench: ${opts.agents} wallet agents registered, ${keyCount} execute keys (${Math.round(performance.now() - t0)} ms since the runtime was up)`);
    await mintInventory(runtime, traders, markets, log);

    await runtime.listen();
    const address = runtime.http.server.address();
    if (address === null || typeof address === 'string') throw new Error('bench: the runtime is not listening on a TCP port');
    const host = '127.0.0.1';
    const base = `http://${host}:${address.port}`;

    // Sanity over HTTP, and the anchor's body: a resting bid, then the order that takes it (one MINT fill).
    const [a, b] = [traders[0]!, traders[1]!];
    await placeOverHttp(base, a.keys[0]!, { market: markets[0]!, outcome: 0, action: 'buy', price: '0.5', shares: '1000000', tif: 'GTC', postOnly: false }, 'bench-probe-1');
    const probe = await placeOverHttp(base, b.keys[0]!, { market: markets[0]!, outcome: 1, action: 'buy', price: '0.5', shares: '1000000', tif: 'IOC', postOnly: false }, 'bench-probe-2');
    if (probe.json.status !== 'filled' || probe.json.fills.length !== 1) throw new Error(`bench: the probe order did not fill: ${probe.text.slice(0, 300)}`);

    const anchorPort = await listenAnchor({ method: 'POST', path: '/anchor', status: 201, body: probe.text }, host, cleanups);

    const client: LoadClient = startLoadClient();
    cleanups.push(() => client.close());

    const missing = missingServiceFlags(process.execArgv, process.env.NODE_OPTIONS);
    if (missing.length > 0) log(`bench: this process runs without ${missing.join(' ')}, which svc start gives the service (bin/node-flags.mjs); add it to node's command line to measure what svc start runs`);
    const perKey = RATE_LIMITS.execute.write;
    const ceiling = Math.floor((keyCount * perKey) / (RATE_WINDOW_MS / 1000));
    // The goal's rate on this database unless BENCH_PLACE_RATE says otherwise (0: no open loop).
    const rated = opts.rate === undefined ? PLACE_GOALS[runtime.database.kind].ordersPerSecond : opts.rate || undefined;
    const setup = [
      `${cpus().length} CPU(s), Node ${process.version}, ${runtime.database.kind}, load average ${loadavg()[0]!.toFixed(1)} at start`,
      `${opts.agents} wallet agents (registered with a wallet proof, signup grant ${GRANT / 10n ** 6n} play dollars each), ${INVENTORY} shares of both outcomes each in every market;`,
      `     ${keyCount} execute keys in rotation per scenario (${perKey} writes per ${RATE_WINDOW_MS / 1000} s each: throttling starts above ~${ceiling} orders/s sustained, or ${keyCount * perKey} orders in a scenario's minute)`,
      `ORDERBOOK markets created through the negotiate loop on anvil; fill allowance on (1e9 free per month); ledger batches committed on chain as configured`,
      `stream (seeded): prices 2 ticks through to 8 behind a drifting mid (100-bps tick), 1..100 shares, both outcomes, 1 in 10 IOC, bids from even agents, asks from odd`,
      `load: ${opts.connections} keep-alive connections, closed loop, ${opts.warmupSeconds} s warm-up + ${opts.seconds} s per scenario, separate process; a fresh Idempotency-Key per request`,
      ...(rated
        ? [
            `"at ${rated}/s": the same streams in an open loop, an order due every ${(1000 / rated).toFixed(2)} ms whatever the answers, over ${opts.rateConnections ?? 64} keep-alive connections at most; latency from when each was due, so falling behind shows (BENCH_PLACE_RATE=0: none)`,
          ]
        : []),
      ...(rated && opts.direct
        ? [
            `"in the process, no HTTP": the fixed rate's streams placed in the service's own process through the order book service, each with its Idempotency-Key record (answer included) in its transaction as over HTTP, latency from when each was due: the order path without the edge, a floor for the same rate over HTTP; "single writers paused": the same with the leaderboard's and reputation's folds, the economy's and participation's keepers and the ledger batcher stopped meanwhile (caught up after) (BENCH_PLACE_DIRECT=0: none; bench/direct-placements.ts)`,
          ]
        : []),
      primeMarket
        ? `primed: ${opts.primeSeconds} s of the same load on a market of its own before the scenarios, not measured, so V8 has compiled the order path as in a server that has run for a while (BENCH_PLACE_PRIME_SECONDS=0: none)`
        : 'not primed (BENCH_PLACE_PRIME_SECONDS=0): the first scenario pays for V8 compiling the order path',
      `anchor: bare Fastify POST route on the same process, parses the JSON body, answers a real place-order 201 body (${probe.text.length} bytes, one fill)`,
      `the disk's flush per scenario: an 8 KB write and fdatasync every 20 ms in ${tmpdir()}, ${await sameDiskAsDatabase(runtime)} (bench/disk-sync.ts)`,
      `CPU µs/order: the service's process (PGlite's work included); DB CPU µs/order: a local PostgreSQL server's processes (– on PGlite, or a server this process cannot read in /proc); client CPU µs/order: the load client's process (per request sent, for the anchor), which a deployment's clients would not take from the service's machine; WAL B/order: the write-ahead log PostgreSQL wrote (the same in any phase of the machine; – on PGlite)`,
      missing.length === 0
        ? `node: ${SERVICE_NODE_FLAGS.join(' ')}, as svc start runs the service (bin/node-flags.mjs)`
        : `node: WITHOUT ${missing.join(' ')}, which svc start runs the service with (bin/node-flags.mjs): these numbers are of another heap; run it as npm run bench does`,
    ];

    const streamLength = Math.ceil(((opts.warmupSeconds + opts.seconds) * Math.max(STREAM_PER_SECOND, rated ?? 0)) / 1000) * 1000;
    // Each scenario rotates through keys of its own: one set for the whole run shares one minute's write budget between
    // both scenarios and their warm-ups, which a fast machine spends (2 x 6 s at 2,000 orders/s is 24,000 of 30,720).
    const freshKeys = (scenario: number): Promise<string[][]> =>
      issueKeys(
        traders.map((): string[] => []),
        0,
        `s${scenario}`,
      );
    const scriptOf = (scenarioMarkets: readonly string[], seed: number, keysOf: readonly (readonly string[])[] = traders.map((t) => t.keys)): ScriptedRequest[] =>
      placeOrderScript(streamLength, scenarioMarkets, keysOf, seed);
    let runs = 0;
    const stalls = opts.stalls ?? 0;
    const directOrders = (scenarioMarkets: readonly string[], seed: number): DirectOrder[] =>
      placeOrderStream(streamLength, scenarioMarkets, traders.length, seed).map(({ agent, body }) => ({ principal: traders[agent]!.principal, body }));
    const placeDirect = async (how: 'running' | 'paused', orders: readonly DirectOrder[], rate: number): Promise<LoadResult> => {
      const resume = how === 'paused' ? await pauseSingleWriters(runtime) : null;
      try {
        return await placeDirectAtRate(runtime, orders, { rate, warmupMs: opts.warmupSeconds * 1000, durationMs: opts.seconds * 1000, keyPrefix: `bench-direct-${++runs}` });
      } finally {
        await resume?.();
      }
    };
    const run = async (
      port: number,
      path: string,
      script: readonly ScriptedRequest[],
      { connections = opts.connections, warmupMs = opts.warmupSeconds * 1000, durationMs = opts.seconds * 1000, rate }: { connections?: number; warmupMs?: number; durationMs?: number; rate?: number } = {},
    ): Promise<LoadResult> =>
      client.run({
        host,
        port,
        path,
        tokens: [],
        method: 'POST',
        script,
        idempotencyPrefix: `bench-${++runs}`,
        okStatus: 201,
        connections,
        warmupMs,
        durationMs,
        ...(rate !== undefined ? { ratePerSecond: rate } : {}),
        ...(stalls > 0 ? { slowMs: STALL_MS } : {}),
      });

    log('bench: running anchor');
    const anchorScript = scriptOf([markets[0]!], 0x0b00c);
    const anchorResult = await run(anchorPort, '/anchor', anchorScript);
    const anchor: PlaceScenario = { name: 'anchor: bare Fastify, same body', ...anchorResult, orders: 0, fills: {}, orderStatuses: {}, wrapped: anchorResult.sent > anchorScript.length, clientCpuUsPerOrder: anchorResult.clientCpuUs / Math.max(anchorResult.sent, 1) };

    if (primeMarket) {
      log(`bench: priming the order path (${opts.primeSeconds} s on a market of its own)`);
      const primed = await run(address.port, PATH, scriptOf([primeMarket], 0x9a1e, await freshKeys(-1)), { warmupMs: 0, durationMs: opts.primeSeconds * 1000 });
      const failed = Object.entries(primed.statuses).filter(([status]) => status !== '201');
      log(`bench: primed: ${Math.round(primed.rps)} orders/s, p99 ${primed.p99Ms.toFixed(1)} ms${failed.length > 0 ? `, ${failed.map(([st, n]) => `${n}×${st}`).join(' ')}` : ''}`);
    }

    serverErrors.causes.clear();
    const before = await ledgerState(runtime);
    const scenarios: PlaceScenario[] = [];
    const commits: string[] = [];
    const holdLines: string[] = [];
    const spread = `spread over ${opts.markets} market${opts.markets === 1 ? '' : 's'}`;
    const rateConnections = opts.rateConnections ?? 64;
    // The two streams: closed loops, then again at the fixed rate (open loops), then the sweep's one-market runs.
    const streams = [
      { what: '1 market', markets: [markets[0]!], seed: 0x0b00c },
      { what: spread, markets: markets.slice(1, 1 + opts.markets), seed: 0x5eed5 },
    ];
    // The fixed rate's streams in the process without the edge (direct-placements.ts): as it runs, then with the single
    // writers beside the order path paused.
    const directWays = [
      { direct: 'running' as const, what: 'in the process, no HTTP' },
      { direct: 'paused' as const, what: 'in the process, no HTTP, single writers paused' },
    ];
    const cases: { name: string; markets: string[]; seed: number; connections: number; rate?: number; swept?: true; direct?: 'running' | 'paused' }[] = [
      ...streams.map((s) => ({ name: `place-order, ${s.what}`, markets: s.markets, seed: s.seed, connections: opts.connections })),
      ...(rated === undefined ? [] : streams.map((s) => ({ name: `place-order at ${rated}/s, ${s.what}`, markets: s.markets, seed: s.seed, connections: rateConnections, rate: rated }))),
      ...(opts.sweep ?? []).map((c) => ({ name: `place-order, 1 market, ${c} connection${c === 1 ? '' : 's'}`, markets: streams[0]!.markets, seed: streams[0]!.seed, connections: c, swept: true as const })),
      ...(rated === undefined || !opts.direct
        ? []
        : directWays.flatMap(({ direct, what }) => streams.map((s) => ({ name: `place-order at ${rated}/s, ${s.what}, ${what}`, markets: s.markets, seed: s.seed, connections: 0, rate: rated, direct })))),
    ];
    const swept: { service: CostPoint; db?: CostPoint }[] = [];
    for (const [i, { name, markets: scenarioMarkets, seed, connections, rate, swept: inSweep, direct }] of cases.entries()) {
      // (The direct streams need no keys: their orders are placed as their agents, in the process.)
      const script = direct ? [] : scriptOf(scenarioMarkets, seed, i === 0 ? undefined : await freshKeys(i));
      log(`bench: running ${name}`);
      const since = runtime.clock.now();
      const stats = runtime.services.orderbook.stats();
      const profile = opts.profileDir ? await startProfile() : null;
      const holds = opts.holds && runtime.database.kind === 'pglite' ? watchHolds() : null;
      const server = runtime.database.kind === 'postgres' ? await watchServerCpu(runtime.database.db) : null;
      const wal = runtime.database.kind === 'postgres' ? await watchWal(runtime.database.db) : null;
      const timeline = stalls > 0 ? startTimeline() : null;
      const speedBefore = coreSpeedMs();
      const threads = watchThreadCpu();
      const machine = watchMachineCpu();
      const disk = watchDiskSync();
      const loop = watchLoopDelay();
      const cpu = process.cpuUsage();
      const wallStart = performance.now();
      const progress = opts.progressSeconds ? watchProgress(runtime, opts.progressSeconds, (line) => log(`bench: ${name}: ${line}`)) : null;
      const result = direct
        ? await placeDirect(direct, directOrders(scenarioMarkets, seed), rate!)
        : await run(address.port, PATH, script, { connections, ...(rate !== undefined ? { rate } : {}) });
      progress?.stop();
      const wallMs = performance.now() - wallStart;
      const used = process.cpuUsage(cpu);
      const byThread = threads?.stop();
      const shares = machine.stop();
      const lateness = loop.stop();
      const serverUs = server?.stop();
      const walBytes = await wal?.stop();
      // Last: the thread finishes the flush it is in (up to 20 ms), which no other measure should span.
      const flushes = await disk.stop();
      const long = holds?.stop() ?? [];
      if (long.length > 0) holdLines.push(`"${name}": turns of ${LONG_HOLD_MS} ms or more on the embedded database's connection, warm-up included, by who took it:`, ...long.slice(0, 8).map((l) => `  ${l}`));
      const stallLines = timeline?.stop(result.slow ?? [], stalls) ?? [];
      if (timeline) holdLines.push(`"${name}": its ${stalls} longest stalls (placements over ${STALL_MS} ms sent within 5 ms of each other):`, ...stallLines.map((l) => `  ${l}`));
      delete result.slow;
      if (profile) log(`bench: CPU profile of "${name}" in ${await profile.stop(opts.profileDir!, name)}`);
      const statsAfter = runtime.services.orderbook.stats();
      const [t, o, ms] = placedBetween(stats, statsAfter);
      // Rounds run one after another: the share of the scenario a placement transaction was running says whether a
      // round's latency is the limit (near 100 %) or something else is (docs/orderbook.md, session 20).
      const timing = t > 0 ? `; ${(ms / t).toFixed(1)} ms a transaction on average, one running ${((100 * ms) / wallMs).toFixed(0)} % of the time` : '';
      commits.push(`"${name}": ${o} orders placed in ${t} transactions (group commit: ${t > 0 ? (o / t).toFixed(1) : '–'} orders per transaction${timing}), warm-up included`);
      if (t > 0) {
        commits.push(
          `"${name}": a transaction's time by phase, ms on average: ${phasesBetween(stats, statsAfter, t)}; the event loop ran what was ready ${lateness.meanMs.toFixed(2)} ms late on average (p99 ${lateness.p99Ms.toFixed(1)})${runtime.database.kind === 'postgres' ? ', which is in each database phase too' : ''} (bench/loop-delay.ts)`,
        );
        // The tail's transactions apart: whether they waited on the database or on the service (docs/orderbook.md, session 32).
        const slow = statsAfter.slow.transactions - stats.slow.transactions;
        commits.push(
          slow === 0
            ? `"${name}": no transaction took ${SLOW_TRANSACTION_MS} ms or more`
            : `"${name}": ${slow} transaction(s) took ${SLOW_TRANSACTION_MS} ms or more (${statsAfter.slow.orders - stats.slow.orders} orders), by phase, ms on average: ${phasesBetween(stats.slow, statsAfter.slow, slow)}`,
        );
      }
      // A closed loop of N connections places about N / mean latency orders a second: the tail costs rate, not p99 alone.
      if (result.ok > 0) {
        const closed = rate === undefined ? `; were every answer as quick as the p50, ${connections} connections would place ${Math.round((1000 * connections) / result.p50Ms)} orders/s` : '';
        commits.push(`"${name}": latency p50 ${result.p50Ms.toFixed(1)} ms, p90 ${result.p90Ms.toFixed(1)}, mean ${result.meanMs.toFixed(1)}${closed}`);
      }
      // The open loop's connections are a cap: past it, orders wait in the client, and the service sees them late and in
      // step with its own answers (docs/orderbook.md, session 30).
      const wait = result.clientWait;
      if (wait && wait.of > 0) {
        const waited = wait.queued > 0 ? `, and waited for one to free (p50 ${wait.p50Ms.toFixed(1)} ms, p99 ${wait.p99Ms.toFixed(1)}, longest ${wait.maxMs.toFixed(1)}): that part of their latency is the client's` : '';
        commits.push(`"${name}": ${wait.queued} of the ${wait.of} orders due found all ${connections} of the client's connections busy${waited}`);
      }
      // The helpers' share is what a core of their own would take off the event loop's and the database's.
      const speed = `SHA-256 of 20 MB in ${speedBefore.toFixed(1)} ms before it and ${coreSpeedMs().toFixed(1)} after (bench/machine-cpu.ts)`;
      const idle = shares ? `the machine's CPU idle ${shares.idlePct.toFixed(0)} % of the time, taken by the host for other guests (steal) ${shares.stealPct.toFixed(1)} %; ` : '';
      commits.push(`"${name}": ${idle}${speed}`);
      // Every round's COMMIT waits for a flush like this one (docs/orderbook.md, session 33).
      if (flushes) commits.push(`"${name}": the disk's flush (an 8 KB write and fdatasync every 20 ms on a thread, bench/disk-sync.ts): p50 ${flushes.p50Ms.toFixed(2)} ms, p99 ${flushes.p99Ms.toFixed(1)}, longest ${flushes.maxMs.toFixed(1)}; ${flushes.slow} of ${flushes.count} took ${SLOW_SYNC_MS} ms or more`);
      if (byThread && o > 0) commits.push(`"${name}": the service's CPU by thread: its event loop ${(byThread.mainUs / o).toFixed(0)} µs an order, the other threads (V8 compiling in the background and collecting garbage, libuv's pool) ${(byThread.othersUs / o).toFixed(0)} µs, warm-up included`);
      if (inSweep) swept.push({ service: { orders: o, rounds: t, us: used.user + used.system }, ...(serverUs !== undefined ? { db: { orders: o, rounds: t, us: serverUs } } : {}) });
      const counts = await countsOf(runtime, scenarioMarkets, since);
      const perOrder = (us: number) => (o > 0 ? us / o : Number.NaN);
      scenarios.push({
        name,
        ...result,
        ...counts,
        wrapped: result.sent > (direct ? streamLength : script.length),
        cpuUsPerOrder: perOrder(used.user + used.system),
        clientCpuUsPerOrder: perOrder(result.clientCpuUs),
        ...(serverUs !== undefined ? { dbCpuUsPerOrder: perOrder(serverUs) } : {}),
        ...(walBytes !== undefined ? { walBytesPerOrder: perOrder(walBytes) } : {}),
        ...(direct ? { direct: true as const } : {}),
      });
      // An open loop that fell behind left the service placing what it was sent: the next scenario starts once it is done.
      if (rate !== undefined) await placementsDrained(runtime);
    }
    const after = await ledgerState(runtime);
    const debt = await catchUp(runtime);
    const notes = [
      `ledger: ${after.confirmed - before.confirmed} batch(es) committed on chain during the scenarios; ${after.pendingOps} operation(s) waiting for the next batch at the end`,
      `leaderboard: ${after.pendingFills} fill(s) waiting to be folded at the end`,
      `background left behind: catching up took ${debt.cpuMs.toFixed(0)} ms of the service's CPU time (${debt.wallMs.toFixed(0)} ms): the ledger's batches, the leaderboard's and the reputation's folds`,
      `load average ${loadavg()[0]!.toFixed(1)} at the end`,
      ...commits,
      ...costLines(swept),
      ...holdLines,
    ];
    for (const [cause, { count, detail }] of serverErrors.causes) notes.push(`server error log during the scenarios: ${count}× ${cause}${detail ? ` (first: ${detail.slice(0, 400)})` : ''}`);
    for (const s of scenarios) if (s.wrapped) notes.push(`"${s.name}": the server took more than the ${streamLength}-order stream; it started over (same orders, new idempotency keys)`);
    notes.push(...goalLines(runtime.database.kind, anchor, scenarios));
    return { setup, anchor, scenarios, notes };
  });
}

type PlacementStats = ReturnType<Runtime['services']['orderbook']['stats']>;

/** Resolves once the service has placed no order for a quarter of a second (30 s at most). */
async function placementsDrained(runtime: Runtime): Promise<void> {
  const until = performance.now() + 30_000;
  let last = runtime.services.orderbook.stats().orders;
  while (performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = runtime.services.orderbook.stats().orders;
    if (now === last) return;
    last = now;
  }
}

/** What the service's order path does in each phase of a transaction (round-phases.ts), as the bench names it. */
const PHASE_NAMES: Record<RoundPhase, string> = {
  reads: 'locks and reads (database)',
  matching: 'matching and the first writes built',
  firstWrites: 'first writes (database)',
  answers: 'answers and the last writes built',
  lastWrites: 'last writes (database)',
  commit: 'commit (database)',
};

/** The mean milliseconds a transaction spent in each phase from `before` to `now`, over `transactions`. */
function phasesBetween(before: PhaseTally, now: PhaseTally, transactions: number): string {
  return ROUND_PHASES.map((phase) => `${PHASE_NAMES[phase]} ${((now.phaseMs[phase] - before.phaseMs[phase]) / transactions).toFixed(2)}`).join(', ');
}

/** Placement transactions, orders and the transactions' milliseconds from `before` to `now` (two of the service's stats). */
function placedBetween(before: PlacementStats, now: PlacementStats): [number, number, number] {
  return [now.transactions - before.transactions, now.orders - before.orders, now.transactionMs - before.transactionMs];
}

/**
 * Every `seconds` while a scenario runs, what its last interval placed: orders/s, orders a transaction, a transaction's
 * mean time and the service's CPU time an order (all its threads). Shows the warm-up's compiling and what growing tables
 * and books do to the rate (docs/orderbook.md, session 25), which the scenario's totals average away.
 */
function watchProgress(runtime: Runtime, seconds: number, log: (line: string) => void): { stop(): void } {
  let last = { ...runtime.services.orderbook.stats(), cpu: process.cpuUsage(), at: performance.now() };
  const timer = setInterval(() => {
    const now = { ...runtime.services.orderbook.stats(), cpu: process.cpuUsage(), at: performance.now() };
    const [t, o, ms] = placedBetween(last, now);
    const cpuUs = now.cpu.user + now.cpu.system - (last.cpu.user + last.cpu.system);
    const wall = (now.at - last.at) / 1000;
    log(
      o === 0
        ? `${wall.toFixed(1)} s: no order placed`
        : `${wall.toFixed(1)} s: ${(o / wall).toFixed(0)} orders/s, ${(o / Math.max(t, 1)).toFixed(1)} orders a transaction, ${(ms / Math.max(t, 1)).toFixed(1)} ms a transaction, ${(cpuUs / o).toFixed(0)} µs of CPU an order; ${now.orders} orders in all, heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`,
    );
    last = now;
  }, seconds * 1000);
  return { stop: () => clearInterval(timer) };
}

/** The sweep's cost model (BENCH_PLACE_SWEEP), a line for the service and one for PostgreSQL where it was measured. */
function costLines(swept: readonly { service: CostPoint; db?: CostPoint }[]): string[] {
  if (swept.length === 0) return [];
  const line = (who: string, fit: CostModel | null) =>
    fit
      ? `cost model over the sweep's ${swept.length} runs (least squares): ${who} ${fit.perOrderUs.toFixed(0)} µs of CPU an order + ${(fit.perRoundUs / 1000).toFixed(2)} ms a round (a placement transaction)`
      : `cost model over the sweep's ${swept.length} run(s): ${who}: the runs cannot tell an order's cost from a round's (sweep at least two numbers of connections whose rounds hold different numbers of orders)`;
  const db = swept.every((p) => p.db) ? [line('PostgreSQL', fitCostModel(swept.map((p) => p.db!)))] : [];
  // Rounds of near the same size leave the split to the noise (a negative cost a round, say).
  const sizes = swept.map((p) => p.service.orders / Math.max(p.service.rounds, 1));
  const spread = Math.max(...sizes) / Math.min(...sizes);
  const caution = swept.length >= 2 && spread < 3 ? [`cost model: the sweep's rounds held ${Math.min(...sizes).toFixed(1)}-${Math.max(...sizes).toFixed(1)} orders, too alike for a steady split; sweep connection counts far apart (e.g. 4,32)`] : [];
  return [line("the service's process", fitCostModel(swept.map((p) => p.service))), ...db, ...caution];
}

/** A comma-separated list of connection counts (1..1024) from the environment; none when unset. */
function connectionsFromEnv(name: string): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < 1 || n > 1_024) throw new Error(`bench: ${name} must list connection counts from 1 to 1024, comma-separated; got ${JSON.stringify(raw)}`);
    return n;
  });
}

/** Whether the bench's flush probe (disk-sync.ts, in the temporary folder) writes to the database's disk, as far as this process can tell. */
async function sameDiskAsDatabase(runtime: Runtime): Promise<string> {
  if (runtime.database.kind === 'pglite') return process.env.BENCH_PGLITE_DISK === '1' ? 'the disk of the data folder if it is there too' : 'while the database is in memory (no disk of its own)';
  try {
    const { rows } = await sql<{ dir: string }>`SELECT current_setting('data_directory') AS dir`.execute(runtime.database.db);
    return statSync(rows[0]!.dir).dev === statSync(tmpdir()).dev ? "on PostgreSQL's data directory's device" : "NOT on PostgreSQL's data directory's device";
  } catch {
    return "on a device this process cannot compare with PostgreSQL's data directory (another machine, or not readable)";
  }
}

/** The knobs from the environment (documented in bench/run.ts). */
export function orderBookHttpOptionsFromEnv(log: (line: string) => void): PlaceBenchOptions {
  const agents = intFromEnv('BENCH_PLACE_AGENTS', 64, 2, 10_000);
  if (agents % 2 !== 0) throw new Error(`bench: BENCH_PLACE_AGENTS must be even (bids come from even agents, asks from odd ones); got ${agents}`);
  return {
    seconds: intFromEnv('BENCH_PLACE_SECONDS', intFromEnv('BENCH_SECONDS', 5, 1, 600), 1, 600),
    warmupSeconds: intFromEnv('BENCH_WARMUP_SECONDS', 1, 1, 600),
    primeSeconds: intFromEnv('BENCH_PLACE_PRIME_SECONDS', 8, 0, 600),
    connections: intFromEnv('BENCH_CONNECTIONS', 16, 1, 1_024),
    agents,
    keys: intFromEnv('BENCH_KEYS', 256, 1, 100_000),
    markets: intFromEnv('BENCH_PLACE_MARKETS', 4, 1, 19),
    profileDir: process.env.BENCH_PLACE_PROFILE || undefined,
    stalls: intFromEnv('BENCH_PLACE_STALLS', 0, 0, 100),
    progressSeconds: intFromEnv('BENCH_PLACE_PROGRESS', 0, 0, 600),
    sweep: connectionsFromEnv('BENCH_PLACE_SWEEP'),
    ...(process.env.BENCH_PLACE_RATE === undefined || process.env.BENCH_PLACE_RATE === '' ? {} : { rate: intFromEnv('BENCH_PLACE_RATE', 0, 0, 100_000) }),
    rateConnections: intFromEnv('BENCH_PLACE_RATE_CONNECTIONS', 64, 1, 1_024),
    holds: process.env.BENCH_PLACE_HOLDS === '1',
    direct: process.env.BENCH_PLACE_DIRECT !== '0',
    log,
  };
}

runIfMain(import.meta.url, async (log) => {
  const report = await benchOrderBookHttp(orderBookHttpOptionsFromEnv(log));
  log('');
  log(formatOrderBookHttpReport(report));
});

/**
 * Composition root: builds the database, the chain (spawning anvil in embedded mode), the operator
 * relayer, the deployments, the services and the HTTP server, and tears them down in reverse.
 */
import { createServer } from 'node:http';
import { mkdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CATALOG } from '../api/catalog/index.ts';
import type { Capability, Documents } from '../api/catalog/types.ts';
import { createDocuments } from '../api/docs/documents-bag.ts';
import { settleLinks } from '../api/catalog/negotiate/settle.ts';
import { confirmLink } from '../api/http/confirm-page.ts';
import { buildHttpServer } from '../api/http/server.ts';
import { trackUnusedConnections } from '../api/http/unused-connections.ts';
import { ANVIL_DEV_PRIVATE_KEY, type AnvilHandle } from '../chain/anvil.ts';
import { createChainLiveness } from '../chain/liveness.ts';
import { chainDefinition, createChainClient } from '../chain/clients.ts';
import type { DeploymentRecord } from '../chain/deployer.ts';
import { fundFromDevAccount, loadOrCreateOperatorKey } from '../chain/operator-key.ts';
import { createRelayer, type Relayer, type RelayerFaults } from '../chain/relayer.ts';
import { createLedgerService } from '../services/ledger/ledger.ts';
import { createLedgerBatcher, type LedgerBatcher, type LedgerFaults } from '../services/ledger/batcher.ts';
import { createFillPackService } from '../services/orderbook/fill-packs.ts';
import { createFaucetService } from '../services/faucet/faucet.ts';
import { createEconomyService } from '../services/economy/economy.ts';
import { createStripeProvider } from '../services/payments/stripe.ts';
import { PM_SALE_DEPLOYMENT } from '../chain/pm-sale.ts';
import { DISTRIBUTOR_DEPLOYMENT } from '../chain/participation-distributor.ts';
import { createParticipationService } from '../services/participation/participation.ts';
import { faucetOffReason } from '../core/faucet.ts';
import { createOrderBookService, MARKET_CLOSED, MARKET_TAKEN_DOWN, MARKET_VOID } from '../services/orderbook/orders.ts';
import type { Config } from '../config.ts';
import type { Account } from '../core/ledger/types.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { migrateToLatest, openConfiguredDatabase, type Database } from '../db/index.ts';
import { createChainService, readCollateral } from '../services/chain/chain-service.ts';
import { createEventBus } from '../services/events/bus.ts';
import { EVENTS_CHANNEL } from '../services/events/outbox.ts';
import { createMarketIndexer } from '../services/markets/indexer.ts';
import { seedDemoMarkets } from '../services/markets/seed.ts';
import { createMarketLifecycle } from '../services/markets/lifecycle.ts';
import { createResolutionKeeper } from '../services/markets/resolution-keeper.ts';
import { createVoteService } from '../services/resolution/votes.ts';
import { createResolutionReadService } from '../services/resolution/reads.ts';
import { createResolutionActionService } from '../services/resolution/actions.ts';
import { createClaimService } from '../services/claims/claims.ts';
import { createEventStreamService } from '../services/events/stream.ts';
import { createPayoutKeeper } from '../services/claims/payout-keeper.ts';
import type { EndedMarketsListener } from '../services/markets/ended-markets.ts';
import { createNegotiationService } from '../services/markets/negotiation.ts';
import { createTradingService } from '../services/markets/trading.ts';
import { countLiveMarkets } from '../services/markets/listing/count-live-markets.ts';
import { createMarketReadService } from '../services/markets/read-service.ts';
import { createHealthService } from '../services/health/health.ts';
import { createIdempotencyService, type IdempotencyFaults } from '../services/idempotency/idempotency.ts';
import { createKeyService, KEYS_CHANNEL } from '../services/keys/keys.ts';
import { createReadCache } from '../services/read-cache/read-cache.ts';
import { createNonceService } from '../services/identity/nonces.ts';
import { createSessionService } from '../services/identity/sessions.ts';
import { createWalletProofVerifier } from '../services/identity/wallet-proof.ts';
import { createElevationService } from '../services/identity/elevation.ts';
import { createRegistrationService } from '../services/identity/registration.ts';
import { createAgentKeyService } from '../services/identity/agent-keys.ts';
import { createBindingService } from '../services/identity/binding.ts';
import { createHumanVerificationService } from '../services/identity/human-verification.ts';
import { signupGrant } from '../services/identity/signup-grant.ts';
import { createProfileService } from '../services/identity/profile.ts';
import { createEmailLinkService } from '../services/identity/email-links.ts';
import { createHumanCheck } from '../services/identity/human-check.ts';
import { createMailer } from '../services/mail/mailer.ts';
import { createLinkingService } from '../services/identity/linking.ts';
import { connectRedisStore, createMemoryStore } from '../services/rate-limit/store.ts';
import { createWebhookService } from '../services/webhooks/webhooks.ts';
import { createMarketDataService } from '../services/market-data/market-data.ts';
// Reputation (issue 20; docs/reputation.md).
import { createReputationGates } from '../services/reputation/gates.ts';
import { createReputationService } from '../services/reputation/reputation.ts';
import { sql } from 'kysely';
import { createClusterService, endedBooksPayload, ORDER_BOOKS_CHANNEL, type ClusterService } from '../services/cluster/cluster.ts';
import { holdStartupLock } from '../services/cluster/startup.ts';
import { createVisitorService } from '../services/visitors/visitors.ts';
import { createVolumeWindowKeeper } from '../services/markets/volume-window.ts';
import { createThesisService } from '../services/theses/theses.ts';
import { DATA_PLANE_LIMITS } from '../services/rate-limit/limits.ts';
import { createWebhookDispatcher } from '../services/webhooks/dispatcher.ts';
import { createSecretBox, deriveSecretBoxKey } from '../core/webhooks/secret-box.ts';
import { startEmbeddedAnvil } from './embedded-chain.ts';
import { ensureContracts } from './contracts.ts';
import { startHousekeeping } from './housekeeping.ts';
import { createLogger, type Logger } from './logger.ts';
import type { Services } from '../services/services.ts';
// Leaderboards (issue 20; docs/leaderboard.md).
import { createLeaderboardService } from '../services/leaderboard/leaderboard.ts';

/** PM minted to the operator (the protocol treasury) when PM is deployed: 1e9 PM. */
/** NOTIFYed by the markets' and trades' triggers (migration 0029). */
const READ_MODELS_CHANNEL = 'svc_read_models';
/** The longest a rendered list page is answered from memory (and never longer than READ_AFTER_WRITE_WINDOW_MS). */
const LIST_PAGE_TTL_MS = 1_000;

export interface RuntimeOptions {
  clock?: Clock;
  log?: Logger;
  catalog?: readonly Capability[];
  relayerFaults?: RelayerFaults;
  /** Test hooks that simulate a crash at a point of a ledger batch's life. */
  ledgerFaults?: LedgerFaults;
  /** Test hooks that simulate a crash between a keyed write's effect and its stored response. */
  idempotencyFaults?: IdempotencyFaults;
  /** Test hook: awaited before the supervisor restarts an anvil that exited (holds the node down while a test looks). */
  beforeAnvilRestart?: () => Promise<void>;
  /** Progress lines for people watching start-up. */
  progress?: (line: string) => void;
  /** A database already open (tests start from a migrated copy); the runtime migrates it and closes it. */
  database?: Database;
  /** Embedded mode: an anvil already running (tests share one per process); the runtime uses it and leaves it running. */
  anvil?: AnvilHandle;
}

export interface Runtime {
  config: Config;
  clock: Clock;
  log: Logger;
  database: Database;
  anvil: AnvilHandle | null;
  rpcUrl: string;
  operator: Address;
  relayer: Relayer;
  /** Reconciles our chain records with the chain now, as the timer does (relayer, then ledger batches); one at a time. */
  reconcileChain(): Promise<void>;
  deployments: Record<string, DeploymentRecord>;
  services: Services;
  /** The documents generated from the catalog (OpenAPI, catalog.json, skill). */
  documents: Documents;
  http: FastifyInstance;
  /** Creates the demo markets and trades (svc seed); once per chain unless forced. Returns how many it created. */
  seed(force: boolean): Promise<number>;
  /**
   * Starts listening; resolves to the bound address. `ownInternalPort`: the port is shared by several processes
   * (`svc start --workers N`), so calls forwarded to this one come to a port of its own on 127.0.0.1.
   */
  listen(opts?: { ownInternalPort?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/**
 * A port of this process alone on 127.0.0.1 that serves the same routes (its public port is shared with other worker
 * processes, which would hand a forwarded call to any of them): `exclusive`, so the cluster module does not share it.
 */
async function listenInternally(http: FastifyInstance): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => http.server.emit('request', req, res));
  const endUnused = trackUnusedConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => resolve());
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        endUnused();
      }),
  };
}

export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  const progress = options.progress ?? ((line: string) => log.info(line));
  const catalog = options.catalog ?? CATALOG;
  const cleanups: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => log.error({ err }, 'shutdown step failed'));
    cleanups.length = 0;
  };

  try {
    await mkdir(config.dataDir, { recursive: true });

    // The database first: on PGlite its folder lock refuses a second svc on this DATA_DIR before it
    // touches the chain (a second anvil on the same state file).
    if (!options.database) progress(config.database.kind === 'postgres' ? 'database: connecting to PostgreSQL' : `database: opening PGlite in ${config.database.dir}`);
    const database = options.database ?? (await openConfiguredDatabase(config.database));
    cleanups.push(() => database.close());
    const { applied } = await migrateToLatest(database.db);
    if (applied.length > 0) progress(`database: applied migrations ${applied.join(', ')}`);

    let anvil: AnvilHandle | null = null;
    const liveness = createChainLiveness(log);
    cleanups.push(async () => liveness.stop());
    // Set once the relayer exists; the anvil supervisor calls it after a restart.
    let reconcileSteps = async (_say: (line: string) => void): Promise<void> => undefined;
    // One reconciliation at a time: the supervisor, the liveness probe and the timer may all ask at once.
    let reconciling: Promise<void> | null = null;
    const reconcileChain = (say: (line: string) => void = progress): Promise<void> =>
      (reconciling ??= reconcileSteps(say).finally(() => {
        reconciling = null;
      }));
    let rpcUrl: string;
    if (config.chain.mode === 'embedded' && options.anvil) {
      anvil = options.anvil;
      rpcUrl = anvil.rpcUrl;
    } else if (config.chain.mode === 'embedded') {
      anvil = await startEmbeddedAnvil(config, { log, progress, beforeRestart: options.beforeAnvilRestart, liveness, reconcileChain, cleanups });
      rpcUrl = anvil.rpcUrl;
    } else {
      rpcUrl = config.chain.rpcUrl!;
    }
    const chain = chainDefinition(config.chain.id, config.chain.name, rpcUrl);
    const client = createChainClient(chain, rpcUrl);
    const nodeChainId = await client.getChainId();
    if (nodeChainId !== config.chain.id) {
      throw new Error(`chain: the node at ${rpcUrl} reports chain id ${nodeChainId}, config says ${config.chain.id}`);
    }

    const operatorKey: Hex = config.chain.operatorPrivateKey ?? (await loadOrCreateOperatorKey(config.chain.operatorKeyFile));
    const account = privateKeyToAccount(operatorKey);
    const relayer = createRelayer({ db: database.db, client, account, chainId: config.chain.id, clock, log, confirmations: config.chain.confirmations, faults: options.relayerFaults });
    // At start, after an anvil restart (whose state may predate both), after the node came back and periodically: fund
    // the operator on the embedded chain, let the relayer settle, rebroadcast and put back what the chain does not
    // hold, then let the ledger compare its batches with the contract (once the batcher exists).
    let ledgerOnChain: LedgerBatcher | null = null;
    // SVC_ROLE=api (docs/architecture.md "Several processes"): the chain writers (relayer reconciliation, indexer,
    // scheduler, keepers, ledger batcher) run in the deployment's SVC_ROLE=all process only.
    const writers = config.role === 'all';
    if (!writers) progress('role: api (SVC_ROLE=api): never leads, so no indexer, scheduler, keepers, ledger batcher or relayer reconciliation in this process');
    // Several processes on one PostgreSQL (docs/operations.md): the coordination connection, and one start-up at a time
    // among the processes that may lead (the contracts are verified or deployed under it).
    const coordinator = database.kind === 'postgres' ? database.coordinator : undefined;
    let starting = true;
    let releaseStartup = writers && coordinator ? await holdStartupLock(coordinator, progress) : null;
    let cluster: ClusterService | null = null;
    reconcileSteps = async (say) => {
      // At start-up under the start-up lock, then only in the leader (it runs the relayer's and the ledger's timers).
      if (!writers || (!starting && !cluster?.isLeader())) return;
      if (config.chain.mode === 'embedded') {
        const funded = await fundFromDevAccount({ client, chain, rpcUrl, devKey: ANVIL_DEV_PRIVATE_KEY, operator: account.address });
        if (funded > 0n) say(`chain: funded operator ${account.address} from the dev account`);
      }
      const settled = await relayer.resume();
      if (settled.length > 0) say(`relayer: settled ${settled.length} transaction(s) the chain did not hold as recorded: ${settled.map((t) => `${t.operationId} ${t.state}`).join(', ')}`);
      for (const line of (await ledgerOnChain?.reconcile()) ?? []) say(line);
    };
    await reconcileChain();

    // An SVC_ROLE=api process only reads the deployments its SVC_ROLE=all process recorded: it never deploys.
    const { deployments, collateralAddresses, lane, laneRecords, tokenOf } = await ensureContracts(
      { db: database.db, client, relayer, chainId: config.chain.id, clock, log, mayDeploy: writers },
      config,
      account.address,
      progress,
    );
    const collateral = await readCollateral(client, config.chain.id, collateralAddresses);
    await releaseStartup?.();
    releaseStartup = null;
    starting = false;

    const rateLimits = config.redisUrl ? connectRedisStore(config.redisUrl) : createMemoryStore();
    cleanups.push(() => rateLimits.close());
    const events = createEventBus({ db: database.db, log });
    cleanups.push(() => events.close());
    // Several API processes on one PostgreSQL: another process's commit wakes this bus at once (the poll is the backstop).
    if (database.listen) {
      const unlisten = await database.listen(EVENTS_CHANNEL, (payload) => events.notify(payload && /^[0-9]+$/.test(payload) ? BigInt(payload) : undefined));
      cleanups.push(unlisten);
    }
    const chainService = createChainService({
      db: database.db,
      client,
      relayer,
      liveness,
      collateral,
      lane,
      settings: {
        id: config.chain.id,
        name: config.chain.name,
        publicRpcUrl: config.chain.publicRpcUrl ?? rpcUrl,
        blockExplorerUrl: config.chain.blockExplorerUrl,
        readAfterWriteWindowMs: config.chain.readAfterWriteWindowMs,
      },
    });
    // Markets that stop trading (voided by the indexer, closed by the lifecycle, stopped by an early resolution proposal)
    // take their resting orders with them:
    // cancelled in the same transaction, books dropped after it. `services` is built below; neither calls this before.
    const orderBooksEnding = (reason: typeof MARKET_VOID | typeof MARKET_CLOSED | typeof MARKET_TAKEN_DOWN): EndedMarketsListener => ({
      ending: async (trx, markets) => {
        await services.orderbook.cancelMarketOrders(trx, markets, reason);
        // The books may live in other processes (docs/operations.md): their owners forget them at this commit.
        if (coordinator) await sql`SELECT pg_notify(${ORDER_BOOKS_CHANNEL}, ${endedBooksPayload(markets)})`.execute(trx);
      },
      ended: (markets) => services.orderbook.forgetBooks(markets),
    });
    const indexer = createMarketIndexer({
      db: database.db,
      client,
      chainId: config.chain.id,
      lane,
      fromBlock: BigInt(Math.min(...Object.values(laneRecords).map((r) => r.fromBlock))),
      collateral: collateralAddresses.map((c) => ({ symbol: c.symbol, token: c.address })),
      events,
      clock,
      log,
      pollMs: config.markets.indexerPollMs,
      confirmations: config.chain.confirmations,
      onMarketsVoided: orderBooksEnding(MARKET_VOID),
      onMarketsStopped: orderBooksEnding(MARKET_CLOSED),
    });
    const nonces = createNonceService({ db: database.db, clock });
    const walletProofs = createWalletProofVerifier({ nonces, clock, chainId: config.chain.id });
    const keys = createKeyService({ db: database.db, clock, environment: config.environment });
    // Rendered list pages: forgotten when this process commits a change to the markets or their trades, and when another
    // process's commit NOTIFYs; never kept longer than the published read-after-write window (at most 1 s).
    const readCache = createReadCache({ ttlMs: Math.min(LIST_PAGE_TTL_MS, config.chain.readAfterWriteWindowMs) });
    const unwatch = database.writes.on(['markets', 'market_trades', 'order_fills'], () => readCache.invalidate());
    cleanups.push(async () => unwatch());
    if (database.listen) cleanups.push(await database.listen(READ_MODELS_CHANNEL, () => readCache.invalidate()));
    // Another process's change to a key (a revocation, a rotation) reaches this process's key cache at its commit.
    if (database.listen) cleanups.push(await database.listen(KEYS_CHANNEL, () => keys.invalidate()));
    const mailer = createMailer({ db: database.db, clock, log, smtpUrl: config.mail.smtpUrl, from: config.mail.from });
    cleanups.push(() => mailer.close());
    const emailLinks = createEmailLinkService({ db: database.db, clock, mailer, confirmLink: confirmLink(config.publicBaseUrl), keys });
    const humans = createHumanVerificationService({ db: database.db, clock });
    // Reputation: the fold and its reads, and the gates the create loop, the order loop, the vote and GET /me enforce.
    const reputationGates = createReputationGates({ db: database.db, freeFillsPerMonth: config.fills.freePerMonth });
    const reputation = createReputationService({
      db: database.db,
      clock,
      log,
      chainId: config.chain.id,
      // The fold is its only user: its reads are background work too.
      humans: createHumanVerificationService({ db: database.background, clock }),
      freeFillsPerMonth: config.fills.freePerMonth,
      decimalsOf: (symbol) => collateral.find((c) => c.symbol === symbol)?.decimals ?? 6,
      intervalMs: config.markets.schedulerMs,
      background: database.background,
    });
    const voteGate = (wallet: string) => reputationGates.ofWallet(wallet);
    const voteDeps = { db: database.db, clock, client, chainId: config.chain.id, resolver: lane.resolver, humans, voteGate, quorum: config.resolution.voteQuorum, windows: config.resolution, guard: chainService.guard };
    const votes = createVoteService(voteDeps);
    const resolutionActions = createResolutionActionService({ ...voteDeps, relayer, log });
    const humanCheck = createHumanCheck({ config: config.humanCheck, nonces, clock, log });
    const feeAccount = account.address.toLowerCase() as Account;
    const ledgerBatcher = createLedgerBatcher({
      db: database.background,
      client,
      relayer,
      clock,
      log,
      chainId: config.chain.id,
      contract: deployments.LedgerCommitment!.address,
      feeAccount,
      mode: config.ledger.mode,
      maxOps: config.ledger.batchMaxOps,
      intervalMs: config.ledger.batchIntervalMs,
      chainLive: () => liveness.state().up,
      faults: options.ledgerFaults,
    });
    const ledger = createLedgerService({ db: database.db, clock, feeAccount });
    const claims = createClaimService({
      db: database.db,
      client,
      chainId: config.chain.id,
      outcomeToken: lane.outcomeToken,
      resolver: lane.resolver,
      payoutRouter: lane.payoutRouter,
      relayer,
      guard: chainService.guard,
      clock,
      log,
      collateral,
      ledger,
      projection: () => indexer.projection(),
    });
    // Play money reaches an agent once, when its first wallet is bound (docs/orderbook.md "Play money").
    const onWalletBound = signupGrant(ledger, config.ledger.signupGrant);
    // Webhook signing secrets are sealed under WEBHOOK_SECRET_KEY, else under a key derived from the operator key.
    const webhookDeps = {
      db: database.db,
      clock,
      log,
      secrets: createSecretBox(deriveSecretBoxKey(Buffer.from(config.webhooks.secretKeyHex ?? operatorKey.slice(2), 'hex'))),
      targets: { allowPrivate: config.webhooks.allowPrivateTargets, ownOrigins: [new URL(config.publicBaseUrl).origin, new URL(config.mcpUrl).origin] },
    };
    const webhookDispatcher = createWebhookDispatcher({ ...webhookDeps, bus: events, intervalMs: config.webhooks.dispatchIntervalMs });
    // What the economy's and the participation release's chain-writing loops share.
    const keeperDeps = { db: database.db, client, relayer, chainId: config.chain.id, clock, log, guard: chainService.guard, chainLive: () => liveness.state().up, intervalMs: config.markets.schedulerMs };
    cluster = createClusterService({
      db: database.db,
      clock,
      log,
      coordinator,
      candidate: writers,
      url: config.cluster.internalUrl ?? `http://127.0.0.1:${config.port}`,
      tickMs: config.cluster.tickMs,
      leadership: { elected: () => startSingleWriters(), deposed: () => stopSingleWriters() },
      forgetBooks: (markets) => services.orderbook.forgetBooks(markets),
    });
    const services: Services = {
      cluster,
      // Verified in every process of the deployment: the key derives from the operator key they share.
      visitors: createVisitorService({ secret: Buffer.from(operatorKey.slice(2), 'hex') }),
      readCache,
      keys,
      idempotency: createIdempotencyService({ db: database.db, clock, faults: options.idempotencyFaults, holder: cluster.memberId }),
      rateLimits,
      events,
      chain: chainService,
      indexer,
      marketReads: createMarketReadService({ db: database.db, chain: chainService }),
      negotiations: createNegotiationService({
        db: database.db,
        clock,
        chain: chainService,
        indexer,
        events,
        countLive: (creator) => countLiveMarkets(database.db, { chainId: config.chain.id, creator }),
        liveMarketCap: async (creator) => (await reputationGates.ofWallet(creator)).maxLiveMarkets,
        settleLinks,
      }),
      trading: createTradingService({ db: database.db, clock, chain: chainService }),
      lifecycle: createMarketLifecycle({
        db: database.db,
        clock,
        events,
        log,
        intervalMs: config.markets.schedulerMs,
        onMarketsClosed: orderBooksEnding(MARKET_CLOSED),
        onMarketsTakenDown: orderBooksEnding(MARKET_TAKEN_DOWN),
      }),
      health: createHealthService({ db: database.db, dbKind: database.kind, chain: chainService, clock }),
      nonces,
      sessions: createSessionService({ db: database.db, clock, nonces, settings: { publicBaseUrl: config.publicBaseUrl, chainId: config.chain.id, ttlHours: config.sessionTtlHours } }),
      walletProofs,
      elevation: createElevationService({ db: database.db, walletProofs }),
      ledger,
      orderbook: createOrderBookService({
        db: database.db,
        expect: database.expectForeground,
        clock,
        ledger,
        events,
        chainId: config.chain.id,
        fills: config.fills,
        freeFillsOf: (db, agentId) => reputationGates.freeFillsOfAgent(agentId, db),
        fewestFreeFills: reputationGates.fewestFreeFills,
        // Several processes: a book changes only in the process that owns its shard (docs/operations.md).
        fence: (trx, marketId) => cluster!.fence(trx, marketId),
      }),
      fillPacks: createFillPackService({ db: database.db, clock, chain: chainService, log, payTo: account.address, priceUsdcPerPm: config.economy.priceUsdcPerPm, fills: config.fills }),
      ledgerBatcher,
      participation: createParticipationService({
        ...keeperDeps,
        signer: account,
        distributor: deployments[DISTRIBUTOR_DEPLOYMENT] ?? null,
        pm: tokenOf('PM'),
        stage: config.environment === 'live' ? 'production' : 'test',
        settings: config.participation,
        confirmations: config.chain.confirmations,
      }),
      economy: createEconomyService({
        ...keeperDeps,
        sale: deployments[PM_SALE_DEPLOYMENT]!.address,
        tokens: { PM: tokenOf('PM'), USDC: tokenOf('USDC') },
        provider: config.economy.stripe ? createStripeProvider(config.economy.stripe) : null,
        terms: { priceUsdcPerPm: config.economy.priceUsdcPerPm, bundlesUsd: config.economy.bundlesUsd, cap: config.economy.cap, relayMinPayment: config.economy.relayMinPayment },
        // Where the provider sends the buyer back; {CHECKOUT_SESSION_ID} is the provider's own placeholder.
        // The web app's Buy PM page shows the purchase on return (docs/web.md "Buying PM").
        returnUrls: { success: `${config.publicBaseUrl}/buy?purchase={CHECKOUT_SESSION_ID}`, cancel: `${config.publicBaseUrl}/buy?purchase=cancelled` },
        currentGrant: config.ledger.signupGrant,
      }),
      faucet: createFaucetService({ db: database.db, relayer, chainId: config.chain.id, collateral, rateLimits, clock, guard: chainService.guard, off: faucetOffReason(config.environment, config.chain.mode) }),
      mailer,
      emailLinks,
      humanCheck,
      registration: createRegistrationService({
        db: database.db,
        clock,
        keys,
        walletProofs,
        humanCheck,
        emailLinks,
        mailer,
        rateLimits,
        openPaths: config.registrationPaths,
        onWalletBound,
      }),
      linking: createLinkingService({ db: database.db, clock }),
      agentKeys: createAgentKeyService({ db: database.db, clock, keys, walletProofs, rateLimits }),
      binding: createBindingService({ db: database.db, clock, emailLinks, mailer, walletProofs, rateLimits, keys, onWalletBound }),
      profile: createProfileService({
        db: database.db,
        clock,
        chainId: config.chain.id,
        environment: config.environment,
        fills: config.fills,
        humans,
        reputation: { of: (wallet) => reputation.wallet(wallet), freeFillsOfAgent: (agentId) => reputationGates.freeFillsOfAgent(agentId) },
      }),
      humans,
      resolutionKeeper: createResolutionKeeper({
        db: database.db,
        client,
        relayer,
        chainId: config.chain.id,
        resolver: lane.resolver,
        votes,
        council: resolutionActions,
        log,
        intervalMs: config.markets.schedulerMs,
        chainLive: () => liveness.state().up,
      }),
      votes,
      resolutionReads: createResolutionReadService({ ...voteDeps, votes }),
      resolutionActions,
      claims,
      eventStreams: createEventStreamService({ bus: events, db: database.db, settings: config.events }),
      payoutKeeper: createPayoutKeeper({ claims, log, intervalMs: config.markets.schedulerMs, chainLive: () => liveness.state().up }),
      webhooks: createWebhookService({ ...webhookDeps, nudge: () => webhookDispatcher.endpointsChanged() }),
      webhookDispatcher,
      marketData: createMarketDataService({ db: database.db, clock, rateLimits, limits: DATA_PLANE_LIMITS }),
      reputation,
      theses: createThesisService({ db: database.db, chain: chainService }),
      leaderboard: createLeaderboardService({ db: database.db, background: database.background, clock, log, chainId: config.chain.id, collateral, intervalMs: config.markets.indexerPollMs }),
    };
    const documents = createDocuments(catalog, { publicBaseUrl: config.publicBaseUrl, mcpUrl: config.mcpUrl, chainId: config.chain.id, environment: config.environment });

    const stopHousekeeping = await startHousekeeping({ database, services, mailer, idempotencyTtlHours: config.idempotencyTtlHours, log, progress });
    cleanups.push(stopHousekeeping);
    services.webhookDispatcher.start();
    cleanups.push(() => services.webhookDispatcher.stop());
    // The single writers run in the leader only: this process at once on the embedded database; on PostgreSQL the one
    // process the others elect, until it dies or loses its coordination connection (docs/operations.md).
    const volumeWindow = createVolumeWindowKeeper({ db: database.db, clock, log });
    const loops = [indexer, volumeWindow, services.lifecycle, services.resolutionKeeper, services.payoutKeeper, services.reputation, services.leaderboard, services.economy, services.participation];
    let electedOnce = false;
    async function startSingleWriters(): Promise<void> {
      // A process elected while it runs takes over whatever the last leader left in flight.
      if (electedOnce) await reconcileChain((line) => log.warn(line)).catch((err: unknown) => log.error({ err }, 'chain: reconciliation on election failed; the timer tries again'));
      electedOnce = true;
      for (const loop of loops) loop.start();
      progress('ledger: loading committed balances');
      await ledgerBatcher.start();
      ledgerOnChain = ledgerBatcher;
    }
    async function stopSingleWriters(): Promise<void> {
      ledgerOnChain = null;
      await ledgerBatcher.stop();
      for (const loop of [...loops].reverse()) await loop.stop();
    }
    await cluster.start();
    const joined = cluster;
    cleanups.push(() => joined.stop());
    // While running: a probe notices a node that stops answering (503 for chain-dependent writes) and reconciles when
    // it answers again; a timer reconciles now and then even when nothing was noticed (docs/chain.md "Liveness").
    liveness.watch(() => client.getBlockNumber({ cacheTime: 0 }), config.chain.probeIntervalMs, () => reconcileChain((line) => log.warn(line)));
    const reconcileTimer = setInterval(() => {
      if (!liveness.state().up) return;
      reconcileChain((line) => log.warn(line)).catch((err: unknown) => log.error({ err }, 'chain: periodic reconciliation failed; retrying on the next tick'));
    }, config.chain.reconcileIntervalMs);
    reconcileTimer.unref();
    cleanups.push(async () => clearInterval(reconcileTimer));
    const seed = (force: boolean) =>
      seedDemoMarkets(
        { db: database.db, clock, chain: chainService, chainDefinition: chain, rpcUrl, relayer, negotiations: services.negotiations, trading: services.trading, indexer, ledger, orderbook: services.orderbook, progress },
        { force },
      );
    if (config.chain.mode === 'embedded' && config.markets.seedDemo && cluster.isLeader()) {
      const created = await seed(false);
      if (created > 0) progress(`seed: ${created} demo markets with trades are live (SEED_DEMO_MARKETS=false skips this)`);
    }

    const http = await buildHttpServer({
      catalog,
      services,
      documents,
      clock,
      log,
      publicBaseUrl: config.publicBaseUrl,
      mcpUrl: config.mcpUrl,
      mcpAllowedOrigins: config.mcpAllowedOrigins,
      bodyLimitBytes: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
    });
    cleanups.push(() => http.close());

    return {
      config,
      clock,
      log,
      database,
      anvil,
      rpcUrl,
      operator: account.address,
      relayer,
      reconcileChain: () => reconcileChain((line) => log.warn(line)),
      deployments,
      services,
      documents,
      http,
      seed,
      listen: async (opts = {}) => {
        const address = await http.listen({ port: config.port, host: config.host });
        // Where the other processes forward requests for the books this one owns.
        const bound = http.server.address();
        const port = typeof bound === 'object' && bound ? bound.port : config.port;
        const own = !config.cluster.internalUrl && opts.ownInternalPort ? await listenInternally(http) : null;
        if (own) cleanups.push(own.close);
        await joined.setUrl(config.cluster.internalUrl ?? own?.url ?? `http://127.0.0.1:${port}`);
        return address;
      },
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

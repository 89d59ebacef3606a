// The services every capability handler may use, built once by the runtime (src/runtime/runtime.ts).
import type { ChainService } from './chain/chain-service.ts';
import type { EventBus } from './events/bus.ts';
import type { MarketIndexer } from './markets/indexer.ts';
import type { MarketReadService } from './markets/read-service.ts';
import type { NegotiationService } from './markets/negotiation.ts';
import type { TradingService } from './markets/trading.ts';
import type { MarketLifecycle } from './markets/lifecycle.ts';
import type { HealthService } from './health/health.ts';
import type { IdempotencyService } from './idempotency/idempotency.ts';
import type { KeyService } from './keys/keys.ts';
import type { NonceService } from './identity/nonces.ts';
import type { SessionService } from './identity/sessions.ts';
import type { WalletProofVerifier } from './identity/wallet-proof.ts';
import type { ElevationService } from './identity/elevation.ts';
import type { LedgerService } from './ledger/ledger.ts';
import type { LedgerBatcher } from './ledger/batcher.ts';
import type { FaucetService } from './faucet/faucet.ts';
import type { EconomyService } from './economy/economy.ts';
import type { ReadCache } from './read-cache/read-cache.ts';
import type { ParticipationService } from './participation/participation.ts';
import type { FillPackService } from './orderbook/fill-packs.ts';
import type { OrderBookService } from './orderbook/orders.ts';
import type { RegistrationService } from './identity/registration.ts';
import type { AgentKeyService } from './identity/agent-keys.ts';
import type { BindingService } from './identity/binding.ts';
import type { ProfileService } from './identity/profile.ts';
import type { ResolutionKeeper } from './markets/resolution-keeper.ts';
import type { VoteService } from './resolution/votes.ts';
import type { ResolutionReadService } from './resolution/reads.ts';
import type { ResolutionActionService } from './resolution/actions.ts';
import type { ClaimService } from './claims/claims.ts';
import type { EventStreamService } from './events/stream.ts';
import type { PayoutKeeper } from './claims/payout-keeper.ts';
import type { HumanVerificationService } from './identity/human-verification.ts';
import type { EmailLinkService } from './identity/email-links.ts';
import type { HumanCheck } from './identity/human-check.ts';
import type { Mailer } from './mail/mailer.ts';
import type { LinkingService } from './identity/linking.ts';
import type { RateLimitStore } from './rate-limit/store.ts';
import type { WebhookService } from './webhooks/webhooks.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { MarketDataService } from './market-data/market-data.ts';
import type { LeaderboardService } from './leaderboard/leaderboard.ts';
// Reputation (issue 20).
import type { ReputationService } from './reputation/reputation.ts';
import type { ThesisService } from './theses/theses.ts';
import type { ClusterService } from './cluster/cluster.ts';
import type { VisitorService } from './visitors/visitors.ts';

export interface Services {
  /** Several processes: the leader, the owners of the order-book shards, where a call runs (docs/operations.md). */
  cluster: ClusterService;
  /** The web app's visitor sessions: read-only callers of the public market reads (docs/web.md). */
  visitors: VisitorService;
  keys: KeyService;
  idempotency: IdempotencyService;
  rateLimits: RateLimitStore;
  events: EventBus;
  chain: ChainService;
  indexer: MarketIndexer;
  /** Market listings and per-market reads (docs/markets.md "Reads"). */
  marketReads: MarketReadService;
  negotiations: NegotiationService;
  trading: TradingService;
  lifecycle: MarketLifecycle;
  health: HealthService;
  nonces: NonceService;
  sessions: SessionService;
  walletProofs: WalletProofVerifier;
  /** The play-money ledger: appending operations (docs/ledger.md). */
  ledger: LedgerService;
  /** The order loop of play-money order books (docs/orderbook.md). */
  orderbook: OrderBookService;
  /** Fill packs paid in USDC on chain (docs/orderbook.md "Fill allowance"). */
  fillPacks: FillPackService;
  /** Batches ledger operations onto the chain; the committed root and proofs. */
  ledgerBatcher: LedgerBatcher;
  /** Test funds (gas, TestUSDC, PM) for bound wallets on the embedded test environment (docs/faucet.md). */
  faucet: FaucetService;
  /** Wallet-proof elevation of MCP tool calls. */
  elevation: ElevationService;
  mailer: Mailer;
  emailLinks: EmailLinkService;
  humanCheck: HumanCheck;
  registration: RegistrationService;
  agentKeys: AgentKeyService;
  binding: BindingService;
  profile: ProfileService;
  /** Finalizes unchallenged proposals and opens vote rounds when they are due (docs/resolution.md "The keeper"). */
  resolutionKeeper: ResolutionKeeper;
  /** Human votes: ballots, published sessions, verdicts (docs/resolution.md "Votes"). */
  votes: VoteService;
  /** A market's resolution with the caller's actions, the resolution queue, the resolutionSource catalog (docs/resolution-reads.md). */
  resolutionReads: ResolutionReadService;
  /** The steps of a resolution: relayed proposal, its preview, challenge, finalize, council, integrity restart (docs/resolution.md "Actions"). */
  resolutionActions: ResolutionActionService;
  /** Payouts of automated markets: what a wallet is owed, read on chain, and the redemptions the protocol sends (docs/money-out.md). */
  claims: ClaimService;
  /** Enveloped, filtered, resumable event streams over the outbox (WebSocket and SSE; docs/events.md). */
  eventStreams: EventStreamService;
  /** Settles slashed bonds and pays their voters, every MARKET_SCHEDULER_MS (docs/money-out.md "Bonds"). */
  payoutKeeper: PayoutKeeper;
  /** Verified humans: attestations per wallet, shared by an identity's linked wallets (one human vote each). */
  humans: HumanVerificationService;
  linking: LinkingService;
  /** An agent's webhook endpoints, secrets and delivery logs (docs/events.md "Webhooks"). */
  webhooks: WebhookService;
  /** Schedules outbox events into webhook deliveries and makes the due attempts, every WEBHOOK_DISPATCH_INTERVAL_MS. */
  webhookDispatcher: WebhookDispatcher;
  /** Frames agents publish onto market surfaces, with their budgets (docs/market-data.md). */
  marketData: MarketDataService;
  /** Black-box reputation: the fold of tiers, the reads, leaderboards, audit trails and profiles (docs/reputation.md). */
  reputation: ReputationService;
  /** Discovery theses: live markets worth a look and why, in 18 locales (docs/theses.md). */
  theses: ThesisService;
  /** Trader, creator and voter leaderboards and P&L history, kept current from the indexer and the ledger (docs/leaderboard.md). */
  leaderboard: LeaderboardService;
  /** PM purchase: terms, card checkout and delivery, the relay sale, the signup-grant read (docs/economy.md). */
  economy: EconomyService;
  /** The participation release: member state, claims against the distributor, daily credits (docs/participation.md). */
  participation: ParticipationService;
  /** Rendered public list pages, forgotten on any committed change to the markets or their trades (docs/markets.md "Listing cache"). */
  readCache: ReadCache;
}

// The services every capability handler may use, built once by the runtime.
import type { z } from 'zod';
import type { AgentCapabilitySchema } from '../api/catalog/schemas.ts';
import type { Surface } from '../api/catalog/types.ts';
import type { CatalogDocument } from '../api/docs/catalog-document.ts';
import type { Skill } from '../api/docs/skill.ts';
import type { ChainService } from '../services/chain/chain-service.ts';
import type { EventBus } from '../services/events/bus.ts';
import type { MarketIndexer } from '../services/markets/indexer.ts';
import type { MarketReadService } from '../services/markets/read-service.ts';
import type { NegotiationService } from '../services/markets/negotiation.ts';
import type { TradingService } from '../services/markets/trading.ts';
import type { MarketLifecycle } from '../services/markets/lifecycle.ts';
import type { HealthService } from '../services/health/health.ts';
import type { IdempotencyService } from '../services/idempotency/idempotency.ts';
import type { KeyService } from '../services/keys/keys.ts';
import type { NonceService } from '../services/identity/nonces.ts';
import type { SessionService } from '../services/identity/sessions.ts';
import type { WalletProofVerifier } from '../services/identity/wallet-proof.ts';
import type { ElevationService } from '../services/identity/elevation.ts';
import type { LedgerService } from '../services/ledger/ledger.ts';
import type { LedgerBatcher } from '../services/ledger/batcher.ts';
import type { FillPackService } from '../services/orderbook/fill-packs.ts';
import type { OrderBookService } from '../services/orderbook/orders.ts';
import type { RegistrationService } from '../services/identity/registration.ts';
import type { AgentKeyService } from '../services/identity/agent-keys.ts';
import type { BindingService } from '../services/identity/binding.ts';
import type { ProfileService } from '../services/identity/profile.ts';
import type { EmailLinkService } from '../services/identity/email-links.ts';
import type { HumanCheck } from '../services/identity/human-check.ts';
import type { Mailer } from '../services/mail/mailer.ts';
import type { LinkingService } from '../services/identity/linking.ts';
import type { RateLimitStore } from '../services/rate-limit/store.ts';

export interface Services {
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
  /** Wallet-proof elevation of MCP tool calls. */
  elevation: ElevationService;
  mailer: Mailer;
  emailLinks: EmailLinkService;
  humanCheck: HumanCheck;
  registration: RegistrationService;
  agentKeys: AgentKeyService;
  binding: BindingService;
  profile: ProfileService;
  /** What handlers publish about this deployment. */
  site: { publicBaseUrl: string; mcpUrl: string; chainId: number; environment: 'live' | 'test' };
  /** Agent capabilities the spec keeps REST-only, with why (GET /mcp-discovery surfacePolicy). */
  restOnlyCapabilities(): { capability: string; reason: string; paths: string[] }[];
  linking: LinkingService;
  agentCapabilities(): z.output<typeof AgentCapabilitySchema>[];
  openApi(surface: Surface): Record<string, unknown>;
  /** GET /catalog.json, built once from the catalog (src/api/docs/catalog-document.ts). */
  catalogDocument(): CatalogDocument;
  /** The skill every agent-facing document renders (src/api/docs/skill.ts), built once. */
  skill(): Skill;
}

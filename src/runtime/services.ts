// The services every capability handler may use, built once by the runtime.
import type { z } from 'zod';
import type { AgentCapabilitySchema } from '../api/catalog/schemas.ts';
import type { Surface } from '../api/catalog/types.ts';
import type { ChainService } from '../services/chain/chain-service.ts';
import type { EventBus } from '../services/events/bus.ts';
import type { HealthService } from '../services/health/health.ts';
import type { IdempotencyService } from '../services/idempotency/idempotency.ts';
import type { KeyService } from '../services/keys/keys.ts';
import type { NonceService } from '../services/identity/nonces.ts';
import type { WalletProofVerifier } from '../services/identity/wallet-proof.ts';
import type { RegistrationService } from '../services/identity/registration.ts';
import type { RateLimitStore } from '../services/rate-limit/store.ts';

export interface Services {
  keys: KeyService;
  idempotency: IdempotencyService;
  rateLimits: RateLimitStore;
  events: EventBus;
  chain: ChainService;
  health: HealthService;
  nonces: NonceService;
  walletProofs: WalletProofVerifier;
  registration: RegistrationService;
  agentCapabilities(): z.output<typeof AgentCapabilitySchema>[];
  openApi(surface: Surface): Record<string, unknown>;
}

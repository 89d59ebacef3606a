// What the reputation operations read: the database the facts are kept in, the clock, who is a verified human, and
// the figures the gates scale (docs/reputation.md).
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import type { HumanVerificationService } from '../identity/human-verification.ts';

export interface ReputationDeps {
  db: Kysely<DB>;
  clock: Clock;
  log: Logger;
  chainId: number;
  /** The verified-human attestation of a subject (shared by an identity's wallets). */
  humans: Pick<HumanVerificationService, 'votersOf'>;
  /** FILLS_FREE_PER_MONTH: the free fills each tier's gate is a share of. */
  freeFillsPerMonth: number;
  /** Decimals of a collateral symbol (USDC 6, PM 18, PLAY 6): volume is counted at face value. */
  decimalsOf: (symbol: string) => number;
  /** Facts read per source and pass (default 1000). */
  batchSize?: number;
}

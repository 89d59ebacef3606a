// What the participation release's operations need (docs/participation.md): the distributor and its token, the
// operator key that signs vouchers, the relayer that pushes distributions, the node, and the settings.
import type { Kysely } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { Relayer } from '../../chain/relayer.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';

export interface ParticipationSettings {
  mode: 'on' | 'off' | 'retired';
  poolWei: bigint;
  dailyCreditWei: bigint;
  activeDays: number;
  qualifyingVolume: bigint;
  cadenceMs: number;
  voucherMs: number;
  attestationMaxAgeMs: number;
  requireIdentity: boolean;
  lowWaterWei: bigint;
}

export interface ParticipationDeps {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Pick<Relayer, 'submit' | 'get'>;
  chainId: number;
  clock: Clock;
  log: Logger;
  /** The operator key: it signs the vouchers the distributor checks. */
  signer: LocalAccount;
  /** The distributor's deployment record; null where none is deployed. */
  distributor: { address: Address; fromBlock: number; deploymentTxHash: string; deploymentBlockHash: string; runtimeCodeHash: string } | null;
  pm: Address;
  stage: 'test' | 'production';
  settings: ParticipationSettings;
  /** Blocks a distribution's transaction needs (its own included) before it counts as paid. */
  confirmations: number;
  chainLive: () => boolean;
  guard: <T>(fn: () => Promise<T>) => Promise<T>;
}

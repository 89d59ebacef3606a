// What the vote operations read: the database, the chain (its time and the resolver), who is a verified human.
import type { Kysely } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { Relayer } from '../../chain/relayer.ts';
import type { Clock } from '../../core/clock.ts';
import { isProblemError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { DB } from '../../db/schema.ts';
import type { HumanVerificationService } from '../identity/human-verification.ts';

export interface VoteDeps {
  db: Kysely<DB>;
  clock: Clock;
  client: PublicClient;
  chainId: number;
  resolver: Address;
  humans: Pick<HumanVerificationService, 'voterOf'>;
  /** The reputation gate of a voter's wallet (docs/reputation.md "Gates"): a restricted tier may not vote. */
  voteGate?: (wallet: string) => Promise<{ tier: string; mayVote: boolean }>;
  /** Counted ballots a binding verdict needs. */
  quorum: number;
  windows: { challengeWindowSeconds: number; voteWindowSeconds: number };
  /** Runs a chain read, turning an unreachable node into 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard: ChainGuard;
}

export type ChainGuard = <T>(fn: () => Promise<T>) => Promise<T>;

const unguarded: ChainGuard = (fn) => fn();

/** The chain's time (the latest block's), which the resolver's deadlines are in. */
export async function chainNow(deps: { client: PublicClient; guard?: ChainGuard }): Promise<Date> {
  const head = await (deps.guard ?? unguarded)(() => deps.client.getBlock({ blockTag: 'latest' }));
  return new Date(Number(head.timestamp) * 1000);
}

/**
 * Whether `signer` signed typed data (an EOA's signature, or what its ERC-1271 wallet accepts). A node that cannot
 * be reached is 503, never "invalid".
 */
export async function signedBy(deps: Pick<VoteDeps, 'client' | 'guard'>, signer: Address, typed: Parameters<PublicClient['verifyTypedData']>[0]): Promise<boolean> {
  return deps.guard(() => deps.client.verifyTypedData({ ...typed, address: signer })).catch((err: unknown) => {
    if (isProblemError(err)) throw err;
    return false;
  });
}

/** What the resolution actions need besides the votes' reads: the relayer that pays gas for relayed steps. */
export interface ActionDeps extends VoteDeps {
  relayer: Pick<Relayer, 'address' | 'submit' | 'get'>;
  log: Logger;
}


export { actingWallet } from '../identity/acting-wallet.ts';

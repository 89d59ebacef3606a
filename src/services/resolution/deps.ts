// What the vote operations read: the database, the chain (its time and the resolver), who is a verified human.
import type { Kysely } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { Clock } from '../../core/clock.ts';
import type { DB } from '../../db/schema.ts';
import type { HumanVerificationService } from '../identity/human-verification.ts';

export interface VoteDeps {
  db: Kysely<DB>;
  clock: Clock;
  client: PublicClient;
  chainId: number;
  resolver: Address;
  humans: Pick<HumanVerificationService, 'voterOf'>;
  /** Counted ballots a binding verdict needs. */
  quorum: number;
  windows: { challengeWindowSeconds: number; voteWindowSeconds: number };
}

/** The chain's time (the latest block's), which the resolver's deadlines are in. */
export async function chainNow(deps: Pick<VoteDeps, 'client'>): Promise<Date> {
  const head = await deps.client.getBlock({ blockTag: 'latest' });
  return new Date(Number(head.timestamp) * 1000);
}

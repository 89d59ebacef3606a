/**
 * The order-book shards (docs/operations.md "Order books"): a market's book lives in the memory of the process that owns
 * its shard, `ledger market id mod SHARDS`. Each shard's preferred owner among the live processes is chosen by
 * rendezvous hashing, so a process joining or leaving moves only the shards it takes or leaves.
 */
import { createHash } from 'node:crypto';

export const SHARDS = 64;

export const shardOf = (marketId: bigint): number => Number(marketId % BigInt(SHARDS));

/** The live member with the highest hash of (member, shard); null when there is none. */
export function preferredOwner(shard: number, members: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const m of members) {
    const score = createHash('sha256').update(`${m}:${shard}`).digest().readUInt32BE(0);
    if (score > bestScore || (score === bestScore && best !== null && m < best)) {
      best = m;
      bestScore = score;
    }
  }
  return best;
}

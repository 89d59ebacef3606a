// The cluster of svc processes on one PostgreSQL as its tables show it (docs/operations.md "Order books"): the live
// members, and the wait for the split of the order-book shards a join settles into over a few ticks.
import type { Kysely } from 'kysely';
import { isAlive } from '../../src/db/lock.ts';
import type { DB } from '../../src/db/schema.ts';
import { preferredOwner, SHARDS } from '../../src/services/cluster/shards.ts';
import { waitFor } from './wait.ts';

export interface LiveMember {
  id: string;
  pid: number;
  /** Order-book shards it owns. */
  shards: number;
}

/** The members whose process still runs, and the shards each owns. */
export async function liveMembers(db: Kysely<DB>): Promise<LiveMember[]> {
  const rows = await db.selectFrom('cluster_members').select(['id', 'pid']).execute();
  const shards = await db.selectFrom('order_shards').select(['owner']).execute();
  return rows.filter((m) => isAlive(m.pid)).map((m) => ({ ...m, shards: shards.filter((s) => s.owner === m.id).length }));
}

/**
 * Waits until `count` members run and every shard is owned by its preferred owner among them: no book is moving, so a
 * call on any market is answered (or forwarded to its owner) without a 503. Answers the members.
 */
export async function settledShards(db: Kysely<DB>, count: number, timeoutMs = 30_000): Promise<LiveMember[]> {
  return waitFor(
    async () => {
      const members = await liveMembers(db);
      if (members.length !== count) return null;
      const ids = members.map((m) => m.id);
      const shards = await db.selectFrom('order_shards').select(['shard', 'owner']).execute();
      return shards.length === SHARDS && shards.every((s) => s.owner === preferredOwner(s.shard, ids)) ? members : null;
    },
    { what: `${count} members owning their preferred order-book shards`, timeoutMs },
  );
}

/**
 * The processes of a deployment on one PostgreSQL (docs/operations.md): each one a row of cluster_members, alive while
 * its process holds the member lock keyed by the row's lock_key on its coordination connection. Nothing is a heartbeat:
 * PostgreSQL frees a dead process's locks when its session ends.
 */
import { randomInt } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { isUniqueViolation } from '../../db/index.ts';
import { LOCK_NAMESPACES, MEMBER_ALIVE_SQL, type Coordinator } from '../../db/coordinator.ts';
import type { DB } from '../../db/schema.ts';

export interface Member {
  id: string;
  url: string;
}

/** Rows of processes that died this long ago are deleted (a row is written just before its lock is taken). */
const DEAD_ROW_AGE_MS = 60_000;

/** Registers this process under `id` and takes its member lock; answers its lock key. */
export async function join(deps: { db: Kysely<DB>; coordinator: Coordinator; clock: Clock }, self: { id: string; url: string; pid: number }): Promise<{ id: string; lockKey: number }> {
  const { id } = self;
  for (;;) {
    const lockKey = randomInt(1, 0x7fffffff);
    try {
      await deps.db.insertInto('cluster_members').values({ id, lock_key: lockKey, url: self.url, pid: self.pid, started_at: deps.clock.now() }).execute();
    } catch (err) {
      if (isUniqueViolation(err)) continue;
      throw err;
    }
    if (await deps.coordinator.tryLock(LOCK_NAMESPACES.member, lockKey)) return { id, lockKey };
    await deps.db.deleteFrom('cluster_members').where('id', '=', id).execute();
    throw new Error('cluster: could not take the member lock of a new member row');
  }
}

/** The live members (their locks held now), by id; deletes the rows of members dead for a while. */
export async function liveMembers(deps: { db: Kysely<DB>; clock: Clock }): Promise<Member[]> {
  const rows = await sql<{ id: string; url: string; alive: boolean; started_at: Date }>`
    SELECT m.id, m.url, m.started_at, ${sql.raw(MEMBER_ALIVE_SQL)} AS alive FROM cluster_members m ORDER BY m.id`.execute(deps.db);
  const dead = rows.rows.filter((r) => !r.alive && deps.clock.now().getTime() - new Date(r.started_at).getTime() > DEAD_ROW_AGE_MS).map((r) => r.id);
  if (dead.length > 0) await deps.db.deleteFrom('cluster_members').where('id', 'in', dead).execute();
  return rows.rows.filter((r) => r.alive).map((r) => ({ id: r.id, url: r.url }));
}

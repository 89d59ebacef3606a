/**
 * The coordination connection of a PostgreSQL process (docs/operations.md): one connection of its own, outside the
 * pool, that LISTENs on every channel the process follows and holds its session advisory locks (its membership, its
 * leadership, the order-book shards it owns). A session lock lasts as long as this connection: when the process dies,
 * PostgreSQL ends its session and every lock it held is free for another process at once. When the connection is lost
 * while the process lives, `onLost` tells its holders that their locks are gone; the connection comes back after a
 * second, LISTENs again and wakes every listener (a commit may have come while nobody listened). Locks are not taken
 * again by this file: their holders decide.
 */
import pg from 'pg';

export interface Coordinator {
  /** Takes the session advisory lock (namespace, key) if no other session holds it; false otherwise or while disconnected. */
  tryLock(namespace: number, key: number): Promise<boolean>;
  /** Releases a session advisory lock this connection holds (nothing when it does not, or when disconnected). */
  unlock(namespace: number, key: number): Promise<void>;
  /** The keys of `namespace` whose session advisory lock some session of this database holds now. */
  heldKeys(namespace: number): Promise<number[]>;
  /**
   * Calls `onNotify` on each NOTIFY on `channel` with its payload, and after every reconnection without one (what was
   * sent while the connection was down is lost: treat it as "anything may have changed"); returns how to stop.
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  /** Calls `fn` each time the connection is lost (every session lock this process held is gone); returns how to stop. */
  onLost(fn: () => void): () => void;
  /** Whether the connection is up now. */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * Namespaces of the session advisory locks several processes take (docs/operations.md): a member's liveness (key: its
 * cluster_members.lock_key), the leadership (key 1), an order-book shard (key: the shard), and start-up (key 1: one
 * process at a time verifies or deploys the contracts).
 */
export const LOCK_NAMESPACES = { member: 0x5c01, leader: 0x5c02, shard: 0x5c03, startup: 0x5c04 } as const;

/** SQL text: whether the member lock of `cluster_members` row alias `m` is held by some session of this database. */
export const MEMBER_ALIVE_SQL = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
  AND l.classid = ${LOCK_NAMESPACES.member}::oid AND l.objid = m.lock_key::oid
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`;

const RECONNECT_MS = 1_000;
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** A non-negative int4 (advisory lock keys are compared as PostgreSQL oids: keep them positive). */
const checkKey = (n: number, what: string): number => {
  if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) throw new Error(`${what} must be an integer in [0, 2^31): ${n}`);
  return n;
};

export function createCoordinator(connectionString: string, log?: (msg: string) => void): Coordinator {
  const channels = new Map<string, Set<(payload?: string) => void>>();
  const lostListeners = new Set<() => void>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client | null> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;

  const wakeAll = () => {
    for (const set of channels.values()) for (const fn of set) fn();
  };

  const lose = (c: pg.Client, why: string) => {
    if (client !== c) return;
    client = null;
    c.end().catch(() => undefined);
    if (closed) return;
    log?.(`PostgreSQL coordination connection lost (${why}); its locks are gone; connecting again in 1 s`);
    for (const fn of lostListeners) fn();
    retry ??= setTimeout(() => {
      retry = null;
      void connect();
    }, RECONNECT_MS);
  };

  const connect = (): Promise<pg.Client | null> =>
    (connecting ??= (async () => {
      const c = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
      c.on('error', (err) => lose(c, err.message));
      c.on('end', () => lose(c, 'closed'));
      c.on('notification', (n) => {
        for (const fn of channels.get(n.channel) ?? []) fn(n.payload);
      });
      try {
        await c.connect();
        for (const channel of channels.keys()) await c.query(`LISTEN ${channel}`);
        if (closed) {
          await c.end();
          return null;
        }
        client = c;
        wakeAll();
        return c;
      } catch (err) {
        c.end().catch(() => undefined);
        if (!closed) {
          log?.(`PostgreSQL coordination connection failed (${err instanceof Error ? err.message : String(err)}); trying again in 1 s`);
          retry ??= setTimeout(() => {
            retry = null;
            void connect();
          }, RECONNECT_MS);
        }
        return null;
      } finally {
        connecting = null;
      }
    })());

  /** The live connection, connecting first if there is none; null while it cannot be had. */
  const live = async (): Promise<pg.Client | null> => client ?? (closed ? null : await connect());

  return {
    async tryLock(namespace, key) {
      const c = await live();
      if (!c) return false;
      const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [checkKey(namespace, 'namespace'), checkKey(key, 'key')]).catch(() => null);
      return r?.rows[0]?.ok === true && client === c;
    },
    async unlock(namespace, key) {
      const c = client;
      if (!c) return;
      await c.query('SELECT pg_advisory_unlock($1, $2)', [checkKey(namespace, 'namespace'), checkKey(key, 'key')]).catch(() => undefined);
    },
    async heldKeys(namespace) {
      const c = await live();
      if (!c) throw new Error('the PostgreSQL coordination connection is down');
      // Two-int advisory locks show as classid = namespace, objid = key, objsubid = 2; only this database's.
      const r = await c.query<{ key: string }>(
        `SELECT objid::text AS key FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::int::oid
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [checkKey(namespace, 'namespace')],
      );
      return r.rows.map((row) => Number(row.key));
    },
    async listen(channel, onNotify) {
      if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
      let set = channels.get(channel);
      if (!set) {
        set = new Set();
        channels.set(channel, set);
        const c = await live();
        await c?.query(`LISTEN ${channel}`).catch(() => undefined);
      } else {
        await live();
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
        if (set.size > 0 || channels.get(channel) !== set) return;
        channels.delete(channel);
        await client?.query(`UNLISTEN ${channel}`).catch(() => undefined);
      };
    },
    onLost(fn) {
      lostListeners.add(fn);
      return () => lostListeners.delete(fn);
    },
    connected: () => client !== null,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await connecting?.catch(() => undefined);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}

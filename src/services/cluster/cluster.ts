/**
 * Several processes on one PostgreSQL (docs/operations.md). Every process of a deployment is a member (members.ts);
 * exactly one is the leader, elected by a session advisory lock, and runs the single writers (the indexer, the
 * lifecycle scheduler, the keepers, the ledger batcher, the relayer's reconciliation…) until it dies or loses its
 * coordination connection, when another member takes the lock within a tick. The order books are sharded by market
 * (shards.ts): each shard is owned by one member, which holds the shard's lock and is named in its order_shards row;
 * a request for a book another member owns is forwarded to it (the pipeline asks route*), and every transaction that
 * changes a book is fenced on its shard's row (a takeover's UPDATE waits for the old owner's transactions; a
 * transaction after it refuses). On the embedded database (one process) there is no coordinator: this process leads and
 * owns every book, and nothing is routed.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { Logger } from '../../core/logger.ts';
import { LOCK_NAMESPACES, type Coordinator } from '../../db/coordinator.ts';
import type { Step } from '../../db/pipeline.ts';
import type { DB } from '../../db/schema.ts';
import type { EndedMarket } from '../markets/ended-markets.ts';
import { join, liveMembers } from './members.ts';
import { preferredOwner, SHARDS, shardOf } from './shards.ts';

/** The kv_settings key the leader writes its member id under, so the others can route leader-only reads to it. */
const LEADER_SETTING = 'cluster.leader';
export const CLUSTER_CHANNEL = 'svc_cluster';
/** NOTIFYed by a transaction that ended order-book markets: each owner forgets its books (they load again from the rows). */
export const ORDER_BOOKS_CHANNEL = 'svc_order_books';

/** The NOTIFY payload naming the order-book markets a transaction ended: `<ledger id>:<address>,…` (under 8000 bytes). */
export function endedBooksPayload(markets: readonly EndedMarket[]): string {
  const books = markets.filter((m) => m.ledgerMarketId !== null).map((m) => `${m.ledgerMarketId}:${m.address}`);
  const text = books.join(',');
  // PostgreSQL refuses a payload of 8000 bytes or more: then every owner forgets all its books, as after a reconnection.
  return text.length < 7_900 ? text : '*';
}

/** The markets of an endedBooksPayload; null means every book. */
function endedBooksOf(payload: string | undefined): EndedMarket[] | null {
  if (payload === undefined || payload === '*') return null;
  const books: EndedMarket[] = [];
  for (const item of payload.split(',')) {
    const m = /^([0-9]+):(0x[0-9a-f]{40})$/.exec(item);
    if (m) books.push({ ledgerMarketId: BigInt(m[1]!), address: m[2]! });
  }
  return books;
}

export interface ClusterStatus {
  memberId: string | null;
  leader: boolean;
  /** Shards of the order books this process owns now (all of them on one process). */
  shards: number;
  members: number;
}

export interface ClusterService {
  /** This process's member id (null on the embedded database: one process, nothing shared). */
  readonly memberId: string | null;
  isLeader(): boolean;
  /** Where a call on this market's book runs: null here, else the owning process's base URL; 503 while no process owns it. */
  routeMarket(address: string): Promise<string | null>;
  /** As routeMarket, for the market of an existing order (null when there is no such order: it is answered here). */
  routeOrder(orderId: string): Promise<string | null>;
  /** Where a leader-only call runs (ledger proofs): null here, else the leader's base URL; 503 while there is none. */
  routeLeader(): Promise<string | null>;
  /**
   * The first statement of every transaction that changes a market's book: it refuses (503) unless this process owns
   * the market's shard. Null when this process is the only one (there is nothing to fence).
   */
  fence(trx: Transaction<DB>, marketId: bigint): Step<void> | null;
  /** The base URL the other processes reach this one at (known once HTTP listens). */
  setUrl(url: string): Promise<void>;
  /** Joins, runs the first election and shard claims before it returns, then keeps them up every tick. */
  start(): Promise<void>;
  /** Leaves: gives up its shards and the leadership (the writers are stopped first), then its membership. */
  stop(): Promise<void>;
  status(): ClusterStatus;
}

export interface ClusterDeps {
  db: Kysely<DB>;
  clock: Clock;
  log: Logger;
  /** Absent on the embedded database. */
  coordinator?: Coordinator;
  /** Whether this process may lead (SVC_ROLE=all); an SVC_ROLE=api process never does, but owns shards. */
  candidate: boolean;
  url: string;
  tickMs: number;
  /** Starts the single writers (this process was elected) and stops them (it lost the leadership, or stops). */
  leadership: { elected(): Promise<void>; deposed(): Promise<void> };
  /** Drops the in-memory books of these markets (the order loop's forgetBooks). */
  forgetBooks(markets: readonly EndedMarket[]): void;
}

const moving = () => problem('SERVICE_UNAVAILABLE', "this market's order book is moving to another process; retry shortly", { headers: { 'Retry-After': '1' } });

export function createClusterService(deps: ClusterDeps): ClusterService {
  return deps.coordinator ? sharedCluster({ ...deps, coordinator: deps.coordinator }) : singleProcess(deps);
}

/** The embedded database: one process leads and owns every book. */
function singleProcess(deps: ClusterDeps): ClusterService {
  let leader = false;
  return {
    memberId: null,
    isLeader: () => leader,
    routeMarket: async () => null,
    routeOrder: async () => null,
    routeLeader: async () => null,
    fence: () => null,
    setUrl: async () => undefined,
    async start() {
      if (!deps.candidate) return;
      leader = true;
      await deps.leadership.elected();
    },
    async stop() {
      if (!leader) return;
      leader = false;
      await deps.leadership.deposed();
    },
    status: () => ({ memberId: null, leader, shards: leader ? SHARDS : 0, members: 1 }),
  };
}

function sharedCluster(deps: ClusterDeps & { coordinator: Coordinator }): ClusterService {
  const { db, clock, log, coordinator } = deps;
  const memberId = randomUUID();
  let url = deps.url;
  let lockKey: number | null = null;
  let joined = false;
  let leader = false;
  let stopped = false;
  const owned = new Set<number>();
  // What the last tick read: the live members' URLs, each shard's owner, the leader's id.
  let members = new Map<string, string>();
  let owners = new Map<number, string | null>();
  let leaderId: string | null = null;
  const marketIds = new Map<string, bigint | null>();
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let again = false;
  const unsubscribe: (() => Promise<void> | void)[] = [];

  const booksOf = async (shards: readonly number[]): Promise<EndedMarket[]> => {
    if (shards.length === 0) return [];
    const rows = await sql<{ address: string; ledger_market_id: string }>`
      SELECT address, ledger_market_id FROM markets
       WHERE pricing_model = 'ORDERBOOK' AND ledger_market_id IS NOT NULL
         AND mod(ledger_market_id::numeric, ${SHARDS})::int = ANY(${sql.val(shards)}::int[])`.execute(db);
    return rows.rows.map((r) => ({ address: r.address, ledgerMarketId: BigInt(r.ledger_market_id) }));
  };
  const forgetShards = async (shards: readonly number[]) => deps.forgetBooks(await booksOf(shards));

  const elect = async () => {
    if (!deps.candidate || leader || !joined || !(await coordinator.tryLock(LOCK_NAMESPACES.leader, 1))) return;
    leader = true;
    await db
      .insertInto('kv_settings')
      .values({ key: LEADER_SETTING, value: JSON.stringify(memberId), updated_at: clock.now() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(memberId), updated_at: clock.now() }))
      .execute();
    log.info({ memberId }, 'cluster: elected leader; starting the single writers');
    try {
      await deps.leadership.elected();
    } catch (err) {
      // Writers half started are no leader: stop what started and let the lock go, so this or another member tries again.
      leader = false;
      await deps.leadership.deposed().catch(() => undefined);
      await coordinator.unlock(LOCK_NAMESPACES.leader, 1);
      throw err;
    }
  };

  const depose = async (why: string) => {
    if (!leader) return;
    leader = false;
    log.warn({ memberId }, `cluster: no longer the leader (${why}); stopping the single writers`);
    await deps.leadership.deposed();
  };

  const claim = async (shards: readonly number[]) => {
    const got: number[] = [];
    for (const s of shards) if (await coordinator.tryLock(LOCK_NAMESPACES.shard, s)) got.push(s);
    if (got.length === 0) return;
    const now = clock.now();
    // Waits for the transactions the previous owner fenced on these rows; a later one of its refuses.
    await db
      .insertInto('order_shards')
      .values(got.map((shard) => ({ shard, owner: memberId, epoch: '1', updated_at: now })))
      .onConflict((oc) => oc.column('shard').doUpdateSet({ owner: memberId, epoch: sql`order_shards.epoch + 1`, updated_at: now }))
      .execute();
    await forgetShards(got);
    for (const s of got) {
      owned.add(s);
      owners.set(s, memberId);
    }
    log.info({ memberId, shards: got.length }, 'cluster: took order-book shards');
  };

  const release = async (shards: readonly number[]) => {
    for (const s of shards) owned.delete(s);
    await db.updateTable('order_shards').set({ owner: null, updated_at: clock.now() }).where('shard', 'in', shards).where('owner', '=', memberId).execute();
    await forgetShards(shards);
    for (const s of shards) await coordinator.unlock(LOCK_NAMESPACES.shard, s);
    log.info({ memberId, shards: shards.length }, 'cluster: handed order-book shards over');
  };

  const rejoin = async () => {
    if (lockKey === null) {
      lockKey = (await join({ db, coordinator, clock }, { id: memberId, url, pid: process.pid })).lockKey;
    } else {
      await db.insertInto('cluster_members').values({ id: memberId, lock_key: lockKey, url, pid: process.pid, started_at: clock.now() }).onConflict((oc) => oc.column('id').doNothing()).execute();
      if (!(await coordinator.tryLock(LOCK_NAMESPACES.member, lockKey))) return;
    }
    joined = true;
  };

  const tickOnce = async () => {
    if (stopped) return;
    if (!joined) await rejoin();
    if (!joined) return;
    await elect();
    const live = await liveMembers({ db, clock });
    members = new Map(live.map((m) => [m.id, m.url]));
    owners = new Map((await db.selectFrom('order_shards').select(['shard', 'owner']).execute()).map((r) => [r.shard, r.owner]));
    const leaderRow = await db.selectFrom('kv_settings').select('value').where('key', '=', LEADER_SETTING).executeTakeFirst();
    leaderId = leader ? memberId : ((leaderRow?.value as string | undefined) ?? null);
    const ids = [...members.keys()];
    if (!members.has(memberId)) return; // the member lock is not held (yet): own nothing
    const toRelease: number[] = [];
    const toClaim: number[] = [];
    const orphaned = new Set<number>();
    for (let s = 0; s < SHARDS; s++) {
      const preferred = preferredOwner(s, ids);
      if (owned.has(s)) {
        // A member joined that this shard prefers: hand it over (its transactions in flight finish first).
        if (preferred !== memberId) toRelease.push(s);
        continue;
      }
      const owner = owners.get(s) ?? null;
      // (A row naming this process that it does not hold is one whose lock went with a lost connection: taken again.)
      if (owner !== null && owner !== memberId && members.has(owner)) continue;
      // No live owner: the preferred member takes it at once; the others only when it is still orphaned a tick later
      // (the preferred member may be stuck); the shard lock decides between them.
      if (preferred === memberId || orphanedBefore.has(s)) toClaim.push(s);
      else orphaned.add(s);
    }
    orphanedBefore = orphaned;
    if (toRelease.length > 0) await release(toRelease);
    if (toClaim.length > 0) await claim(toClaim);
  };
  let orphanedBefore = new Set<number>();

  const tick = (): Promise<void> => {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = (async () => {
      do {
        again = false;
        await tickOnce().catch((err: unknown) => log.warn({ err }, 'cluster: tick failed; trying again on the next one'));
      } while (again && !stopped);
    })().finally(() => {
      ticking = null;
    });
    return ticking;
  };

  const lost = () => {
    joined = false;
    const had = [...owned];
    owned.clear();
    void forgetShards(had).catch(() => undefined);
    void depose('its PostgreSQL coordination connection was lost');
  };

  const routeShard = async (shard: number): Promise<string | null> => {
    if (owned.has(shard)) return null;
    const owner = owners.get(shard);
    const target = owner && owner !== memberId ? members.get(owner) : undefined;
    if (target) return target;
    void tick();
    throw moving();
  };

  return {
    memberId,
    isLeader: () => leader,
    async routeMarket(address) {
      const key = address.toLowerCase();
      if (!marketIds.has(key)) {
        const row = await db.selectFrom('markets').select(['ledger_market_id', 'pricing_model']).where('address', '=', key).executeTakeFirst();
        const id = row && row.pricing_model === 'ORDERBOOK' && row.ledger_market_id !== null ? BigInt(row.ledger_market_id) : null;
        // Only a known book is kept: a market indexed later is looked up again.
        if (id === null) return null;
        marketIds.set(key, id);
      }
      return routeShard(shardOf(marketIds.get(key)!));
    },
    async routeOrder(orderId) {
      if (!/^[0-9a-f-]{36}$/i.test(orderId)) return null;
      const row = await db.selectFrom('orders').select('market_id').where('id', '=', orderId).executeTakeFirst();
      return row ? routeShard(shardOf(BigInt(row.market_id))) : null;
    },
    async routeLeader() {
      if (leader) return null;
      const target = leaderId ? members.get(leaderId) : undefined;
      if (target) return target;
      void tick();
      throw problem('SERVICE_UNAVAILABLE', 'no process leads the deployment at this moment (one is being elected); retry shortly', { headers: { 'Retry-After': '1' } });
    },
    fence(trx, marketId) {
      const shard = shardOf(marketId);
      if (!owned.has(shard)) throw moving();
      return {
        query: sql`SELECT owner FROM order_shards WHERE shard = ${shard} FOR SHARE`.compile(trx),
        read: ({ rows }) => {
          if (rows[0]?.owner !== memberId) throw moving();
        },
      };
    },
    async setUrl(next) {
      url = next;
      await db.updateTable('cluster_members').set({ url }).where('id', '=', memberId).execute();
    },
    async start() {
      unsubscribe.push(coordinator.onLost(lost));
      unsubscribe.push(await coordinator.listen(CLUSTER_CHANNEL, () => void tick()));
      unsubscribe.push(
        await coordinator.listen(ORDER_BOOKS_CHANNEL, (payload) => {
          const ended = endedBooksOf(payload);
          // Without a payload (a reconnection: a NOTIFY may have been missed) every book this process owns goes.
          if (ended) deps.forgetBooks(ended.filter((m) => owned.has(shardOf(m.ledgerMarketId!))));
          else void forgetShards([...owned]).catch(() => undefined);
        }),
      );
      await tick();
      timer = setInterval(() => void tick(), deps.tickMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      for (const fn of unsubscribe.splice(0)) await fn();
      await depose('it stops');
      if (leader === false) await coordinator.unlock(LOCK_NAMESPACES.leader, 1);
      if (owned.size > 0) await release([...owned]).catch((err: unknown) => log.warn({ err }, 'cluster: could not hand the shards over; they move once this process is gone'));
      await db.deleteFrom('cluster_members').where('id', '=', memberId).execute().catch(() => undefined);
      if (lockKey !== null) await coordinator.unlock(LOCK_NAMESPACES.member, lockKey);
      joined = false;
    },
    status: () => ({ memberId, leader, shards: owned.size, members: members.size }),
  };
}

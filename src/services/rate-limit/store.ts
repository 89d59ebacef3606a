/**
 * Sliding-window rate limiting (60 s, exact log of charged requests). A hit is charged only when
 * allowed; `resetAtMs` is when the oldest charged request in the window ages out (spec Limits).
 * Memory store by default; the Redis store shares counters between processes.
 */
import { Redis, type RedisOptions } from 'ioredis';

export interface HitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms at which the oldest charged request leaves the window. */
  resetAtMs: number;
}

export interface RateLimitStore {
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<HitResult>;
  close(): Promise<void>;
}

export function createMemoryStore(): RateLimitStore {
  const logs = new Map<string, number[]>();
  return {
    async hit(key, limit, windowMs, nowMs) {
      let log = logs.get(key);
      if (!log) logs.set(key, (log = []));
      let drop = 0;
      while (drop < log.length && log[drop]! <= nowMs - windowMs) drop++;
      if (drop > 0) log.splice(0, drop);
      const allowed = log.length < limit;
      if (allowed) log.push(nowMs);
      if (log.length === 0) logs.delete(key);
      return { allowed, limit, remaining: Math.max(0, limit - log.length), resetAtMs: (log[0] ?? nowMs) + windowMs };
    },
    async close() {
      logs.clear();
    },
  };
}

// Trim, count, maybe add, and read the oldest score in one atomic step.
const SLIDING_WINDOW_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - win)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, win)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or tostring(now)}
`;

/** The script as an ioredis command: sent by its hash (EVALSHA), and whole only when Redis answers NOSCRIPT (it ran nothing then). */
const SLIDING_WINDOW = 'svcSlidingWindow';
type WithSlidingWindow = Redis & { [SLIDING_WINDOW](key: string, nowMs: number, windowMs: number, limit: number, member: string): Promise<[number, number, string]> };

/**
 * The service's Redis connection for its rate limits (docs/operations.md "Rate limits in Redis"). Auto-pipelining:
 * ioredis holds the commands of a turn of the event loop and writes them together once the turn's I/O is handled
 * (setImmediate), so the hits of the requests that arrived together leave in one write and come back in one read,
 * instead of a write, a wake-up of Redis and a read each.
 */
export const REDIS_OPTIONS = { lazyConnect: false, maxRetriesPerRequest: 2, enableAutoPipelining: true } as const satisfies RedisOptions;

/** The Redis store on a connection of its own to `url`, made with REDIS_OPTIONS. */
export function connectRedisStore(url: string, namespace?: string): RateLimitStore {
  return createRedisStore(new Redis(url, REDIS_OPTIONS), namespace);
}

export function createRedisStore(redis: Redis, namespace = 'svc:rl:'): RateLimitStore {
  redis.defineCommand(SLIDING_WINDOW, { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  const scripted = redis as WithSlidingWindow;
  let seq = 0;
  return {
    async hit(key, limit, windowMs, nowMs) {
      // The member must be unique even for two hits in the same millisecond.
      const member = `${nowMs}:${process.pid}:${seq++}:${Math.random().toString(36).slice(2, 8)}`;
      const [allowed, count, oldest] = await scripted[SLIDING_WINDOW](namespace + key, nowMs, windowMs, limit, member);
      return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetAtMs: Number(oldest) + windowMs };
    },
    async close() {
      await redis.quit();
    },
  };
}

// Both rate-limit stores implement the same exact sliding window; the Redis one is tested against
// the local Redis server (REDIS_URL or 127.0.0.1:6379).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedisStore, createMemoryStore, createRedisStore, REDIS_OPTIONS, type RateLimitStore } from '../../src/services/rate-limit/store.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = () => `svc:test:${randomBytes(4).toString('hex')}:`;
const stores: [string, () => RateLimitStore][] = [
  ['memory', () => createMemoryStore()],
  ['redis', () => connectRedisStore(redisUrl, namespace())],
];
const opened: RateLimitStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

describe.each(stores)('%s rate-limit store', (_name, make) => {
  const store = make();
  opened.push(store);

  it('allows up to the limit in a window and reports the oldest request as reset', async () => {
    const t0 = 1_800_000_000_000;
    const r1 = await store.hit('k1', 3, 60_000, t0);
    expect(r1).toEqual({ allowed: true, limit: 3, remaining: 2, resetAtMs: t0 + 60_000 });
    await store.hit('k1', 3, 60_000, t0 + 1000);
    const r3 = await store.hit('k1', 3, 60_000, t0 + 2000);
    expect(r3.remaining).toBe(0);
    expect(r3.allowed).toBe(true);
    const r4 = await store.hit('k1', 3, 60_000, t0 + 3000);
    expect(r4).toEqual({ allowed: false, limit: 3, remaining: 0, resetAtMs: t0 + 60_000 });
  });

  it('slides: a request leaves the window exactly 60 s after it was charged; refused hits are not charged', async () => {
    const t0 = 1_800_000_100_000;
    await store.hit('k2', 2, 60_000, t0);
    await store.hit('k2', 2, 60_000, t0 + 30_000);
    expect((await store.hit('k2', 2, 60_000, t0 + 59_999)).allowed).toBe(false);
    const after = await store.hit('k2', 2, 60_000, t0 + 60_000);
    expect(after.allowed).toBe(true);
    expect(after.resetAtMs).toBe(t0 + 30_000 + 60_000);
  });

  it('keeps keys apart', async () => {
    const t0 = 1_800_000_200_000;
    await store.hit('k3', 1, 60_000, t0);
    expect((await store.hit('k3', 1, 60_000, t0)).allowed).toBe(false);
    expect((await store.hit('k4', 1, 60_000, t0)).allowed).toBe(true);
  });

  it('counts two hits in the same millisecond separately', async () => {
    const t0 = 1_800_000_300_000;
    const [a, b] = await Promise.all([store.hit('k5', 5, 60_000, t0), store.hit('k5', 5, 60_000, t0)]);
    expect([a.remaining, b.remaining].sort()).toEqual([3, 4]);
  });
});

describe('the Redis store on the wire', () => {
  /** A connection as the service makes it, and the writes its socket takes. */
  async function counted(): Promise<{ redis: Redis; store: RateLimitStore; writes: () => number }> {
    const redis = new Redis(redisUrl, REDIS_OPTIONS);
    const store = createRedisStore(redis, namespace());
    opened.push(store);
    await redis.ping();
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write.bind(stream);
    let writes = 0;
    stream.write = (...args: unknown[]) => {
      writes++;
      return write(...args);
    };
    return { redis, store, writes: () => writes };
  }

  it('sends the hits of one turn of the event loop in one write, each charged', async () => {
    const { store, writes } = await counted();
    const t0 = 1_800_000_400_000;
    const before = writes();
    // Hits started by separate callbacks of one turn, as requests arriving together start theirs.
    const hits = await new Promise<Promise<Awaited<ReturnType<RateLimitStore['hit']>>>[]>((resolve) => {
      const started: Promise<Awaited<ReturnType<RateLimitStore['hit']>>>[] = [];
      for (let i = 0; i < 8; i++) setImmediate(() => started.push(store.hit('burst', 5, 60_000, t0)));
      setImmediate(() => resolve(started));
    });
    const results = await Promise.all(hits);
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect(results.map((r) => r.remaining).sort()).toEqual([0, 0, 0, 0, 1, 2, 3, 4]);
    expect(writes() - before).toBe(1);
  });

  it('runs its script by hash, and once more in full when Redis has forgotten it, charging the hit once', async () => {
    const { redis, store } = await counted();
    const t0 = 1_800_000_500_000;
    await store.hit('flushed', 3, 60_000, t0);
    await redis.script('FLUSH');
    const after = await store.hit('flushed', 3, 60_000, t0 + 1);
    expect(after).toEqual({ allowed: true, limit: 3, remaining: 1, resetAtMs: t0 + 60_000 });
    expect((await store.hit('flushed', 3, 60_000, t0 + 2)).remaining).toBe(0);
  });
});

// Both rate-limit stores implement the same exact sliding window; the Redis one is tested against
// the local Redis server (REDIS_URL or 127.0.0.1:6379).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore, createRedisStore, type RateLimitStore } from '../../src/services/rate-limit/store.ts';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const stores: [string, () => RateLimitStore][] = [
  ['memory', () => createMemoryStore()],
  ['redis', () => createRedisStore(new Redis(redisUrl, { maxRetriesPerRequest: 1 }), `svc:test:${randomBytes(4).toString('hex')}:`)],
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

// The order bench's disk flush probe (bench/disk-sync.ts): its summary, and a real thread timing real flushes.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diskSyncOf, SLOW_SYNC_MS, watchDiskSync } from '../../bench/disk-sync.ts';

describe('diskSyncOf', () => {
  it('answers the count, nearest-rank p50 and p99, the longest and the slow ones; null without any', () => {
    const times = [0.2, 0.3, 0.25, SLOW_SYNC_MS, 0.4, 60, 0.3, 0.2, 0.35, 0.3];
    expect(diskSyncOf(times)).toEqual({ count: 10, p50Ms: 0.3, p99Ms: 60, maxMs: 60, slow: 2 });
    expect(diskSyncOf([])).toBeNull();
  });
});

describe('watchDiskSync', () => {
  it('times flushes on a thread of its own until stopped, then removes its file', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'svc-disk-sync-test-'));
    try {
      let seen = 0;
      let enough!: () => void;
      const three = new Promise<void>((resolve) => (enough = resolve));
      const watch = watchDiskSync({ everyMs: 1, dir: parent, onSample: () => ++seen === 3 && enough() });
      await three;
      const result = await watch.stop();
      expect(result!.count).toBeGreaterThanOrEqual(3);
      expect(result!.p50Ms).toBeGreaterThan(0);
      expect(result!.maxMs).toBeGreaterThanOrEqual(result!.p99Ms);
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

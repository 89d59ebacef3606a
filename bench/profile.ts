/**
 * A CPU profile of this process while a scenario runs (node:inspector's sampling profiler), written as a
 * `.cpuprofile` (Chrome DevTools, speedscope, or `node --import ./bench/compile.mjs bench/profile-summary.ts <file>` for a text summary).
 * With BENCH_HEAP_PROFILE=1 it also samples allocations (every 16 KB, objects the garbage collector took included) into
 * a `.heapprofile` beside it, for Chrome DevTools' memory panel: what a scenario allocates, by function.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export interface RunningProfile {
  /** Stops the profiler and writes the profile into `dir` under a file name made from `name`; answers its path. */
  stop(dir: string, name: string): Promise<string>;
}

/** Starts sampling every 200 µs (the default 1 ms misses most of a batch's statements). */
export async function startProfile(): Promise<RunningProfile> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const heapMode = process.env.BENCH_HEAP_PROFILE;
  const heap = heapMode === '1' || heapMode === 'survivors';
  // 'survivors': only objects that outlived a young-generation collection (promoted, whether or not a full collection
  // took them later): what costs the old generation's collections, by where it was allocated.
  if (heap) await session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: heapMode === '1' });
  return {
    async stop(dir, name) {
      const { profile } = await session.post('Profiler.stop');
      const sampled = heap ? (await session.post('HeapProfiler.stopSampling')).profile : null;
      session.disconnect();
      await mkdir(dir, { recursive: true });
      const base = join(dir, name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, ''));
      if (sampled) await writeFile(`${base}.heapprofile`, JSON.stringify(sampled));
      await writeFile(`${base}.cpuprofile`, JSON.stringify(profile));
      return `${base}.cpuprofile`;
    },
  };
}

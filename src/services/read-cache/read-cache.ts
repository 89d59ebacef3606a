/**
 * The read cache of public list pages (docs/markets.md "Listing cache"): a page rendered once is answered from memory
 * while nothing it was read from changed, for at most `ttlMs` (no more than the published read-after-write window).
 * `invalidate()` forgets every page: the runtime calls it when this process commits a write to the markets or their
 * trades (write-watch, before the writer's await resolves) and when another process's commit NOTIFYs. A page whose
 * read overlapped an invalidation is answered but not kept. Concurrent misses of one page share one read.
 */
export interface ReadCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  invalidate(): void;
}

/** Pages kept at most; past it the oldest goes. */
const MAX_PAGES = 1_000;

export function createReadCache(opts: { ttlMs: number; now?: () => number }): ReadCache {
  const now = opts.now ?? (() => performance.now());
  const pages = new Map<string, { value: Promise<unknown>; until: number }>();
  let generation = 0;
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (opts.ttlMs <= 0) return load();
      const t = now();
      const hit = pages.get(key);
      if (hit && hit.until > t) return hit.value as Promise<T>;
      const started = generation;
      const value = load();
      if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value!);
      const entry = { value: value as Promise<unknown>, until: t + opts.ttlMs };
      pages.set(key, entry);
      // A failed read is not kept; nor is one an invalidation overlapped (it may hold rows from before the write).
      value.then(
        () => {
          if (generation !== started && pages.get(key) === entry) pages.delete(key);
        },
        () => {
          if (pages.get(key) === entry) pages.delete(key);
        },
      );
      return value;
    },
    invalidate() {
      generation++;
      pages.clear();
    },
  };
}

// What every bench shares: whole-number knobs from the environment, and a shutdown scope that runs its cleanups
// (last registered first) at the end or on Ctrl-C.

/** A whole-number environment knob in min..max, or `fallback` when unset; anything else throws. */
export function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^[0-9]+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`bench: ${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
  }
  return Number(raw);
}

/** Runs `body` with a cleanup list; the cleanups run after it (or on SIGINT, then the process exits 130). */
export async function withCleanups<T>(log: (line: string) => void, body: (cleanups: (() => Promise<void>)[]) => Promise<T>): Promise<T> {
  const cleanups: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => log(`bench: shutdown step failed: ${(err as Error).message}`));
    cleanups.length = 0;
  };
  const onSigint = () => {
    log('bench: interrupted, shutting down');
    void closeAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  cleanups.push(async () => void process.removeListener('SIGINT', onSigint));
  try {
    return await body(cleanups);
  } finally {
    await closeAll();
  }
}

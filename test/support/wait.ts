// Tests wait for a condition, never for a length of time: a sleep is either too short on a loaded machine
// (a flake) or too long on an idle one (a slow suite). See docs/testing.md, "Waiting, not sleeping".

export interface WaitOptions {
  /** What is awaited, worded to follow "waiting for" in the error at the deadline. */
  what: string;
  /** Deadline in ms; default 10 000. Size it for a loaded 2-core machine, not for an idle one. */
  timeoutMs?: number;
  /** Pause between polls in ms; default 25. */
  intervalMs?: number;
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/**
 * Polls `condition` until it returns a truthy value, and returns that value. A throw counts as "not yet";
 * the last one is kept as the cause of the error thrown at the deadline, which names `what` was awaited.
 * The condition runs once more after the deadline, so a slow poll cannot fail a condition that has become true.
 * Each poll is awaited before the next: keep it short (a probe that can hang needs its own timeout).
 */
export async function waitFor<T>(condition: () => T | Promise<T>, { what, timeoutMs = 10_000, intervalMs = 25 }: WaitOptions): Promise<NonNullable<T>> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    const expired = Date.now() - started >= timeoutMs;
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (expired) {
      const detail = lastError instanceof Error ? ` (last poll threw: ${lastError.message})` : '';
      throw new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`, lastError === undefined ? undefined : { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

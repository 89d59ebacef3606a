/**
 * The turns on the embedded database's one connection while a scenario runs (src/db/pglite-dialect.ts publishes each on
 * PGLITE_HOLDS_CHANNEL): the long ones, by who took the connection. A placement waits for whatever holds it when its
 * batch is due, so these are what its p99 is made of.
 */
import diagnostics from 'node:diagnostics_channel';
import { PGLITE_HOLDS_CHANNEL, type PGliteHold } from '../src/db/pglite-dialect.ts';

/** Turns shorter than this are left out: a batch of orders holds the connection ~5-15 ms. */
export const LONG_HOLD_MS = 8;

interface Origin {
  count: number;
  totalMs: number;
  maxMs: number;
}

/** Where a turn was asked for: the first frame of ours outside src/db (the function, its file and line). */
export function originOf(stack: string): string {
  for (const line of stack.split('\n').slice(1)) {
    const frame = /^\s*at (?:async )?(?:(.*?) \()?(?:file:\/\/)?[^()]*\/src\/((?!db\/)[^():]+):(\d+):\d+\)?$/.exec(line);
    if (frame) return `${frame[1] ?? '<anonymous>'} (${frame[2]}:${frame[3]})`;
  }
  return '(outside src)';
}

/** Starts listening; `stop()` ends it and answers one line per origin of a turn of LONG_HOLD_MS or more, longest total first. */
export function watchHolds(): { stop(): string[] } {
  const origins = new Map<string, Origin>();
  const listen = (message: unknown) => {
    const { stack, heldMs, priority } = message as PGliteHold;
    if (heldMs < LONG_HOLD_MS) return;
    const key = `${originOf(stack)}${priority === 'background' ? ' [background]' : ''}`;
    const o = origins.get(key) ?? { count: 0, totalMs: 0, maxMs: 0 };
    origins.set(key, { count: o.count + 1, totalMs: o.totalMs + heldMs, maxMs: Math.max(o.maxMs, heldMs) });
  };
  diagnostics.subscribe(PGLITE_HOLDS_CHANNEL, listen);
  return {
    stop() {
      diagnostics.unsubscribe(PGLITE_HOLDS_CHANNEL, listen);
      return [...origins]
        .sort(([, a], [, b]) => b.totalMs - a.totalMs)
        .map(([key, o]) => `${o.count}× ${key}: ${o.totalMs.toFixed(0)} ms in all, mean ${(o.totalMs / o.count).toFixed(1)}, max ${o.maxMs.toFixed(1)}`);
    },
  };
}

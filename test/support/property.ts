// Parameters for fc.assert. Each property states its run budget through replayable(), which adds FC_PATH: set
// with FC_SEED, it replays the one counterexample a failure reported instead of the whole run.
// See docs/testing.md, "Property tests: seeds and replay"; the seed itself is set in setup-fast-check.ts.
import type fc from 'fast-check';

/** `params` (numRuns sized so the property stays well inside its test timeout), plus the FC_PATH replay. */
export function replayable<Ts>(params: fc.Parameters<Ts>): fc.Parameters<Ts> {
  const path = process.env.FC_PATH?.trim();
  // endOnFailure with a path replays the reported counterexample once, without shrinking it again.
  return path ? { ...params, path, endOnFailure: true } : params;
}

// Registered in vitest.config.ts (setupFiles). Every property test runs from one fixed seed, so a run is the same
// on every machine, and a failure prints its seed, its counterexample path and the command that replays it.
// FC_SEED overrides the seed (docs/testing.md, "Property tests: seeds and replay").
import path from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';

const DEFAULT_SEED = 20261124;

function seedFromEnv(): number {
  const raw = process.env.FC_SEED;
  if (raw === undefined || raw.trim() === '') return DEFAULT_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed;
}

// Verbose: the report lists every failing value met while shrinking, not only the smallest.
fc.configureGlobal({ seed: seedFromEnv(), verbose: fc.VerbosityLevel.Verbose });

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The command that reruns just this property on the reported seed and, with FC_PATH, straight at its counterexample. */
function replayCommand(details: fc.RunDetails<unknown>): string {
  const { testPath, currentTestName } = expect.getState();
  const file = testPath ? path.relative(process.cwd(), testPath) : '<test file>';
  // vitest -t matches the describe and test names joined by spaces; currentTestName joins them with ' > '.
  const name = currentTestName ? ` -t ${shellQuote(escapeRegExp(currentTestName.split(' > ').join(' ')))}` : '';
  const pathVar = details.counterexamplePath ? ` FC_PATH=${details.counterexamplePath}` : '';
  return `FC_SEED=${details.seed}${pathVar} npx vitest run ${file}${name}`;
}

// fast-check's own report (seed, path, counterexample, failures met while shrinking) plus how to replay it. Only
// fc.assert is used in this repository; a throw here would also turn a failed fc.check into an exception.
fc.installGlobalPlugin(() => ({
  onAllRunsComplete(details) {
    if (!details.failed) return;
    const report = fc.defaultReportMessage(details) ?? 'property failed';
    throw new Error(`${report}\n\nReplay (docs/testing.md): ${replayCommand(details)}`, { cause: details.errorInstance });
  },
}));

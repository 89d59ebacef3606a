// The service's Node.js flags (bin/node-flags.mjs) are given by package.json's start, svc and bench scripts (the bench
// runs the service in its own process, so it measures what `npm start` runs). V8 reads them only as it starts, so
// `svc start` run any other way says which are missing, and how to give them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingServiceFlags, SERVICE_NODE_FLAGS, startNotice } from '../../bin/node-flags.mjs';
import { REPO_ROOT } from './svc-process.ts';

const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
/** The flags of a `node …` command line but its loader (`--import <module>`). */
const nodeFlags = (command: string): string[] => {
  const words = command.split(/\s+/);
  expect(words[0]).toBe('node');
  return words.slice(1).filter((w) => w.startsWith('--') && w !== '--import');
};
/** `svc start` with a PORT it refuses at once: what it wrote to stderr before it stopped. */
const refusedStart = (flags: readonly string[], nodeOptions: string) =>
  spawnSync(process.execPath, [...flags, path.join(REPO_ROOT, 'bin', 'svc.mjs'), 'start'], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, PORT: 'abc', NODE_OPTIONS: nodeOptions } });

describe("the service's Node.js flags", () => {
  it('are a young generation of 64 MB a semi-space', () => {
    expect(SERVICE_NODE_FLAGS).toEqual(['--max-semi-space-size=64']);
  });

  it.each(['start', 'svc', 'bench'])('are given by `npm run %s`', (name) => {
    expect(nodeFlags(scripts[name]!)).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('are missing from a process started without them, unless NODE_OPTIONS gives them', () => {
    expect(missingServiceFlags([], undefined)).toEqual([...SERVICE_NODE_FLAGS]);
    expect(missingServiceFlags(['--import', './bench/compile.mjs'], '--enable-source-maps')).toEqual([...SERVICE_NODE_FLAGS]);
    expect(missingServiceFlags([], ` --enable-source-maps  ${SERVICE_NODE_FLAGS.join(' ')} `)).toEqual([]);
    expect(missingServiceFlags(['--max-semi-space-size=16'], undefined)).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('are asked for by `svc start` alone, and only when missing', () => {
    expect(startNotice(['start'], [], undefined)).toMatch(/^svc: node runs without --max-semi-space-size=64 .*NODE_OPTIONS=--max-semi-space-size=64/);
    expect(startNotice(['start', '--workers', '2'], [], undefined)).not.toBeNull();
    expect(startNotice(['start'], [...SERVICE_NODE_FLAGS], undefined)).toBeNull();
    expect(startNotice(['start'], [], SERVICE_NODE_FLAGS.join(' '))).toBeNull();
    expect(startNotice(['agents', 'create'], [], undefined)).toBeNull();
    expect(startNotice([], [], undefined)).toBeNull();
  });

  it('are asked for on stderr by a `svc start` run without them, before anything else', () => {
    const without = refusedStart([], '');
    expect(without.status).toBe(1);
    expect(without.stderr.split('\n')[0]).toBe(startNotice(['start'], [], undefined));
    expect(without.stderr).toMatch(/PORT must be a whole number/);
    for (const given of [refusedStart(SERVICE_NODE_FLAGS, ''), refusedStart([], SERVICE_NODE_FLAGS.join(' '))]) {
      expect(given.status).toBe(1);
      expect(given.stderr).not.toMatch(/runs without/);
      expect(given.stderr).toMatch(/PORT must be a whole number/);
    }
  });
});

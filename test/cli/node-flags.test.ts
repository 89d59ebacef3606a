// The service's Node.js flags (bin/node-flags.mjs) are given by every way it is started: the `svc` command's first line,
// and package.json's start, svc and bench scripts (the bench runs the service in its own process, so it measures what
// `npm start` runs). V8 reads them only as it starts, so a place that forgets them runs the service with another heap.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingServiceFlags, SERVICE_NODE_FLAGS } from '../../bin/node-flags.mjs';
import { REPO_ROOT } from './svc-process.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const firstLine = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n')[0]!;
const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
/** The flags of a `node …` command line but its loader (`--import <module>`). */
const nodeFlags = (command: string): string[] => {
  const words = command.split(/\s+/);
  expect(words[0]).toBe('node');
  return words.slice(1).filter((w) => w.startsWith('--') && w !== '--import');
};

describe('the service\'s Node.js flags', () => {
  it('are a young generation of 64 MB a semi-space', () => {
    expect(SERVICE_NODE_FLAGS).toEqual(['--max-semi-space-size=64']);
  });

  it('are on the svc command\'s first line, read by env -S', () => {
    expect(firstLine('bin/svc.mjs')).toBe(`#!/usr/bin/env -S node ${SERVICE_NODE_FLAGS.join(' ')}`);
  });

  it.each(['start', 'svc', 'bench'])('are given by `npm run %s`', (name) => {
    expect(nodeFlags(scripts[name]!)).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('reach the process when a script with the svc command\'s first line is run as a program', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-node-flags-'));
    dirs.push(dir);
    const file = path.join(dir, 'probe.mjs');
    writeFileSync(file, `${firstLine('bin/svc.mjs')}\nprocess.stdout.write(JSON.stringify(process.execArgv));\n`);
    chmodSync(file, 0o755);
    const execArgv = JSON.parse(execFileSync(file, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as string[];
    expect(execArgv).toEqual([...SERVICE_NODE_FLAGS]);
    expect(missingServiceFlags(execArgv, undefined)).toEqual([]);
  });

  it('are missing from a process started without them, unless NODE_OPTIONS gives them', () => {
    expect(missingServiceFlags([], undefined)).toEqual([...SERVICE_NODE_FLAGS]);
    expect(missingServiceFlags(['--import', './bench/compile.mjs'], '--enable-source-maps')).toEqual([...SERVICE_NODE_FLAGS]);
    expect(missingServiceFlags([], ` --enable-source-maps  ${SERVICE_NODE_FLAGS.join(' ')} `)).toEqual([]);
    expect(missingServiceFlags(['--max-semi-space-size=16'], undefined)).toEqual([...SERVICE_NODE_FLAGS]);
  });
});

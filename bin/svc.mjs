#!/usr/bin/env node
// The `svc` command. Runs src/cli/main.ts from a bundle of the sources (bin/bundle.mjs), built on the first run after
// any change under src/; through tsx's loader instead with SVC_FROM_SOURCE=1, or when no bundle can be built.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundledEntry } from './bundle.mjs';
import { startNotice } from './node-flags.mjs';

const root = path.resolve(import.meta.dirname, '..');
const notice = startNotice(process.argv.slice(2), process.execArgv, process.env.NODE_OPTIONS);
if (notice) process.stderr.write(`${notice}\n`);
const entry = process.env.SVC_FROM_SOURCE === '1' ? null : await bundledEntry(root, (line) => process.stderr.write(`${line}\n`));
if (entry) {
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(entry).href);
} else {
  (await import('tsx/esm/api')).register();
  await import('../src/cli/main.ts');
}

// The module hooks of bench/compile.mjs: a .ts file of ours is compiled by esbuild on its own, with the bundle's options
// (bin/bundle.mjs COMPILE_OPTIONS) and tsconfig.json; everything else loads as Node loads it.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { COMPILE_OPTIONS } from '../bin/bundle.mjs';

const TSCONFIG = readFileSync(new URL('../tsconfig.json', import.meta.url), 'utf8');

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), { ...COMPILE_OPTIONS, loader: 'ts', sourcemap: 'inline', sourcefile: file, tsconfigRaw: TSCONFIG });
  return { format: 'module', source: code, shortCircuit: true };
}

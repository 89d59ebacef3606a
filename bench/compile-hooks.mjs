// The module hooks of bench/compile.mjs: a .ts file of ours is compiled by esbuild on its own, with tsconfig.json's
// module semantics (imports kept as written, class fields defined); everything else loads as Node loads it.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } };

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: file,
    tsconfigRaw: TSCONFIG,
  });
  return { format: 'module', source: code, shortCircuit: true };
}

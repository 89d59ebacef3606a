// The Solidity sources of contracts/ as solc names them, and the sourceHash recorded in artifacts/index.json, so a
// test can tell in milliseconds whether the committed artifacts were built from the sources in the tree.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keccak256, stringToHex, type Hex } from 'viem';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = join(ROOT, 'contracts');
const require = createRequire(import.meta.url);

export function listSolFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSolFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.sol')) out.push(full);
  }
  return out;
}

/** Source unit name as solc sees it: repo-relative with forward slashes, so artifacts don't depend on the checkout path. */
export function unitName(absPath: string): string {
  return relative(ROOT, absPath).split(sep).join('/');
}

/** The file a unit name reads: ours under the repository, imported ones (OpenZeppelin) from node_modules. */
export const resolveUnit = (name: string): string => (name.startsWith('contracts/') ? join(ROOT, name) : require.resolve(name));

/** Every unit name and its text: our sources and, following their imports, every file they import. */
export function sourceTree(): Map<string, string> {
  const sources = new Map<string, string>();
  const pending = listSolFiles(CONTRACTS_DIR).map(unitName);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (sources.has(name)) continue;
    const text = readFileSync(resolveUnit(name), 'utf8');
    sources.set(name, text);
    for (const [, path] of text.matchAll(/^\s*import\s+(?:[^"';]*\s+from\s+)?["']([^"']+)["'](?:\s+as\s+\w+)?\s*;/gm)) {
      pending.push(path!.startsWith('.') ? posix.normalize(posix.join(posix.dirname(name), path!)) : path!);
    }
  }
  return sources;
}

/** keccak256 over every unit's name and text in name order: a rename or a move changes it, not only an edit. */
export function sourceHash(sources: ReadonlyMap<string, string>): Hex {
  const names = [...sources.keys()].sort();
  return keccak256(stringToHex(names.map((n) => `${n}\0${sources.get(n)}\0`).join('')));
}

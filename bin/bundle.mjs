// The svc command's bundle (docs/architecture.md "No build step to run by hand"). bin/svc.mjs runs src/cli/main.ts from an esbuild
// bundle of src/ (ES modules split into chunks along the CLI's lazy imports, the packages left in node_modules) rather
// than through tsx's loader, which costs every start about a second and a half of CPU. The bundle is keyed by the
// content of the sources, so any change under src/ builds a new one on the next run (a fraction of a second), and
// processes that start together share one build.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Where bundles live under the installation's root. src/core/install-root.ts finds the root from a chunk in here. */
export const BUNDLE_CACHE = path.join('node_modules', '.cache', 'svc');
/** Raise when a change to how bundles are built must replace the existing ones. */
const BUILD_FORMAT = 1;
/** A bundle no run has used for this long is removed after the next build (a long-running process keeps its own). */
const UNUSED_FOR_MS = 24 * 60 * 60 * 1000;

/** The sources a bundle is built from: every .ts file under src/ except tests, as paths relative to `root`, sorted. */
export function sourceFiles(root) {
  return readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** A digest of everything a bundle depends on: the sources, tsconfig.json, esbuild's version and the build format. */
export function sourceKey(root, esbuildVersion) {
  const hash = createHash('sha256').update(`format ${BUILD_FORMAT}\0esbuild ${esbuildVersion}\0`);
  for (const file of [...sourceFiles(root), 'tsconfig.json']) {
    const full = path.join(root, file);
    hash.update(`${file}\0`).update(existsSync(full) ? readFileSync(full) : '').update('\0');
  }
  return hash.digest('hex').slice(0, 20);
}

/** The version of the esbuild this file imports. */
function esbuildVersion() {
  return createRequire(import.meta.url)('esbuild/package.json').version;
}

/**
 * The bundle's entry for the sources as they are now, built first if there is none; null (after saying why through
 * `warn`) when it cannot be built, for the caller to run the sources through tsx.
 */
export async function bundledEntry(root, warn) {
  let dir;
  try {
    dir = path.join(root, BUNDLE_CACHE, sourceKey(root, esbuildVersion()));
    const entry = path.join(dir, 'main.js');
    if (existsSync(entry)) {
      markUsed(dir);
      return entry;
    }
    await build(root, dir);
    removeUnused(path.dirname(dir), dir);
    return entry;
  } catch (error) {
    warn(`svc: running the sources through tsx: no bundle could be built in ${dir ?? path.join(root, BUNDLE_CACHE)} (${error instanceof Error ? error.message : String(error)})`);
    return null;
  }
}

/** Builds into a folder of its own and renames it into place, so a reader sees a whole bundle or none. */
async function build(root, dir) {
  const { build: esbuild } = await import('esbuild');
  const staging = `${dir}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await esbuild({
      absWorkingDir: root,
      entryPoints: { main: path.join(root, 'src', 'cli', 'main.ts') },
      outdir: staging,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      // Stack traces name src/ files and lines (bin/svc.mjs turns source maps on); the sources themselves stay in src/.
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
    });
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process that started at the same time put the same bundle in place first.
      if (!existsSync(path.join(dir, 'main.js'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function markUsed(dir) {
  const now = new Date();
  try {
    utimesSync(dir, now, now);
  } catch {
    // A read-only installation: its bundle is never removed as unused anyway.
  }
}

/** Removes the bundles (and abandoned builds) no run has used for a day, keeping `current`. */
function removeUnused(cache, current) {
  const cutoff = Date.now() - UNUSED_FOR_MS;
  for (const name of readdirSync(cache)) {
    const dir = path.join(cache, name);
    if (dir === current) continue;
    try {
      if (statSync(dir).mtimeMs < cutoff) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

// The svc command's bundle (docs/architecture.md "No build step to run by hand"). bin/svc.mjs runs src/cli/main.ts from an esbuild
// bundle of src/ (ES modules split into chunks along the CLI's lazy imports, the packages left in node_modules) rather
// than through tsx's loader, which costs every start about a second and a half of CPU. The bundle is keyed by the
// content of the sources, so any change under src/ builds a new one on the next run (a fraction of a second), and
// processes that start together share one build.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Where bundles live under the installation's root. src/core/install-root.ts finds the root from a chunk in here. */
export const BUNDLE_CACHE = path.join('node_modules', '.cache', 'svc');
/** How the sources are compiled, here and by the benches (bench/compile-hooks.mjs), which measure what svc runs. */
export const COMPILE_OPTIONS = { format: 'esm', platform: 'node', target: 'node20' };
/** Raise when a change to how bundles are built must replace the existing ones. */
const BUILD_FORMAT = 1;
/**
 * A bundle no run has started from for this long, and that no live process runs from, is removed after the next build.
 * Each run leaves its pid in the bundle's runs/ while it lives: a long-running `svc start` may still load a chunk of it
 * (a command sent to its operator channel).
 */
const UNUSED_FOR_MS = 24 * 60 * 60 * 1000;
const RUNS = 'runs';

/** The sources a bundle is built from: every file under src/ except tests, as paths relative to `root`, sorted. */
export function sourceFiles(root) {
  return readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
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
    if (!existsSync(entry)) {
      await build(root, dir);
      removeUnused(path.dirname(dir), dir);
    }
    markUsed(dir);
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
    const result = await esbuild({
      absWorkingDir: root,
      entryPoints: { main: path.join(root, 'src', 'cli', 'main.ts') },
      outdir: staging,
      bundle: true,
      splitting: true,
      ...COMPILE_OPTIONS,
      packages: 'external',
      // Stack traces name src/ files and lines (bin/svc.mjs turns source maps on); the sources themselves stay in src/.
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
      metafile: true,
    });
    // The key covers src/ only: a module from anywhere else would leave the bundle stale when it changes.
    const outside = Object.keys(result.metafile.inputs).filter((input) => !path.resolve(root, input).startsWith(path.join(root, 'src') + path.sep));
    if (outside.length > 0) throw new Error(`the sources import ${outside.join(', ')}, outside src/ (a package belongs in node_modules)`);
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

/** This process's entries in bundles' runs/, removed when it exits. */
const runs = new Set();

/** Marks the bundle used now, by this process while it lives. */
function markUsed(dir) {
  const now = new Date();
  const run = path.join(dir, RUNS, String(process.pid));
  try {
    mkdirSync(path.dirname(run), { recursive: true });
    writeFileSync(run, '');
    if (runs.size === 0) process.once('exit', () => runs.forEach((file) => rmSync(file, { force: true })));
    runs.add(run);
    utimesSync(dir, now, now);
  } catch {
    // A read-only installation: its bundle is never removed anyway.
  }
}

/** Whether a process with this pid is alive (a pid used again by another process counts: the bundle is kept longer). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Removes the bundles (and abandoned builds) no run has started from for a day and no live process runs from. */
function removeUnused(cache, current) {
  const cutoff = Date.now() - UNUSED_FOR_MS;
  for (const name of readdirSync(cache)) {
    const dir = path.join(cache, name);
    if (dir === current) continue;
    try {
      if (statSync(dir).mtimeMs >= cutoff) continue;
      const pids = existsSync(path.join(dir, RUNS)) ? readdirSync(path.join(dir, RUNS)) : [];
      if (pids.some((pid) => /^\d+$/.test(pid) && alive(Number(pid)))) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

// Where this installation's files are (package.json, artifacts/, web/dist/, node_modules/), found from the directory of
// the module that asks: a file under src/ when the sources run through tsx or vitest, or a chunk of the bundle that
// bin/svc.mjs builds under node_modules/.cache/svc/<key>/ (bin/bundle.mjs, docs/architecture.md "No build step to run by hand").
import path from 'node:path';

/** The bundle's folder under an installation's root; bin/bundle.mjs builds there (its BUNDLE_CACHE). */
export const BUNDLE_CACHE_SEGMENTS = ['node_modules', '.cache', 'svc'] as const;

/** The installation's root for a module in `moduleDir`: the folder holding src/, or the bundle cache's node_modules/. */
export function installRootOf(moduleDir: string): string {
  const parts = path.resolve(moduleDir).split(path.sep);
  for (let i = parts.length - BUNDLE_CACHE_SEGMENTS.length; i >= 0; i--) {
    if (BUNDLE_CACHE_SEGMENTS.every((segment, k) => parts[i + k] === segment)) return parts.slice(0, i).join(path.sep) || path.sep;
  }
  const src = parts.lastIndexOf('src');
  if (src < 0) throw new Error(`${moduleDir} is neither under src/ nor in the bundle cache (${BUNDLE_CACHE_SEGMENTS.join('/')})`);
  return parts.slice(0, src).join(path.sep) || path.sep;
}

/** This installation's root. */
export const INSTALL_ROOT = installRootOf(import.meta.dirname);

// bin/svc.mjs runs the sources from a bundle that bin/bundle.mjs builds, keyed by the sources' content
// (docs/architecture.md "No build step to run by hand"). Here on small source trees of their own, and on this checkout's.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_CACHE, bundledEntry, sourceFiles } from '../../bin/bundle.mjs';
import { BUNDLE_CACHE_SEGMENTS } from '../../src/core/install-root.ts';
import { REPO_ROOT } from './svc-process.ts';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** An installation with src/cli/main.ts (printing `greeting` through a module it imports lazily) and a tsconfig. */
function tree(greeting: string): string {
  const root = mkdtempSync(path.join(tmpdir(), 'svc-bundle-'));
  roots.push(root);
  mkdirSync(path.join(root, 'src', 'cli'), { recursive: true });
  writeFileSync(path.join(root, 'tsconfig.json'), '{}');
  writeFileSync(path.join(root, 'src', 'cli', 'main.ts'), "const { greet } = await import('./greet.ts');\nconsole.log(greet());\n");
  setGreeting(root, greeting);
  return root;
}
const setGreeting = (root: string, greeting: string) =>
  writeFileSync(path.join(root, 'src', 'cli', 'greet.ts'), `export const greet = (): string => ${JSON.stringify(greeting)};\n`);

const run = (entry: string) => execFileSync(process.execPath, [entry], { encoding: 'utf8' }).trim();
/** The folders in the bundle cache (none yet: empty). */
const bundles = (root: string) => (existsSync(path.join(root, BUNDLE_CACHE)) ? readdirSync(path.join(root, BUNDLE_CACHE)).sort() : []);

/** bundledEntry in a process of its own, which then exits. */
function entryInChild(root: string): Promise<string> {
  const script = `import { bundledEntry } from ${JSON.stringify(path.join(REPO_ROOT, 'bin', 'bundle.mjs'))};\nconsole.log(await bundledEntry(${JSON.stringify(root)}, (l) => console.log(l)));`;
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

/** The pid of a process that has exited. */
const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

async function entryOf(root: string): Promise<{ entry: string | null; warnings: string[] }> {
  const warnings: string[] = [];
  const entry = await bundledEntry(root, (line) => warnings.push(line));
  return { entry, warnings };
}

describe('the svc bundle', () => {
  it('is built once for the sources as they are, and again after any change under src/', async () => {
    const root = tree('hello');
    const first = await entryOf(root);
    expect(first.warnings).toEqual([]);
    expect(first.entry).toMatch(new RegExp(`${BUNDLE_CACHE.replaceAll('.', '\\.')}/[0-9a-f]{20}/main\\.js$`));
    expect(run(first.entry!)).toBe('hello');
    // the lazy import is a chunk of its own
    expect(readdirSync(path.dirname(first.entry!)).filter((f) => f.endsWith('.js')).length).toBeGreaterThan(1);

    const builtAt = statSync(first.entry!).mtimeMs;
    const again = await entryOf(root);
    expect(again.entry).toBe(first.entry);
    expect(statSync(again.entry!).mtimeMs).toBe(builtAt);

    setGreeting(root, 'hello again');
    const changed = await entryOf(root);
    expect(changed.entry).not.toBe(first.entry);
    expect(run(changed.entry!)).toBe('hello again');
    // the previous bundle was used just now: kept for processes that still run from it
    expect(bundles(root)).toHaveLength(2);
  });

  it('leaves tests out of the key, and tsconfig.json and any other file under src/ in', async () => {
    const root = tree('hello');
    const first = (await entryOf(root)).entry;
    writeFileSync(path.join(root, 'src', 'cli', 'greet.test.ts'), 'export {};\n');
    expect(sourceFiles(root)).toEqual([path.join('src', 'cli', 'greet.ts'), path.join('src', 'cli', 'main.ts')]);
    expect((await entryOf(root)).entry).toBe(first);
    writeFileSync(path.join(root, 'tsconfig.json'), '{ "compilerOptions": {} }');
    const second = (await entryOf(root)).entry;
    expect(second).not.toBe(first);
    writeFileSync(path.join(root, 'src', 'cli', 'words.json'), '["hello"]');
    expect((await entryOf(root)).entry).not.toBe(second);
  });

  it('removes bundles no run has started from for a day and no live process runs from, when it builds another', async () => {
    const root = tree('one');
    // a run that ended: nothing left in its runs/
    const ended = await entryInChild(root);
    expect(readdirSync(path.join(path.dirname(ended), 'runs'))).toEqual([]);
    setGreeting(root, 'two');
    // this process runs from it
    const running = (await entryOf(root)).entry!;
    expect(readdirSync(path.join(path.dirname(running), 'runs'))).toEqual([String(process.pid)]);
    setGreeting(root, 'three');
    // a run SIGKILLed: its pid left behind
    const killed = await entryInChild(root);
    writeFileSync(path.join(path.dirname(killed), 'runs', String(deadPid())), '');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    for (const entry of [ended, running, killed]) utimesSync(path.dirname(entry), twoDaysAgo, twoDaysAgo);
    setGreeting(root, 'four');
    const latest = (await entryOf(root)).entry!;
    expect(bundles(root)).toEqual([running, latest].map((entry) => path.basename(path.dirname(entry))).sort());
  });

  it('refuses sources that import a module from outside src/, which its key does not cover', async () => {
    const root = tree('hello');
    writeFileSync(path.join(root, 'shared.ts'), 'export const greeting = "from outside";\n');
    writeFileSync(path.join(root, 'src', 'cli', 'greet.ts'), "import { greeting } from '../../shared.ts';\nexport const greet = (): string => greeting;\n");
    const { entry, warnings } = await entryOf(root);
    expect(entry).toBeNull();
    expect(warnings[0]).toMatch(/the sources import shared\.ts, outside src\//);
    expect(bundles(root)).toEqual([]);
  });

  it('says why and answers null when the sources do not build, for bin/svc.mjs to run them through tsx', async () => {
    const root = tree('hello');
    writeFileSync(path.join(root, 'src', 'cli', 'greet.ts'), 'export const greet = (: string => ;\n');
    const { entry, warnings } = await entryOf(root);
    expect(entry).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^svc: running the sources through tsx: no bundle could be built in .*greet\.ts/s);
    expect(bundles(root)).toEqual([]);
  });

  it('is built by one of several processes that start at once, and used by all of them', async () => {
    const root = tree('together');
    const starts = Array.from({ length: 4 }, () => entryInChild(root));
    const entries = await Promise.all(starts);
    expect(new Set(entries).size).toBe(1);
    expect(run(entries[0]!)).toBe('together');
    // one bundle, no build folder left behind
    expect(bundles(root)).toEqual([path.basename(path.dirname(entries[0]!))]);
  });

  it('is where src/core/install-root.ts looks for it, and bin/svc.mjs runs this checkout from it', async () => {
    // the process suites run svc start from it: artifacts/, web/dist/ and anvil found from the cache folder
    expect(path.join(...BUNDLE_CACHE_SEGMENTS)).toBe(BUNDLE_CACHE);
    const { entry, warnings } = await entryOf(REPO_ROOT);
    expect(warnings).toEqual([]);
    const child = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'svc.mjs'), 'help'], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    expect(child.stderr).toBe('');
    expect(child.stdout).toMatch(/^usage:\n {2}svc start /);
    expect(statSync(path.dirname(entry!)).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  });
});

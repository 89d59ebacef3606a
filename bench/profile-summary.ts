/**
 * A text summary of a `.cpuprofile` (bench/profile.ts): the share of the samples spent in each place, by area (a
 * package of node_modules, a folder of ours, node's own, the garbage collector, idle) and by function, self time and
 * time including callees. A `.heapprofile` (BENCH_HEAP_PROFILE) is summarized the same way by bytes allocated.
 * `node --import ./bench/compile.mjs bench/profile-summary.ts <file> [top N, default 40] [filter: a substring of the URL]`.
 */
import { readFileSync } from 'node:fs';
import { runIfMain } from './scope.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package, a folder of ours, node's internals or one of V8's pseudo-frames. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node';
  const ours = /\/(src|bench)\/(.*)\/[^/]+$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

/** A sampled heap profile's tree (HeapProfiler.stopSampling): bytes allocated where each node's function allocated them. */
interface HeapNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** The heap profile as a CPU profile whose samples weigh bytes instead of microseconds, for summarize(). */
export function fromHeapProfile(head: HeapNode): CpuProfile {
  const out: CpuProfile = { nodes: [], samples: [], timeDeltas: [] };
  const visit = (n: HeapNode) => {
    out.nodes.push({ id: n.id, callFrame: n.callFrame, children: n.children.map((c) => c.id) });
    if (n.selfSize > 0) {
      out.samples.push(n.id);
      out.timeDeltas.push(n.selfSize);
    }
    n.children.forEach(visit);
  };
  visit(head);
  return out;
}

export function summarize(profile: CpuProfile, top: number, filter = '', unit: 'time' | 'bytes' = 'time'): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);
  const label = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url.replace(/^.*\/(src|bench|node_modules)\//, '$1/');
    return `${functionName || '(anonymous)'} ${file}${url ? `:${lineNumber + 1}` : ''}`;
  };
  const areas = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const area = areaOf(n.callFrame.url, n.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + t);
    selfByFn.set(label(n), (selfByFn.get(label(n)) ?? 0) + t);
    // Each function on the stack once, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const l = label(byId.get(at)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + t);
    }
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
  const rows = (m: Map<string, number>, n: number, keep: (k: string) => boolean = () => true) =>
    [...m]
      .filter(([k]) => keep(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `${pct(t)}  ${k}`);
  return [
    unit === 'time' ? `${(total / 1e6).toFixed(2)} s sampled, ${pct(total - idle).trim()} busy` : `${(total / 1e6).toFixed(1)} MB allocated in the samples`,
    '',
    `by area (${unit === 'time' ? 'self time' : 'allocated by itself'}):`,
    ...rows(areas, top),
    '',
    `by function (${unit === 'time' ? 'self time' : 'allocated by itself'}):`,
    ...rows(selfByFn, top, (k) => k.includes(filter)),
    '',
    `by function (${unit === 'time' ? 'with callees' : 'with what its callees allocated'})${filter ? `, URLs with "${filter}"` : ''}:`,
    ...rows(inclusive, top, (k) => k.includes(filter) && !k.startsWith('(')),
  ].join('\n');
}

runIfMain(import.meta.url, async (log) => {
  const [file, top, filter] = process.argv.slice(2);
  if (!file) throw new Error('usage: node --import ./bench/compile.mjs bench/profile-summary.ts <file.cpuprofile|file.heapprofile> [top N] [URL filter]');
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | { head: HeapNode };
  const [profile, unit] = 'head' in parsed ? [fromHeapProfile(parsed.head), 'bytes' as const] : [parsed, 'time' as const];
  log(summarize(profile, Number(top ?? 40), filter ?? '', unit));
});

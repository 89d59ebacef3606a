/**
 * The order bench's report (bench/orderbook-http.ts): its scenarios' results, issue 22's goal read against them, and
 * the aligned text table `npm run bench` prints.
 */
import type { LoadResult } from './load.ts';

export interface PlaceScenario extends LoadResult {
  name: string;
  /** What the database holds for the scenario's markets afterwards, warm-up included. */
  orders: number;
  fills: Record<string, number>;
  orderStatuses: Record<string, number>;
  /** The seeded stream was shorter than what was sent and started over. */
  wrapped: boolean;
  /**
   * The service process's CPU time (every thread of it, background work included) per order placed, warm-up included:
   * a steadier measure than orders/s on a machine whose speed moves from run to run.
   */
  cpuUsPerOrder?: number;
  /** The database server's CPU time per order placed (a local PostgreSQL only: server-cpu.ts), warm-up included. */
  dbCpuUsPerOrder?: number;
  /** Bytes of write-ahead log per order placed (PostgreSQL only: server-cpu.ts watchWal), warm-up included. */
  walBytesPerOrder?: number;
  /**
   * The load client's CPU time per order placed (per request sent, for the anchor), warm-up included: what the client
   * takes of the machine it shares with the service and the database, which a deployment's clients would not.
   */
  clientCpuUsPerOrder: number;
  /**
   * Placed in the service's own process without the HTTP edge (direct-placements.ts): a diagnostic of where the tail
   * comes from, not a reading of the goal, which is asked over HTTP.
   */
  direct?: true;
}

export interface PlaceBenchReport {
  setup: string[];
  anchor: PlaceScenario;
  scenarios: PlaceScenario[];
  notes: string[];
}

/**
 * Issue 22's goal for the order path on this database, per scenario, read both ways: in orders/s as written, and as the
 * ratio to the anchor of the same run that the issue measured it against (the anchor moves with the machine: 12,000 to
 * 37,000 requests/s between sessions 26 and 27, far more than the service did).
 */
export const PLACE_GOALS = {
  postgres: { ordersPerSecond: 2_000, p99Ms: 50, anchorThen: 21_771 },
  pglite: { ordersPerSecond: 1_000, p99Ms: 50, anchorThen: 20_902 },
} as const;

export function goalLines(kind: 'postgres' | 'pglite', anchor: LoadResult, scenarios: readonly PlaceScenario[]): string[] {
  const goal = PLACE_GOALS[kind];
  const ratio = goal.ordersPerSecond / goal.anchorThen;
  const met = (yes: boolean) => (yes ? 'met' : 'not met');
  return scenarios.filter((s) => !s.direct).map((s) => {
    const head = `"${s.name}": issue 22's goal on ${kind} (${goal.ordersPerSecond} orders/s, p99 < ${goal.p99Ms} ms):`;
    const p99 = s.p99Ms < goal.p99Ms;
    // An open loop sets its rate: the question is whether every order due was answered in time.
    if (s.unanswered !== undefined) return `${head} ${met(s.unanswered === 0 && s.rps >= 0.99 * goal.ordersPerSecond && p99)} at the fixed rate (${s.ok} of the orders due answered, ${s.unanswered} not, ${Math.round(s.rps)} orders/s, p99 ${s.p99Ms.toFixed(1)} ms)`;
    return `${head} ${met(s.rps >= goal.ordersPerSecond && p99)} as written; ${met(s.rps / anchor.rps >= ratio && p99)} as ${ratio.toFixed(3)}× the anchor (${Math.round(ratio * anchor.rps)} orders/s in this run)`;
  });
}

const fmt = (n: number, digits: number): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');

/** scenario rps / anchor rps: two decimals, or two significant digits below 0.1 (0.0079×, not 0.01×). */
const ratio = (rps: number, anchorRps: number): string => {
  const x = anchorRps > 0 ? rps / anchorRps : 0;
  return x >= 0.1 || x === 0 ? x.toFixed(2) : x.toPrecision(2);
};

/** The report as an aligned text table, with the setup and notes as comment lines and the first failure of each run. */
export function formatOrderBookHttpReport(report: PlaceBenchReport): string {
  const header = ['scenario', 'orders/s', 'p50 ms', 'p99 ms', 'CPU µs/order', 'DB CPU µs/order', 'client CPU µs/order', 'WAL B/order', 'body B', 'vs anchor', 'non-201', 'orders in DB', 'fills TRANSFER/TAKER_SELLS/MINT/MERGE'];
  const line = (r: PlaceScenario, isAnchor: boolean): string[] => {
    const failed = Object.entries(r.statuses)
      .filter(([status]) => status !== '201')
      .map(([status, count]) => `${count}×${status}`);
    if (r.errors > 0) failed.push(`${r.errors}×net`);
    if (r.unanswered) failed.push(`${r.unanswered}×unanswered`);
    const f = (k: string) => String(r.fills[k] ?? 0);
    const fills = isAnchor ? '–' : `${f('TRANSFER')}/${f('TAKER_SELLS')}/${f('MINT')}/${f('MERGE')}`;
    return [r.name, fmt(r.rps, 0), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1), isAnchor ? '–' : fmt(r.cpuUsPerOrder ?? Number.NaN, 0), isAnchor ? '–' : fmt(r.dbCpuUsPerOrder ?? Number.NaN, 0), fmt(r.clientCpuUsPerOrder, 0), isAnchor ? '–' : fmt(r.walBytesPerOrder ?? Number.NaN, 0), String(r.bytesPerResponse), `${ratio(r.rps, report.anchor.rps)}× bare Fastify`, failed.join(' ') || '0', isAnchor ? '–' : String(r.orders), fills];
  };
  const cells = [header, line(report.anchor, true), ...report.scenarios.map((s) => line(s, false))];
  const widths = header.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  const left = new Set([0, 9, 10, 12]);
  const render = (row: string[]) => row.map((cell, c) => (left.has(c) ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();
  const lines = [...report.setup.map((l) => `# ${l}`), ...report.notes.map((l) => `# ${l}`), '', render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(render)];
  for (const s of report.scenarios) {
    const st = Object.entries(s.orderStatuses)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    lines.push(`# "${s.name}": orders placed (warm-up included) by status now: ${st || 'none'}`);
  }
  for (const r of [report.anchor, ...report.scenarios]) if (r.sample !== undefined) lines.push(`first failure in "${r.name}": ${r.sample}`);
  return lines.join('\n');
}

/**
 * The order path without its HTTP edge (docs/orderbook.md, session 33): the same seeded stream placed at a fixed rate
 * in the service's own process, through the order book service with an Idempotency-Key record written in each order's
 * transaction as the edge has it written (answer included), and timed from when each order was due. What it leaves
 * out is what the edge does (parsing, the key, the rate limit, validation, the answer's write to a socket) and the load
 * client's process; what is left is the queue, the rounds and everything else the process runs meanwhile. So the
 * p99 it measures is a floor for the same rate over HTTP on the same machine.
 */
import { performance } from 'node:perf_hooks';
import type { Principal } from '../src/core/principal.ts';
import type { Runtime } from '../src/runtime/runtime.ts';
import type { EffectRecorder, KeyedRequest } from '../src/services/idempotency/idempotency.ts';
import type { LoadResult } from './load.ts';
import type { PlaceOrderBody } from './orderbook-http.ts';
import { latencySummary, openLoop, unansweredAfterWindow } from './open-loop.ts';

/** One order of the stream: who places it and its body as sent over HTTP (bench/orderbook-http.ts placeOrderStream). */
export interface DirectOrder {
  principal: Principal;
  body: PlaceOrderBody;
}

/** The keeper loops the single writers run beside the order path, as `pauseSingleWriters` stops and starts them. */
const PAUSABLE = ['leaderboard', 'reputation', 'economy', 'participation', 'ledgerBatcher'] as const;

/**
 * Stops the single writers whose work runs beside the order path in this process (the leaderboard's and the
 * reputation's folds, the economy's and participation's keepers, the ledger batcher); answers how to start them again.
 * A bench's diagnostic: what they cost the order path's tail (their work waits meanwhile, and is caught up after).
 */
export async function pauseSingleWriters(runtime: Runtime): Promise<() => Promise<void>> {
  for (const name of PAUSABLE) await runtime.services[name].stop();
  return async () => {
    for (const name of PAUSABLE) await runtime.services[name].start();
  };
}

/**
 * Places `orders` (in turn, starting over past the end) at `rate` a second for `warmupMs` and then `durationMs`,
 * each with its own Idempotency-Key record; answers as the HTTP load client does for an open loop: the orders due in
 * the window, placed (`ok`), their latency from when each was due, and any refused (`statuses` by problem code).
 */
export async function placeDirectAtRate(runtime: Runtime, orders: readonly DirectOrder[], opts: { rate: number; warmupMs: number; durationMs: number; keyPrefix: string }): Promise<LoadResult> {
  const { orderbook, idempotency } = runtime.services;
  const start = performance.now();
  const measureFrom = start + opts.warmupMs;
  const end = measureFrom + opts.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  let ok = 0;
  let errors = 0;
  let sample: string | undefined;

  const one = async (due: number, n: number): Promise<void> => {
    const { principal, body } = orders[n % orders.length]!;
    const keyed: KeyedRequest = { principal: `agent:${principal.agentId}`, key: `${opts.keyPrefix}-${n}`, requestHash: `direct-${n}`, route: { method: 'POST', path: '/api/agent/v1/orderbook/place-order' } };
    const recordEffect: EffectRecorder = Object.assign(
      (trx: Parameters<EffectRecorder>[0], ref: string, output?: unknown) => idempotency.recordAnswer(trx, keyed, ref, output === undefined ? null : { status: 201, body: output, headers: {} }),
      { alreadyRecorded: (trx: Parameters<EffectRecorder>[0]) => idempotency.recorded(trx, keyed) },
    );
    const isCounted = due >= measureFrom && due < end;
    try {
      await orderbook.place(principal, { ...body, shares: BigInt(body.shares) }, recordEffect);
      if (!isCounted) return;
      ok++;
      statuses['201'] = (statuses['201'] ?? 0) + 1;
      latencies.push(performance.now() - due);
    } catch (err) {
      if (!isCounted) return;
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string') statuses[code] = (statuses[code] ?? 0) + 1;
      else errors++;
      sample ??= err instanceof Error ? err.message : String(err);
    }
  };

  const sent = await openLoop(opts.rate, start, end, (due, n) => {
    const p = one(due, n);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  });
  const unanswered = await unansweredAfterWindow(inFlight);
  return {
    ok,
    rps: ok / (opts.durationMs / 1000),
    sent,
    ...latencySummary(latencies),
    statuses,
    errors,
    unanswered,
    bytesPerResponse: 0,
    // The stream's own scheduling runs in the service's process: it is in the service's CPU, not a client's.
    clientCpuUs: 0,
    ...(sample === undefined ? {} : { sample }),
  };
}

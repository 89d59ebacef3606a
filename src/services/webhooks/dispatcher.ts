/**
 * The webhook dispatcher: a pass schedules the outbox's new events into deliveries (schedule.ts), then claims the due
 * attempts and starts them (send.ts) without waiting for the answers. Passes never overlap in one process (several
 * processes coordinate through the database). A pass runs at start, every WEBHOOK_DISPATCH_INTERVAL_MS, and at once
 * when the event bus sees a new event; everything it works from is in the database, so a restart loses nothing. Time
 * is the injected clock's: tests move a ManualClock and call runOnce().
 *
 * Two things keep it off the hot path of the events (docs/events.md "Webhooks"):
 * - While no endpoint is active a pass does nothing: the last pass saw none, and only a change made in this process
 *   (endpointsChanged(), which the webhook operations call) or the slow recheck (ACTIVE_RECHECK_MS, for endpoints
 *   another process registers or enables) makes it look again. Meanwhile it does not follow the event bus either, so
 *   a process with no other subscriber reads nothing of the outbox at commits (bus.ts); a pass that finds an endpoint
 *   active follows it again, and passes once more once it does, for the events of the moments in between.
 * - An attempt runs on its own, up to PER_ENDPOINT_IN_FLIGHT per endpoint and MAX_IN_FLIGHT in all: a receiver that
 *   takes its full timeout to answer holds up only its own deliveries; each attempt that ends claims again.
 */
import type { EventBus, Subscription } from '../events/bus.ts';
import type { WebhookDeps } from './deps.ts';
import { scheduleDeliveries } from './schedule.ts';
import { claimDue, makeAttempt, type ClaimedAttempt } from './send.ts';

export interface WebhookDispatcher {
  /**
   * One pass now (after any pass in flight) that also waits for the attempts: schedules new events, makes every due
   * attempt and waits until none is in flight (the attempts of earlier passes too). Tests call it after moving the clock.
   */
  runOnce(): Promise<{ scheduled: number; attempted: number }>;
  /** Asks for a pass soon; several asks before it starts make one pass. */
  kick(): void;
  /** An endpoint was registered, changed or deleted, or a delivery replayed, in this process: look again at once. */
  endpointsChanged(): void;
  start(): void;
  /** Stops the timers and waits for the pass and the attempts in flight. */
  stop(): Promise<void>;
}

/** Attempts claimed at once. */
const BATCH = 32;
/** Attempts in flight in this process, in all and per endpoint. */
export const MAX_IN_FLIGHT = 64;
export const PER_ENDPOINT_IN_FLIGHT = 8;
/** While no endpoint is active, how often the endpoints are read again (another process may have registered one). */
export const ACTIVE_RECHECK_MS = 10_000;
/** runOnce: rounds of waiting for the attempts in flight and claiming again. */
const MAX_ROUNDS = 20;

export function createWebhookDispatcher(deps: WebhookDeps & { bus: EventBus; intervalMs: number; activeRecheckMs?: number }): WebhookDispatcher {
  let tail: Promise<unknown> = Promise.resolve();
  let passQueued = false;
  let claimQueued = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let recheck: NodeJS.Timeout | null = null;
  let subscription: Subscription | null = null;
  /** start() was called and stop() not since: only then does the dispatcher follow the bus. */
  let started = false;
  /** A subscription is being made (its head read). */
  let subscribing = false;
  /** Whether an endpoint was active at the last look; null: look at the next pass. */
  let active: boolean | null = null;
  /** Bumped by every ask to look again: a pass whose look began before it does not settle `active`. */
  let asks = 0;
  const inFlight = new Map<string, number>();
  const attempts = new Set<Promise<void>>();

  const launch = (claimed: ClaimedAttempt) => {
    inFlight.set(claimed.endpointId, (inFlight.get(claimed.endpointId) ?? 0) + 1);
    const run: Promise<void> = makeAttempt(deps, claimed)
      .catch((err: unknown) => deps.log.error({ err, delivery: claimed.id }, 'webhooks: recording an attempt failed; its lease ends and it is made again'))
      .finally(() => {
        const left = (inFlight.get(claimed.endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(claimed.endpointId);
        else inFlight.set(claimed.endpointId, left);
        attempts.delete(run);
        claimMore();
      });
    attempts.add(run);
  };

  /** Claims and starts due attempts while there is room; returns how many it started. */
  const claimAndLaunch = async (): Promise<number> => {
    let started = 0;
    for (;;) {
      const limit = Math.min(BATCH, MAX_IN_FLIGHT - attempts.size);
      const claimed = await claimDue(deps, { limit, perEndpoint: PER_ENDPOINT_IN_FLIGHT, inFlight });
      for (const c of claimed) launch(c);
      started += claimed.length;
      // Fewer than asked: nothing more is due, or only for endpoints that have no room left.
      if (claimed.length < limit || limit <= 0) return started;
    }
  };

  /**
   * While an endpoint may be active, a pass at every new event on the bus: subscribed at the head, then one pass for
   * whatever was committed before it (the passes before found no endpoint, or ran before the subscription).
   */
  const follow = () => {
    if (!started || active === false || subscription || subscribing) return;
    subscribing = true;
    deps.bus
      .head()
      .then((head) => {
        if (!started || active === false) return;
        subscription = deps.bus.subscribe({ afterSeq: head }, kick);
        kick();
      })
      .catch((err: unknown) => deps.log.error({ err }, 'webhooks: could not follow the event bus; the timer still dispatches'))
      .finally(() => void (subscribing = false));
  };
  const letGo = () => {
    subscription?.close();
    subscription = null;
  };

  const pass = async (): Promise<{ scheduled: number; attempted: number }> => {
    if (active === false) return { scheduled: 0, attempted: 0 };
    const ask = asks;
    const { created, activeEndpoints } = await scheduleDeliveries(deps);
    // An endpoint registered while this pass read them may be missing from what it read: the next pass looks again.
    if (ask === asks) active = activeEndpoints > 0;
    if (active === false) letGo();
    else follow();
    // Due attempts belong to active endpoints only: with none there is nothing to claim either.
    return { scheduled: created, attempted: activeEndpoints > 0 ? await claimAndLaunch() : 0 };
  };

  const enqueue = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn);
    tail = run.catch((err: unknown) => deps.log.error({ err }, 'webhooks: dispatch pass failed; the next one retries'));
    return run;
  };

  const kick = () => {
    if (passQueued || stopped) return;
    passQueued = true;
    void enqueue(() => {
      passQueued = false;
      return pass();
    });
  };

  /** After an attempt ends: claim again (an endpoint has room now), without a whole pass. */
  const claimMore = () => {
    if (claimQueued || passQueued || stopped) return;
    claimQueued = true;
    void enqueue(async () => {
      claimQueued = false;
      if (active !== false) await claimAndLaunch();
    });
  };

  const lookAgain = () => {
    active = null;
    asks++;
    kick();
  };

  const runOnce = () =>
    enqueue(async () => {
      const result = await pass();
      let attempted = result.attempted;
      for (let round = 0; round < MAX_ROUNDS && attempts.size > 0; round++) {
        await Promise.all([...attempts]);
        if (active !== false) attempted += await claimAndLaunch();
      }
      return { scheduled: result.scheduled, attempted };
    });

  return {
    runOnce,
    kick,
    endpointsChanged: lookAgain,
    start() {
      stopped = false;
      started = true;
      timer = setInterval(kick, deps.intervalMs);
      timer.unref();
      recheck = setInterval(() => active === false && lookAgain(), deps.activeRecheckMs ?? ACTIVE_RECHECK_MS);
      recheck.unref();
      // The first pass looks at the endpoints and follows the bus if one is active.
      kick();
    },
    async stop() {
      stopped = true;
      started = false;
      if (timer) clearInterval(timer);
      if (recheck) clearInterval(recheck);
      timer = recheck = null;
      letGo();
      await tail;
      await Promise.all([...attempts]);
    },
  };
}

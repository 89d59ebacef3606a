/**
 * The webhook dispatcher: a pass schedules the outbox's new events into deliveries (schedule.ts), then makes every
 * attempt that is due (send.ts). Passes never overlap in one process (several processes coordinate through the
 * database). A pass runs at start, every WEBHOOK_DISPATCH_INTERVAL_MS, and at once when the event bus sees a new
 * event; everything it works from is in the database, so a restart loses nothing. Time is the injected clock's: tests
 * move a ManualClock and call runOnce().
 */
import type { EventBus, Subscription } from '../events/bus.ts';
import type { WebhookDeps } from './deps.ts';
import { scheduleDeliveries } from './schedule.ts';
import { sendDueDeliveries } from './send.ts';

export interface WebhookDispatcher {
  /** One pass now (after any pass in flight): schedules new events, then makes every due attempt. */
  runOnce(): Promise<{ scheduled: number; attempted: number }>;
  /** Asks for a pass soon; several asks before it starts make one pass. */
  kick(): void;
  start(): void;
  /** Stops the timer and waits for the pass in flight. */
  stop(): Promise<void>;
}

/** Attempts claimed at once, and batches per pass (the rest waits for the next pass). */
const BATCH = 32;
const MAX_BATCHES = 10;

export function createWebhookDispatcher(deps: WebhookDeps & { bus: EventBus; intervalMs: number }): WebhookDispatcher {
  let tail: Promise<unknown> = Promise.resolve();
  let queued = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let subscription: Subscription | null = null;

  const pass = async () => {
    const scheduled = await scheduleDeliveries(deps);
    let attempted = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const made = await sendDueDeliveries(deps, BATCH);
      attempted += made;
      if (made < BATCH) break;
    }
    return { scheduled, attempted };
  };

  const runOnce = () => {
    const run = tail.then(pass);
    tail = run.catch(() => undefined);
    return run;
  };

  const kick = () => {
    if (queued || stopped) return;
    queued = true;
    tail = tail
      .then(() => {
        queued = false;
        return pass();
      })
      .catch((err: unknown) => deps.log.error({ err }, 'webhooks: dispatch pass failed; the next one retries'));
  };

  return {
    runOnce,
    kick,
    start() {
      stopped = false;
      timer = setInterval(kick, deps.intervalMs);
      timer.unref();
      void deps.bus
        .head()
        .then((head) => {
          if (!stopped) subscription = deps.bus.subscribe({ afterSeq: head }, kick);
        })
        .catch((err: unknown) => deps.log.error({ err }, 'webhooks: could not follow the event bus; the timer still dispatches'));
      kick();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      subscription?.close();
      subscription = null;
      await tail;
    },
  };
}

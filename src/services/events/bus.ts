/**
 * In-process event subscriptions that resume from a sequence number. A subscriber first replays
 * every stored event after its sequence, then receives new ones in order, exactly once. The
 * outbox table is the only source: the bus polls it (and is nudged by `notify()` after commits),
 * so events written by another process on the same PostgreSQL are delivered too.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Logger } from '../../core/logger.ts';
import { readEventsAfter, type StoredEvent } from './outbox.ts';

export interface Subscription {
  /** Last sequence delivered to this subscriber. */
  readonly position: bigint;
  close(): void;
}

export interface SubscribeOptions {
  /** Deliver events with seq > afterSeq. */
  afterSeq: bigint;
  /** Optional filter; filtered-out events still advance the position. */
  filter?: (event: StoredEvent) => boolean;
}

export interface EventBus {
  subscribe(options: SubscribeOptions, onEvent: (event: StoredEvent) => void | Promise<void>): Subscription;
  /**
   * Nudge: new events were committed, up to `upTo` when it is known (the NOTIFY of an append carries its last seq). A
   * nudge for events the tail already holds reads nothing: this process's own commits are handed on by `committed`
   * before their NOTIFY comes back to it.
   */
  notify(upTo?: bigint): void;
  /**
   * Events this process has just committed, in sequence: when they follow the tail directly they join it as they are
   * (appendEvents answers them as a read of them would) and go to the subscribers without reading them back; otherwise
   * this is notify().
   */
  committed(events: readonly StoredEvent[]): void;
  /** Highest committed sequence. */
  head(): Promise<bigint>;
  close(): Promise<void>;
}

const PAGE = 500;
/** Latest events kept in memory for subscribers that are caught up. */
const RING = 10_000;
/**
 * Subscribers served per turn of the event loop. A fan-out to thousands would otherwise run in one stretch of
 * microtasks and hold up every request and commit meanwhile; between two chunks (and between two pages of one
 * subscriber) the loop turns (setImmediate), so I/O goes on.
 */
export const FAN_OUT_CHUNK = 100;

/** Resolves on the next turn of the event loop, after pending I/O. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createEventBus(deps: { db: Kysely<DB>; log: Logger; pollMs?: number }): EventBus {
  const { db, log } = deps;
  const subs = new Set<Sub>();
  let closed = false;

  // The shared tail: one read of the outbox per poll for every subscriber of this process, kept in a ring of the
  // latest events. A subscriber within the ring reads from memory; one further behind (a resume from long ago) pages
  // from the database until it reaches the ring. Outbox sequences commit in order (one counter row, locked until
  // commit), so reading after the last sequence seen never misses one.
  let ring: StoredEvent[] = [];
  /** The last sequence read into the ring; null until the first read. */
  let tailEnd: bigint | null = null;
  let tailing: Promise<void> | null = null;
  /** A nudge arrived while a read was in flight: its SELECT may predate that commit, so read once more after it. */
  let nudgedWhileReading = false;
  const readTail = (): Promise<void> => {
    if (tailing) {
      nudgedWhileReading = true;
      return tailing;
    }
    return (tailing = (async () => {
      try {
        tailEnd ??= await head();
        do {
          nudgedWhileReading = false;
          for (;;) {
            const page = await readAfter(tailEnd);
            if (page.length === 0) break;
            ring.push(...page);
            tailEnd = page.at(-1)!.seq;
            if (ring.length > RING) ring = ring.slice(ring.length - RING);
            if (page.length < PAGE) break;
          }
        } while (nudgedWhileReading);
      } finally {
        tailing = null;
      }
    })());
  };
  /** Events after `position` from the ring ([] when caught up with the tail), or null when it is behind the ring. */
  const fromRing = (position: bigint): StoredEvent[] | null => {
    if (tailEnd === null) return null;
    if (position >= tailEnd) return [];
    const start = ring[0]?.seq;
    if (start === undefined || position + 1n < start) return null;
    const i = Number(position + 1n - start);
    return ring.slice(i, i + PAGE);
  };

  class Sub implements Subscription {
    position: bigint;
    private pumping = false;
    private again = false;
    constructor(
      private readonly opts: SubscribeOptions,
      private readonly onEvent: (e: StoredEvent) => void | Promise<void>,
    ) {
      this.position = opts.afterSeq;
    }
    close(): void {
      subs.delete(this);
      due.delete(this);
    }
    /** Delivers everything after `position` that the tail has read; re-runs if nudged while running. */
    async pump(): Promise<void> {
      if (this.pumping) {
        this.again = true;
        return;
      }
      this.pumping = true;
      try {
        do {
          this.again = false;
          for (;;) {
            const page = fromRing(this.position) ?? (await readAfter(this.position));
            for (const event of page) {
              if (!subs.has(this)) return;
              if (!this.opts.filter || this.opts.filter(event)) await this.onEvent(event);
              this.position = event.seq;
            }
            if (page.length === 0) break;
            // A subscriber catching up pages at a time; the others (and I/O) get their turn in between.
            if (page.length === PAGE) await nextTurn();
          }
        } while (this.again && subs.has(this));
      } catch (err) {
        log.error({ err }, 'event subscriber failed; it will resume from its last position');
      } finally {
        this.pumping = false;
      }
    }
  }

  const readAfter = (seq: bigint): Promise<StoredEvent[]> => readEventsAfter(db, seq, PAGE);

  const head = async (): Promise<bigint> => {
    const row = await db.selectFrom('event_sequence').select('last_seq').where('id', '=', 1).executeTakeFirstOrThrow();
    return BigInt(row.last_seq);
  };

  // Each subscriber pumps on its own: a slow one never holds the others back. Pumps start FAN_OUT_CHUNK at a time with
  // a turn of the event loop in between; a pump keeps its own order and position, so starting it again (a nudge during
  // a fan-out) delivers nothing twice. One fan-out runs at a time and takes on whoever becomes due meanwhile.
  const due = new Set<Sub>();
  let fanning = false;
  let fanOutQueued = false;
  const fanOut = async (): Promise<void> => {
    if (fanning) return;
    fanning = true;
    try {
      let started = 0;
      while (due.size > 0 && !closed) {
        const round = [...due];
        due.clear();
        for (const s of round) {
          if (closed) return;
          if (!subs.has(s)) continue; // closed since it became due
          void s.pump();
          if (++started % FAN_OUT_CHUNK === 0) await nextTurn();
        }
      }
    } finally {
      fanning = false;
    }
  };
  /** Reads the tail, then pumps `who`: every subscriber (a nudge, the poll) or a new one. */
  const readThen = (who: 'all' | Sub): void => {
    if (closed) return;
    void readTail()
      .then(() => {
        if (who !== 'all') {
          // Subscribers arriving together (clients reconnecting after a restart) are started in one fan-out on the
          // next turn, chunked like any other, rather than each at once.
          due.add(who);
          if (!fanOutQueued) {
            fanOutQueued = true;
            setImmediate(() => {
              fanOutQueued = false;
              void fanOut();
            });
          }
          return;
        }
        for (const s of subs) due.add(s);
        return fanOut();
      })
      .catch((err: unknown) => {
        // A read the closing of the database cut short is not a failure.
        if (!closed) log.error({ err }, 'event bus: reading the outbox failed; retrying on the next poll');
      });
  };
  const pumpAll = (): void => {
    if (subs.size === 0) {
      // No subscriber in this process (an API process whose clients listen on another): nothing to read the outbox
      // for. The tail is forgotten, unless a read of it is under way, so that the next subscriber starts it at the head
      // instead of paging through everything committed meanwhile (and reads what it missed from the outbox itself).
      if (!tailing) {
        ring = [];
        tailEnd = null;
      }
      return;
    }
    readThen('all');
  };
  const timer = setInterval(() => !closed && pumpAll(), deps.pollMs ?? 500);
  timer.unref();

  return {
    subscribe(options, onEvent) {
      const sub = new Sub(options, onEvent);
      subs.add(sub);
      // Only the newcomer: the others are where the last fan-out left them.
      readThen(sub);
      return sub;
    },
    notify(upTo) {
      if (upTo !== undefined && tailEnd !== null && upTo <= tailEnd) return;
      pumpAll();
    },
    committed(events) {
      if (closed || events.length === 0) return;
      const follows = !tailing && tailEnd !== null && events.every((e, i) => e.seq === tailEnd! + 1n + BigInt(i));
      if (!follows) return pumpAll();
      ring.push(...events);
      tailEnd = events.at(-1)!.seq;
      if (ring.length > RING) ring = ring.slice(ring.length - RING);
      for (const s of subs) due.add(s);
      void fanOut();
    },
    head,
    async close() {
      closed = true;
      clearInterval(timer);
      subs.clear();
      due.clear();
    },
  };
}

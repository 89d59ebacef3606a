// Live updates (docs/web.md "Live updates"): the public event stream over Server-Sent Events, without a key. The
// browser reconnects by itself and resumes from the last event it had (Last-Event-ID); a page re-reads only what an
// event names, once per burst.
import { useEffect, useRef } from 'preact/hooks';

export interface LiveEvent {
  type: string;
  sequence: string;
  marketAddress: string | null;
  data: Record<string, unknown>;
}

/** The public market kinds a page follows: a trade, and every step of a market's state and resolution. */
export const MARKET_KINDS = [
  'market.trade',
  'market.live',
  'market.controlsChanged',
  'market.challengeWindowOpened',
  'market.disputed',
  'market.voteOpened',
  'market.voteClosed',
  'market.councilReview',
  'market.disputeFinalized',
  'market.resolved',
  'market.cancelled',
] as const;

const BURST_MS = 250;

/**
 * Calls `onBurst` with the events of `kinds` (of `o.market` only, when given) that arrived within a short burst. One
 * stream per call, none while `o.off`; it closes when the page does.
 */
export function useLiveEvents(kinds: readonly string[], o: { market?: string; off?: boolean }, onBurst: (events: LiveEvent[]) => void): void {
  const { market, off = false } = o;
  const handler = useRef(onBurst);
  handler.current = onBurst;
  useEffect(() => {
    if (off || typeof EventSource === 'undefined') return;
    const query = new URLSearchParams({ kinds: kinds.join(',') });
    if (market) query.set('markets', market);
    const source = new EventSource(`/api/agent/v1/events/stream?${query.toString()}`);
    let pending: LiveEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const listener = (m: MessageEvent<string>) => {
      try {
        pending.push(JSON.parse(m.data) as LiveEvent);
      } catch {
        return;
      }
      timer ??= setTimeout(() => {
        const burst = pending;
        pending = [];
        timer = undefined;
        handler.current(burst);
      }, BURST_MS);
    };
    for (const kind of kinds) source.addEventListener(kind, listener);
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [kinds.join(','), market, off]);
}

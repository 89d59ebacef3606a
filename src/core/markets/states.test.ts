import { describe, expect, it } from 'vitest';
import { canTransition, MARKET_STATES, STATE_INFO, TRANSITIONS } from './states.ts';

describe('market state graph', () => {
  it('describes exactly the eight spec states, once each', () => {
    expect(STATE_INFO.map((s) => s.state)).toEqual([...MARKET_STATES]);
  });

  it('reaches every state from open, and every non-terminal state can reach a terminal one', () => {
    const reach = (from: string): Set<string> => {
      const seen = new Set([from]);
      const queue = [from];
      while (queue.length) {
        const s = queue.shift()!;
        for (const t of TRANSITIONS) {
          if (t.from === s && !seen.has(t.to)) {
            seen.add(t.to);
            queue.push(t.to);
          }
        }
      }
      return seen;
    };
    expect([...reach('open')].sort()).toEqual([...MARKET_STATES].sort());
    for (const info of STATE_INFO.filter((s) => !s.terminal)) {
      const reachable = reach(info.state);
      expect(reachable.has('resolved') || reachable.has('void'), info.state).toBe(true);
    }
  });

  it('leaves terminal states never, and trades only in open', () => {
    for (const info of STATE_INFO.filter((s) => s.terminal)) expect(TRANSITIONS.some((t) => t.from === info.state)).toBe(false);
    expect(STATE_INFO.filter((s) => s.tradeable).map((s) => s.state)).toEqual(['open']);
    expect(canTransition('resolved', 'open')).toBe(false);
    expect(canTransition('open', 'closed')).toBe(true);
  });
});

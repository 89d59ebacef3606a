import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayable } from '../../../test/support/property.ts';
import { WAD } from '../markets/price.ts';
import { chooseTheses, closingSoon, disagreement, forecastGap, HOUR_MS, newMarket, priceMove, reasonsFor, THESIS_RULES, volume, type MarketFacts, type RelatedMarket } from './choose.ts';

const now = new Date('2026-06-29T12:00:00Z');
const pct = (n: number): bigint => (BigInt(Math.round(n * 100)) * WAD) / 10_000n;
const addr = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;

/** A quiet binary USDC market: two days old, a month from close, no trades, no forecast (no reason at all). */
function facts(o: Partial<MarketFacts> = {}): MarketFacts {
  return {
    chainId: 8453,
    address: addr(1),
    question: 'Will it happen?',
    category: 'CRYPTO',
    pricingModel: 'automated',
    outcomes: ['Yes', 'No'],
    prices: [pct(50), pct(50)],
    pricesWindowAgo: [pct(50), pct(50)],
    volumeWindow: 0n,
    tradesWindow: 0,
    tradeCount: 0,
    collateral: { symbol: 'USDC', decimals: 6 },
    closeTime: new Date(now.getTime() + 30 * 24 * HOUR_MS),
    createdAt: new Date(now.getTime() - 48 * HOUR_MS),
    forecast: null,
    ...o,
  };
}

describe('thesis reasons', () => {
  it('a quiet market has none', () => {
    expect(reasonsFor(facts(), [], now)).toEqual([]);
  });

  it('counts a price move from 5 points, on the outcome that moved most', () => {
    expect(priceMove(facts({ prices: [pct(54.9), pct(45.1)] }))).toBeNull();
    const move = priceMove(facts({ outcomes: ['A', 'B', 'C'], prices: [pct(30), pct(50), pct(20)], pricesWindowAgo: [pct(33.4), pct(33.3), pct(33.3)] }));
    expect(move).toMatchObject({ kind: 'price_move', outcome: 1, from: pct(33.3), to: pct(50), windowHours: 24 });
    expect(priceMove(facts({ prices: [pct(55), pct(45)] }))?.strength).toBeCloseTo(0.2);
    expect(priceMove(facts({ prices: [pct(10), pct(90)] }))?.strength).toBe(1);
  });

  it('counts volume from 100 whole units over 3 trades, in the collateral\'s own decimals', () => {
    expect(volume(facts({ volumeWindow: 99_999_999n, tradesWindow: 10 }))).toBeNull();
    expect(volume(facts({ volumeWindow: 100_000_000n, tradesWindow: 2 }))).toBeNull();
    expect(volume(facts({ volumeWindow: 100_000_000n, tradesWindow: 3 }))?.strength).toBeCloseTo(0.5);
    // 100 USDC in base units is a dust amount of PM (18 decimals).
    expect(volume(facts({ volumeWindow: 100_000_000n, tradesWindow: 3, collateral: { symbol: 'PM', decimals: 18 } }))).toBeNull();
    expect(volume(facts({ volumeWindow: 10n ** 22n, tradesWindow: 3, collateral: { symbol: 'PM', decimals: 18 } }))?.strength).toBe(1);
  });

  it('is closing soon within 48 hours, more strongly the sooner', () => {
    const at = (h: number) => closingSoon(facts({ closeTime: new Date(now.getTime() + h * HOUR_MS) }), now);
    expect(at(48.01)).toBeNull();
    expect(at(48)?.strength).toBeCloseTo(0.3);
    expect(at(1)!.strength).toBeGreaterThan(at(24)!.strength);
    expect(at(0.5)).toMatchObject({ secondsLeft: 1800 });
    expect(at(0)).toBeNull();
  });

  it('finds the farthest binary market of the same category, never itself, from 30 points', () => {
    const related: RelatedMarket[] = [
      { address: addr(1), question: 'itself', category: 'CRYPTO', price: pct(1) },
      { address: addr(2), question: 'cheap', category: 'CRYPTO', price: pct(15) },
      { address: addr(3), question: 'dear', category: 'CRYPTO', price: pct(60) },
      { address: addr(4), question: 'elsewhere', category: 'SPORTS', price: pct(1) },
    ];
    const d = disagreement(facts({ prices: [pct(70), pct(30)] }), related);
    expect(d).toMatchObject({ kind: 'disagreement', outcome: 0, price: pct(70), related: { address: addr(2) } });
    expect(d!.strength).toBeCloseTo(55 / 60);
    expect(disagreement(facts({ prices: [pct(44), pct(56)] }), related)).toBeNull();
    expect(disagreement(facts({ outcomes: ['A', 'B', 'C'], prices: [pct(90), pct(5), pct(5)] }), related)).toBeNull();
  });

  it('counts a forecast of the last 72 hours 10 points or more from the price', () => {
    const forecast = (probabilities: bigint[], hoursAgo = 1) => ({ id: 'frm_1', publishedAt: new Date(now.getTime() - hoursAgo * HOUR_MS), probabilities });
    expect(forecastGap(facts({ forecast: forecast([pct(59), pct(41)]) }), now)).toBeNull();
    expect(forecastGap(facts({ forecast: forecast([pct(35), pct(65)]) }), now)).toMatchObject({ outcome: 0, forecast: pct(35), price: pct(50) });
    expect(forecastGap(facts({ forecast: forecast([pct(20), pct(80)], 73) }), now)).toBeNull();
    expect(forecastGap(facts({ forecast: forecast([pct(20), pct(30), pct(50)]) }), now)).toBeNull();
  });

  it('calls a market new for its first 24 hours', () => {
    expect(newMarket(facts({ createdAt: new Date(now.getTime() - 23 * HOUR_MS), tradeCount: 2 }), now)).toMatchObject({ secondsOpen: 23 * 3600, trades: 2, strength: 0.2 });
    expect(newMarket(facts({ createdAt: new Date(now.getTime() - 25 * HOUR_MS) }), now)).toBeNull();
  });
});

describe('choosing theses', () => {
  it('leaves out markets with no reason, ranks by score, and caps the list', () => {
    const quiet = facts({ address: addr(100) });
    const closing = Array.from({ length: 25 }, (_, i) => facts({ address: addr(i + 1), closeTime: new Date(now.getTime() + (i + 1) * HOUR_MS) }));
    const chosen = chooseTheses([quiet, ...closing], [], now);
    expect(chosen).toHaveLength(THESIS_RULES.cap);
    expect(chosen.map((t) => t.market.address)).toEqual(closing.slice(0, THESIS_RULES.cap).map((m) => m.address));
  });

  it('breaks a tie of scores by volume in whole units, then the soonest close, then address', () => {
    const base = { closeTime: new Date(now.getTime() + 10 * HOUR_MS) };
    const a = facts({ ...base, address: addr(3) });
    const b = facts({ ...base, address: addr(2) });
    const c = facts({ closeTime: base.closeTime, address: addr(9), volumeWindow: 50_000_000n, tradesWindow: 1 });
    expect(chooseTheses([a, b, c], [], now).map((t) => t.market.address)).toEqual([addr(9), addr(2), addr(3)]);
  });

  it('keeps every strength in (0, 1], its reasons strongest first, and the list in score order', () => {
    const bigint = (max: bigint) => fc.bigInt({ min: 0n, max });
    const market = fc.record({
      p: bigint(WAD),
      ago: bigint(WAD),
      volumeWindow: bigint(10n ** 12n),
      tradesWindow: fc.nat(50),
      closeHours: fc.double({ min: 0.01, max: 100, noNaN: true }),
      ageHours: fc.double({ min: 0, max: 100, noNaN: true }),
      category: fc.constantFrom('CRYPTO', 'SPORTS'),
      f: fc.option(bigint(WAD)),
    });
    fc.assert(
      fc.property(fc.array(market, { maxLength: 30 }), (specs) => {
        const markets = specs.map((s, i) =>
          facts({
            address: addr(i + 1),
            category: s.category,
            prices: [s.p, WAD - s.p],
            pricesWindowAgo: [s.ago, WAD - s.ago],
            volumeWindow: s.volumeWindow,
            tradesWindow: s.tradesWindow,
            closeTime: new Date(now.getTime() + s.closeHours * HOUR_MS),
            createdAt: new Date(now.getTime() - s.ageHours * HOUR_MS),
            forecast: s.f === null ? null : { id: `frm_${i}`, publishedAt: now, probabilities: [s.f, WAD - s.f] },
          }),
        );
        const related = markets.map((m) => ({ address: m.address, question: m.question, category: m.category, price: m.prices[0]! }));
        const chosen = chooseTheses(markets, related, now);
        expect(chosen.length).toBeLessThanOrEqual(THESIS_RULES.cap);
        chosen.forEach((t, i) => {
          expect(t.reasons.length).toBeGreaterThan(0);
          for (const r of t.reasons) expect(r.strength > 0 && r.strength <= 1, `${r.kind} ${r.strength}`).toBe(true);
          expect(t.reasons.map((r) => r.strength)).toEqual([...t.reasons.map((r) => r.strength)].sort((x, y) => y - x));
          expect(t.score).toBeCloseTo(t.reasons.reduce((s, r) => s + r.strength, 0));
          if (i > 0) expect(chosen[i - 1]!.score).toBeGreaterThanOrEqual(t.score);
        });
        // Nothing left out scores above what was kept.
        const kept = new Set(chosen.map((t) => t.market.address));
        const floor = chosen.at(-1)?.score ?? Infinity;
        for (const m of markets) if (!kept.has(m.address) && chosen.length === THESIS_RULES.cap) expect(reasonsFor(m, related, now).reduce((s, r) => s + r.strength, 0)).toBeLessThanOrEqual(floor);
      }),
      replayable({ numRuns: 200 }),
    );
  });
});

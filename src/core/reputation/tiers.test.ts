import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayable } from '../../../test/support/property.ts';
import { activeIn, standingsOf } from './standing.ts';
import { subjectIdOf, subjectKeyFromId, subjectKeyOf } from './subject.ts';
import { EMPTY_RECORD, faceValueMicros, gatesOf, nextTier, REPUTATION_TIERS, reputationTierRank, TIER_GATES, type ReputationRecord, type ReputationTier } from './tiers.ts';

const record = (o: Partial<ReputationRecord>): ReputationRecord => ({ ...EMPTY_RECORD, ...o });
const TOKEN = 1_000_000n;

const arbRecord: fc.Arbitrary<ReputationRecord> = fc.record({
  trades: fc.nat({ max: 300 }),
  volumeMicros: fc.bigInt({ min: 0n, max: 30_000n * TOKEN }),
  marketsCreated: fc.nat({ max: 30 }),
  resolvedClean: fc.nat({ max: 20 }),
  disputesLost: fc.nat({ max: 6 }),
  creatorAbsences: fc.nat({ max: 4 }),
  challengesUpheld: fc.nat({ max: 6 }),
  challengesLost: fc.nat({ max: 4 }),
  ballotsAgreed: fc.nat({ max: 20 }),
  ballotsDisagreed: fc.nat({ max: 12 }),
  humanVerified: fc.boolean(),
});
const arbTier = fc.constantFrom<ReputationTier>(...REPUTATION_TIERS);

describe('tiers', () => {
  it('a new subject with no record stays new; a record clearing a bar promotes, naming the record', () => {
    expect(nextTier('new', EMPTY_RECORD)).toEqual({ tier: 'new', reason: null });
    expect(nextTier('new', record({ trades: 10, volumeMicros: 100n * TOKEN }))).toEqual({ tier: 'established', reason: 'TRADING_RECORD' });
    expect(nextTier('new', record({ trades: 10, volumeMicros: 99n * TOKEN }))).toEqual({ tier: 'new', reason: null });
    expect(nextTier('new', record({ resolvedClean: 3 }))).toEqual({ tier: 'established', reason: 'CREATOR_RECORD' });
    expect(nextTier('new', record({ ballotsAgreed: 3 }))).toEqual({ tier: 'established', reason: 'JUROR_RECORD' });
    // Trusted needs a verified human on top of the record.
    expect(nextTier('established', record({ resolvedClean: 10 }))).toEqual({ tier: 'established', reason: null });
    expect(nextTier('established', record({ resolvedClean: 10, humanVerified: true }))).toEqual({ tier: 'trusted', reason: 'CREATOR_RECORD' });
    expect(nextTier('trusted', record({ resolvedClean: 10 }))).toEqual({ tier: 'established', reason: 'HUMAN_VERIFICATION_LOST' });
  });

  it('restricts a creator whose bond was slashed on more than a quarter of its bonded outcomes, and lifts it at a tenth', () => {
    // One lost dispute out of one finished market: 100 %.
    expect(nextTier('new', record({ marketsCreated: 1, disputesLost: 1 }))).toEqual({ tier: 'restricted', reason: 'SLASH_RATE' });
    // 1 of 4 is exactly 25 %: not more than a quarter.
    expect(nextTier('new', record({ disputesLost: 1, resolvedClean: 3 })).tier).toBe('established');
    // Between 10 % and 25 % a restricted subject stays restricted (hysteresis)…
    expect(nextTier('restricted', record({ disputesLost: 1, resolvedClean: 5 }))).toEqual({ tier: 'restricted', reason: null });
    // …and leaves at 10 %.
    expect(nextTier('restricted', record({ disputesLost: 1, resolvedClean: 9 }))).toEqual({ tier: 'established', reason: 'RESTRICTION_LIFTED' });
    expect(nextTier('established', record({ creatorAbsences: 1 }))).toEqual({ tier: 'restricted', reason: 'SLASH_RATE' });
    expect(nextTier('new', record({ challengesLost: 2, challengesUpheld: 1 })).tier).toBe('restricted');
  });

  it('restricts a juror who mostly votes against binding verdicts', () => {
    expect(nextTier('new', record({ ballotsDisagreed: 3, ballotsAgreed: 2 }))).toEqual({ tier: 'restricted', reason: 'JUROR_DISAGREEMENT' });
    expect(nextTier('new', record({ ballotsDisagreed: 2 })).tier).toBe('new');
    expect(nextTier('restricted', record({ ballotsDisagreed: 3, ballotsAgreed: 5 })).tier).toBe('restricted'); // 37.5 % > 33.33 %
    expect(nextTier('restricted', record({ ballotsDisagreed: 3, ballotsAgreed: 7 })).tier).toBe('established'); // 30 %
  });

  it('holds a tier on its keep bar, below its enter bar', () => {
    const keep = record({ trades: 8, volumeMicros: 80n * TOKEN });
    expect(nextTier('established', keep)).toEqual({ tier: 'established', reason: null });
    expect(nextTier('new', keep)).toEqual({ tier: 'new', reason: null });
    expect(nextTier('established', record({ trades: 7, volumeMicros: 80n * TOKEN }))).toEqual({ tier: 'new', reason: 'RECORD_BELOW_FLOOR' });
  });

  it('is idempotent: the tier it answers is where the same record stays', () => {
    fc.assert(
      fc.property(arbTier, arbRecord, (tier, r) => {
        const once = nextTier(tier, r);
        expect(nextTier(once.tier, r)).toEqual({ tier: once.tier, reason: null });
        expect(once.reason === null).toBe(once.tier === tier);
      }),
      replayable({ numRuns: 2000 }),
    );
  });

  it('more of a good record never lowers the tier, more slashes never raise it', () => {
    const good = fc.record({ trades: fc.nat({ max: 50 }), volume: fc.bigInt({ min: 0n, max: 5_000n * TOKEN }), clean: fc.nat({ max: 5 }), agreed: fc.nat({ max: 5 }), upheld: fc.nat({ max: 3 }) });
    fc.assert(
      fc.property(arbTier, arbRecord, good, (tier, r, g) => {
        const better = { ...r, trades: r.trades + g.trades, volumeMicros: r.volumeMicros + g.volume, resolvedClean: r.resolvedClean + g.clean, ballotsAgreed: r.ballotsAgreed + g.agreed, challengesUpheld: r.challengesUpheld + g.upheld };
        expect(reputationTierRank(nextTier(tier, better).tier)).toBeGreaterThanOrEqual(reputationTierRank(nextTier(tier, r).tier));
        const worse = { ...r, disputesLost: r.disputesLost + g.clean, ballotsDisagreed: r.ballotsDisagreed + g.agreed };
        expect(reputationTierRank(nextTier(tier, worse).tier)).toBeLessThanOrEqual(reputationTierRank(nextTier(tier, r).tier));
      }),
      replayable({ numRuns: 2000 }),
    );
  });

  it('only a verified human is trusted', () => {
    fc.assert(
      fc.property(arbTier, arbRecord, (tier, r) => {
        if (nextTier(tier, r).tier === 'trusted') expect(r.humanVerified).toBe(true);
      }),
      replayable({ numRuns: 1000 }),
    );
  });
});

describe('gates', () => {
  it('a restricted tier has a lower live-market cap, a tenth of the free fills and no vote; trusted more of both', () => {
    expect(gatesOf('restricted', 500)).toEqual({ maxLiveMarkets: 2, freeFillsPerMonth: 50, mayVote: false });
    expect(gatesOf('new', 500)).toEqual({ maxLiveMarkets: 20, freeFillsPerMonth: 500, mayVote: true });
    expect(gatesOf('established', 500)).toEqual({ maxLiveMarkets: 30, freeFillsPerMonth: 500, mayVote: true });
    expect(gatesOf('trusted', 500)).toEqual({ maxLiveMarkets: 50, freeFillsPerMonth: 1000, mayVote: true });
    expect(gatesOf('restricted', 3).freeFillsPerMonth).toBe(0);
    // Gates never shrink going up the ladder.
    for (let i = 1; i < REPUTATION_TIERS.length; i++) {
      const [lo, hi] = [TIER_GATES[REPUTATION_TIERS[i - 1]!], TIER_GATES[REPUTATION_TIERS[i]!]];
      expect(hi.maxLiveMarkets).toBeGreaterThanOrEqual(lo.maxLiveMarkets);
      expect(hi.freeFillsPercent).toBeGreaterThanOrEqual(lo.freeFillsPercent);
    }
  });

  it('counts volume at face value in millionths of a token', () => {
    expect(faceValueMicros(1_500_000n, 6)).toBe(1_500_000n); // 1.5 USDC
    expect(faceValueMicros(10n ** 18n, 18)).toBe(TOKEN); // 1 PM
    expect(faceValueMicros(5n, 2)).toBe(50_000n);
  });
});

describe('standings and subjects', () => {
  it('orders creators by clean resolutions, jurors by agreement, traders by volume', () => {
    const a = standingsOf(record({ resolvedClean: 2, marketsCreated: 2 }));
    const b = standingsOf(record({ resolvedClean: 3, disputesLost: 1, marketsCreated: 4 }));
    expect(a.creator > b.creator).toBe(true);
    expect(standingsOf(record({ ballotsAgreed: 2 })).juror > standingsOf(record({ ballotsAgreed: 3, ballotsDisagreed: 2 })).juror).toBe(true);
    expect(standingsOf(record({ volumeMicros: 5n })).trader).toBe(5n);
    expect(activeIn('juror', record({}))).toBe(false);
    expect(activeIn('creator', record({ marketsCreated: 1 }))).toBe(true);
  });

  it('a subject id is opaque, stable and decodes only to a key this service issues', () => {
    const wallet = subjectKeyOf('0xABCDEF0000000000000000000000000000000001', null);
    expect(wallet).toBe('wallet:0xabcdef0000000000000000000000000000000001');
    const identity = subjectKeyOf('0x01', '0b1c4f6e-8d2a-4c3b-9e5f-7a6b5c4d3e2f');
    for (const key of [wallet, identity]) expect(subjectKeyFromId(subjectIdOf(key))).toBe(key);
    expect(subjectIdOf(wallet)).toMatch(/^rs1_[A-Za-z0-9_-]+$/);
    for (const junk of ['', 'x', 'rs1_', 'rs1_!!', subjectIdOf('wallet:0x12' as never), subjectIdOf('identity:nope' as never), `${subjectIdOf(wallet)}=`, 'a'.repeat(256)]) {
      expect(subjectKeyFromId(junk)).toBeNull();
    }
  });
});

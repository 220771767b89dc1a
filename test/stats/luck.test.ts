import { describe, expect, it } from 'vitest';
import { erfc, fairDiceTest, type LuckOutcome, midP, midPVariance } from '../../src/stats/luck.js';

const d6: LuckOutcome[] = [1, 2, 3, 4, 5, 6].map((total) => ({ total, count: 1n }));

describe('luck arithmetic', () => {
  it('mid-P of 1d6 rolls by hand', () => {
    expect(midP(d6, 6n, 1)).toBeCloseTo(1 / 12, 12);
    expect(midP(d6, 6n, 4)).toBeCloseTo(3 / 6 + 1 / 12, 12);
    expect(midP(d6, 6n, 6)).toBeCloseTo(11 / 12, 12);
  });

  it('the variance formula matches brute force for 2d4', () => {
    const counts = new Map<number, bigint>();
    for (let a = 1; a <= 4; a++)
      for (let b = 1; b <= 4; b++) counts.set(a + b, (counts.get(a + b) ?? 0n) + 1n);
    const outcomes = [...counts].map(([total, count]) => ({ total, count }));
    let mean = 0;
    let sq = 0;
    for (const o of outcomes) {
      const u = midP(outcomes, 16n, o.total);
      mean += (Number(o.count) / 16) * u;
      sq += (Number(o.count) / 16) * u * u;
    }
    expect(mean).toBeCloseTo(0.5, 12);
    expect(midPVariance(outcomes, 16n)).toBeCloseTo(sq - mean * mean, 12);
  });

  it('the Z-test of three 1d6 rolls', () => {
    const us = [1, 4, 6].map((x) => midP(d6, 6n, x));
    const v = midPVariance(d6, 6n);
    const r = fairDiceTest(us, [v, v, v]);
    const z = (1 / 12 + 7 / 12 + 11 / 12 - 1.5) / Math.sqrt(3 * v);
    expect(r?.z).toBeCloseTo(z, 12);
    expect(r?.p).toBeGreaterThan(0);
    expect(r?.p).toBeLessThanOrEqual(1);
    expect(fairDiceTest([], [])).toBeNull();
    expect(fairDiceTest([0.5], [0.0001])?.p).toBeCloseTo(1, 6);
  });
});

describe('erfc', () => {
  it('matches reference values across its two methods', () => {
    // Reference values of erfc (CPython math.erfc), either side of the switch at 2.
    expect(erfc(0)).toBe(1);
    expect(erfc(0.5)).toBeCloseTo(0.479500122186953, 14);
    expect(erfc(1)).toBeCloseTo(0.157299207050285, 14);
    expect(erfc(1.999)).toBeCloseTo(0.004698443348629, 14);
    expect(erfc(2)).toBeCloseTo(0.004677734981047, 14);
    expect(erfc(3) / 2.209049699858544e-5).toBeCloseTo(1, 12);
    expect(erfc(6) / 2.151973671249892e-17).toBeCloseTo(1, 12);
    expect(erfc(-1)).toBeCloseTo(2 - 0.157299207050285, 14);
  });
});

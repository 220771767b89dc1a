import { describe, expect, it } from 'vitest';
import { prepareRoll } from '../../src/formula/index.js';
import { dieCounts } from '../../src/stats/die.js';
import { checkDistribution, distribution } from '../../src/stats/distribution.js';
import { explodingKeepHighest, keepDistribution, keepMoments } from '../../src/stats/keep.js';
import { autoDepth, listedSupport } from '../../src/stats/term.js';

// The level walk for the highest of exploding dice (docs/stats.md) against the general walk
// over every listed value, count for count, truncation tail included (the mass left out).
describe('keep the highest of exploding dice by levels', () => {
  it('equals the walk over values for every small pool, depth and sides, explode and penetrate', () => {
    let compared = 0;
    for (const sides of [2, 3, 4, 6, 10]) {
      for (const penetrate of [false, true]) {
        for (const depth of [0, 1, 2, 3, 5]) {
          for (let n = 2; n <= 6; n++) {
            for (let k = 1; k < n; k++) {
              const die = dieCounts(
                { sides, explode: penetrate ? 2 : 1, rerollLimit: 0, rerollLow: 1, rerollHigh: 0 },
                depth,
              );
              const walk = keepDistribution(die, n, k, true, true);
              const levels = explodingKeepHighest(sides, penetrate, depth, n, k);
              // The walk's denominator is the die's, to the n: the same here (no common factor).
              expect(levels.denominator).toBe(die.denominator ** BigInt(n));
              const listed = (d: { min: number; counts: bigint[] }) => {
                const out: string[] = [];
                d.counts.forEach((c, i) => {
                  if (c !== 0n) out.push(`${d.min + i}:${c}`);
                });
                return out;
              };
              expect(listed(levels)).toEqual(listed(walk));
              expect(levels.counts.every((c) => c >= 0n)).toBe(true);
              compared++;
            }
          }
        }
      }
    }
    expect(compared).toBe(750);
    // Many sides, few levels.
    for (const [n, k] of [
      [3, 1],
      [4, 2],
      [4, 3],
    ] as const) {
      const die = dieCounts({ sides: 100, explode: 1, rerollLimit: 0, rerollLow: 1, rerollHigh: 0 }, 2);
      const walk = keepDistribution(die, n, k, true, true);
      const levels = explodingKeepHighest(100, false, 2, n, k);
      expect(levels.counts).toEqual(walk.counts.slice(0, levels.counts.length));
      expect(walk.counts.slice(levels.counts.length).every((c) => c === 0n)).toBe(true);
    }
  });

  it('the formulas the docs name as within the budget are answered, their tails at most 1e-30', () => {
    for (const formula of ['5d100!kh3', '50d6!kh3', '10d10!kh5']) {
      const answer = distribution({ formula });
      expect(answer.listing).not.toBe('summary');
      expect(answer.truncation!.tailProbability).toBeLessThanOrEqual(1e-30);
      expect(answer.outcomes[0]!.total).toBe(3 + (formula === '10d10!kh5' ? 2 : 0));
    }
  });

  it('5d10!kh3 at the default depth: the same counts as the walk, and a tail of the right size', () => {
    const die = dieCounts({ sides: 10, explode: 1, rerollLimit: 0, rerollLow: 1, rerollHigh: 0 }, 30);
    const walk = keepDistribution(die, 5, 3, true, true);
    const levels = explodingKeepHighest(10, false, 30, 5, 3);
    expect(levels.min).toBe(walk.min);
    expect(levels.counts).toEqual(walk.counts.slice(0, levels.counts.length));
    expect(walk.counts.slice(levels.counts.length).every((c) => c === 0n)).toBe(true);
    // Unlisted: a roll with a chain of more than 30 extras; 5 dice, each 10^-31: 1 - (1 - 10^-31)^5.
    let listed = 0n;
    for (const c of levels.counts) listed += c;
    const tail = levels.denominator - listed;
    // 1 - (1 - 10^-31)^5: just below 5e-31.
    expect(tail * 10n ** 31n < 5n * levels.denominator).toBe(true);
    expect(tail * 10n ** 32n > 49n * levels.denominator).toBe(true);
  });
});

describe('the span a compare-point explosion is costed and sized with', () => {
  it('bounds every listed total, and is not twice too wide', () => {
    for (const formula of [
      '3d6!>=5',
      '2d10!>=9',
      '2dF!',
      '3d6!p>=5',
      '2d6!!>=5',
      '2d{-1,3}!>=3',
      '2d{0,2,2}!p>=2',
    ]) {
      const prepared = prepareRoll({ formula });
      const depth = autoDepth(prepared.groups);
      const bound = listedSupport(prepared.groups, depth);
      const answer = distribution({ formula });
      const spread = answer.outcomes[answer.outcomes.length - 1]!.total - answer.outcomes[0]!.total + 1;
      expect(spread).toBeLessThanOrEqual(bound);
      // Values of 1..10 (or 1..6) exploding: the bound is the listed spread, give or take the
      // faces' own span, where it was twice as wide before.
      if (formula === '2d10!>=9' || formula === '3d6!>=5') expect(bound).toBeLessThan(1.1 * spread);
    }
  });

  it('so a keep of such dice that takes well under a second is answered, not refused', () => {
    expect(() => checkDistribution({ formula: '7d10!>=9kh3' })).not.toThrow();
  });
});

// The power sums of a kept sum without its distribution, against every roll of small pools.
describe('the moments of a keep, walked without the distribution', () => {
  it('equals the enumeration of every roll, highest and lowest, uneven weights', () => {
    const die = { min: 2, counts: [3n, 0n, 1n, 5n, 2n], tail: 0n, denominator: 11n };
    for (let n = 2; n <= 4; n++) {
      for (let k = 1; k < n; k++) {
        for (const highest of [true, false]) {
          expect(keepMoments(die, n, k, highest)).toEqual(enumeratedMoments(die, n, k, highest));
        }
      }
    }
  });

  it('walks runs of equal weights at once: equals every roll of a die with runs', () => {
    // Runs of 3 and 4 equal weights, a single value, a gap: each run's table against the rolls.
    const die = { min: -1, counts: [2n, 2n, 2n, 0n, 1n, 3n, 3n, 3n, 3n], tail: 0n, denominator: 19n };
    for (let n = 2; n <= 5; n++) {
      for (let k = 1; k < n; k++) {
        for (const highest of [true, false]) {
          expect(keepMoments(die, n, k, highest)).toEqual(enumeratedMoments(die, n, k, highest));
        }
      }
    }
  });

  it('equals the moments of the whole kept distribution for exploding, penetrating and rerolled dice', () => {
    let compared = 0;
    for (const sides of [2, 3, 6, 10]) {
      for (const explode of [1, 2] as const) {
        for (const reroll of [false, true]) {
          const spec = {
            sides,
            explode,
            rerollLimit: reroll ? 1 : 0,
            rerollLow: 1,
            rerollHigh: reroll ? 1 : 0,
          };
          // The runs of a few explosion levels, made whole by leaving the tail out of the die.
          const listed = dieCounts(spec, 4);
          const die = { ...listed, tail: 0n, denominator: listed.denominator - listed.tail };
          for (let n = 2; n <= 4; n++) {
            for (let k = 1; k < n; k++) {
              for (const highest of [true, false]) {
                const kept = keepDistribution(die, n, k, highest, false);
                let s0 = 0n;
                let s1 = 0n;
                let s2 = 0n;
                kept.counts.forEach((count, i) => {
                  const v = BigInt(kept.min + i);
                  s0 += count;
                  s1 += count * v;
                  s2 += count * v * v;
                });
                expect(keepMoments(die, n, k, highest)).toEqual({ s0, s1, s2 });
                compared++;
              }
            }
          }
        }
      }
    }
    expect(compared).toBe(4 * 2 * 2 * 6 * 2);
  });

  it('refuses a die with a tail (its moments would be the listing only)', () => {
    expect(() => keepMoments({ min: 1, counts: [1n], tail: 1n, denominator: 2n }, 2, 1, true)).toThrow(
      RangeError,
    );
  });
});

/** The power sums of the kept sum by enumerating every roll of n dice. */
function enumeratedMoments(
  die: { min: number; counts: bigint[] },
  n: number,
  k: number,
  highest: boolean,
): { s0: bigint; s1: bigint; s2: bigint } {
  let s0 = 0n;
  let s1 = 0n;
  let s2 = 0n;
  const size = die.counts.length;
  for (let code = 0; code < size ** n; code++) {
    const faces: number[] = [];
    let weight = 1n;
    for (let i = 0, c = code; i < n; i++, c = Math.floor(c / size)) {
      faces.push(c % size);
      weight *= die.counts[c % size]!;
    }
    faces.sort((a, b) => (highest ? b - a : a - b));
    const kept = BigInt(faces.slice(0, k).reduce((sum, i) => sum + die.min + i, 0));
    s0 += weight;
    s1 += weight * kept;
    s2 += weight * kept * kept;
  }
  return { s0, s1, s2 };
}

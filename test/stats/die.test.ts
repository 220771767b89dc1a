// One die as exact weights (src/stats/die.ts): rerolls, the final throw, explosion chains and
// their tail, on values worked out by hand, and the factorised exploding sum against the plain
// product of its dice.

import { describe, expect, it } from 'vitest';
import {
  chainCounts,
  type DieSpec,
  dieCounts,
  explodingSum,
  finalThrowWeights,
  type GeneralDie,
  isRerolled,
  reduce,
  rerolledFaces,
  topFaceProbability,
  trim,
} from '../../src/stats/die.js';
import { multiply } from '../../src/stats/poly.js';

const counts = (values: readonly number[]): bigint[] => values.map(BigInt);
const d6 = (spec: Partial<DieSpec>): DieSpec => ({
  sides: 6,
  explode: 0,
  rerollLimit: 0,
  rerollLow: 1,
  rerollHigh: 0,
  ...spec,
});

describe('rerolls and the final throw', () => {
  it('rerolledFaces counts the faces of the die the range holds', () => {
    expect(rerolledFaces(d6({ rerollLimit: 1, rerollLow: 1, rerollHigh: 2 }))).toBe(2);
    expect(rerolledFaces(d6({ rerollLimit: 100, rerollLow: Number.NEGATIVE_INFINITY, rerollHigh: 2 }))).toBe(
      2,
    );
    expect(rerolledFaces(d6({ rerollLimit: 1, rerollLow: 5, rerollHigh: 9 }))).toBe(2);
    // No rerolls allowed: nothing is rerolled, whatever the range.
    expect(rerolledFaces(d6({ rerollLimit: 0, rerollLow: 1, rerollHigh: 6 }))).toBe(0);
  });

  it('finalThrowWeights: ro<3 on a d6 leaves each of 3-6 at 8/36 and each of 1-2 at 2/36', () => {
    // 3..6: 1/6 at once, or after a 1 or 2 (2/6 * 1/6); 1..2: only after a first 1 or 2.
    expect(finalThrowWeights(d6({ rerollLimit: 1, rerollLow: 1, rerollHigh: 2 }))).toEqual({
      kept: 8n,
      met: 2n,
      denominator: 36n,
    });
    expect(finalThrowWeights(d6({}))).toEqual({ kept: 1n, met: 0n, denominator: 6n });
  });

  it('isRerolled and topFaceProbability', () => {
    const ro1 = d6({ explode: 1, rerollLimit: 1, rerollLow: 1, rerollHigh: 1 });
    expect([1, 2, 6].map((face) => isRerolled(ro1, face))).toEqual([true, false, false]);
    // A 6 at once, or a 1 then a 6: 1/6 + 1/36.
    expect(topFaceProbability(ro1)).toBeCloseTo(7 / 36, 15);
  });
});

describe('dieCounts', () => {
  it('ro<3 on a d6, reduced: 1, 1, 4, 4, 4, 4 over 18', () => {
    expect(dieCounts(d6({ rerollLimit: 1, rerollLow: Number.NEGATIVE_INFINITY, rerollHigh: 2 }), 0)).toEqual({
      min: 1,
      counts: counts([1, 1, 4, 4, 4, 4]),
      tail: 0n,
      denominator: 18n,
    });
  });

  it('!p to depth 1: a 6 then r is 5 + r; a second 6 is the tail', () => {
    expect(dieCounts(d6({ explode: 2 }), 1)).toEqual({
      min: 1,
      counts: counts([6, 6, 6, 6, 6, 1, 1, 1, 1, 1]),
      tail: 1n,
      denominator: 36n,
    });
  });

  it('trim and reduce', () => {
    expect(trim({ min: 0, counts: counts([0, 2, 0, 4, 0]), tail: 0n, denominator: 6n })).toEqual({
      min: 1,
      counts: counts([2, 0, 4]),
      tail: 0n,
      denominator: 6n,
    });
    expect(reduce({ min: 1, counts: counts([2, 4]), tail: 2n, denominator: 8n })).toEqual({
      min: 1,
      counts: counts([1, 2]),
      tail: 1n,
      denominator: 4n,
    });
  });
});

describe('explodingSum', () => {
  it('one die is dieCounts without its tail', () => {
    const one = dieCounts(d6({ explode: 1 }), 1);
    expect(explodingSum(6, false, 1, 1)).toEqual({ min: one.min, counts: one.counts, denominator: 36n });
  });

  it('two penetrating dice are the product of two single dice', () => {
    const one = dieCounts(d6({ explode: 2 }), 1);
    const two = explodingSum(6, true, 1, 2);
    expect(two.min).toBe(2);
    expect(two.denominator).toBe(one.denominator ** 2n);
    expect(two.counts).toEqual(multiply(one.counts, one.counts));
  });
});

describe('chainCounts: any die', () => {
  const plainValues = (values: number[], explodes: boolean[]): GeneralDie => ({
    sides: values.length,
    values,
    rerollLimit: 0,
    rerolled: values.map(() => false),
    explodes,
    exploding: explodes.some(Boolean),
    penalty: 0,
    compound: false,
  });
  const value = { init: (v: number) => v, extra: (v: number) => v };

  it('a Fate die: -1, 0, 1 over 3', () => {
    expect(chainCounts(plainValues([-1, 0, 1], [false, false, false]), 0, value)).toEqual({
      min: -1,
      counts: counts([1, 1, 1]),
      tail: 0n,
      denominator: 3n,
    });
  });

  it('a d4 exploding on 3 and 4, to depth 1: 3 or 4 then 1 or 2 are listed, then 3 or 4 again is the tail', () => {
    expect(chainCounts(plainValues([1, 2, 3, 4], [false, false, true, true]), 1, value)).toEqual({
      min: 1,
      counts: counts([4, 4, 0, 1, 2, 1]),
      tail: 4n,
      denominator: 16n,
    });
  });

  it('keys other than the value: a success on 3 or more, counted per result of the chain', () => {
    const score = (v: number) => (v >= 3 ? 1 : 0);
    // Final 1 or 2: 0 successes; 3 or 4 then 1 or 2: 1; deeper: the tail.
    expect(
      chainCounts(plainValues([1, 2, 3, 4], [false, false, true, true]), 1, { init: score, extra: score }),
    ).toEqual({ min: 0, counts: counts([2, 1]), tail: 1n, denominator: 4n });
  });
});

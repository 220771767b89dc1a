// Compare points (src/formula/compare.ts): each operator as an integer range, not-equal as an
// inverted one, exact comparison of fractions, and the face, clamp and explode bounds of a term.

import { describe, expect, it } from 'vitest';
import type { ComparePoint, DiceNode } from '../../src/formula/ast.js';
import {
  clampBounds,
  compareBounds,
  everyValueMeets,
  explodePoint,
  faceBounds,
  meets,
  within,
} from '../../src/formula/compare.js';
import { parseFormula } from '../../src/formula/index.js';
import { Rational } from '../../src/formula/rational.js';

const dice = (formula: string): DiceNode => {
  const term = parseFormula(formula).terms[0]!;
  if (term.kind !== 'dice') throw new Error(`${formula} is not a dice term`);
  return term;
};
const point = (operator: ComparePoint['operator'], value: number): ComparePoint => ({ operator, value });
const INF = Number.POSITIVE_INFINITY;

describe('compareBounds and within', () => {
  it('each operator is an inclusive range of integers', () => {
    expect(compareBounds(point('=', 3))).toEqual([3, 3]);
    expect(compareBounds(point('<', 3))).toEqual([-INF, 2]);
    expect(compareBounds(point('<=', 3))).toEqual([-INF, 3]);
    expect(compareBounds(point('>', 3))).toEqual([4, INF]);
    expect(compareBounds(point('>=', 3))).toEqual([3, INF]);
  });

  it('not equal is inverted: every value but one', () => {
    const [low, high] = compareBounds(point('<>', 3));
    expect([low, high]).toEqual([4, 2]);
    expect([1, 2, 3, 4, 5].map((v) => within(v, low, high))).toEqual([true, true, false, true, true]);
  });

  it('within an ordinary range, and the empty range [+inf, -inf]', () => {
    expect([2, 3, 4, 5].map((v) => within(v, 3, 4))).toEqual([false, true, true, false]);
    expect([-1e9, 0, 1e9].map((v) => within(v, INF, -INF))).toEqual([false, false, false]);
  });
});

describe('meets: exact, for fractional item totals', () => {
  const half = Rational.of(7, 2);
  it('3.5 against each operator at 3 and at 4', () => {
    expect(['=', '<>', '<', '<=', '>', '>='].map((op) => meets(half, point(op as never, 3)))).toEqual([
      false,
      true,
      false,
      false,
      true,
      true,
    ]);
    // No rounding: 3.5 lies strictly between 3 and 4.
    expect(meets(half, point('>=', 4))).toBe(false);
    expect(meets(half, point('<', 4))).toBe(true);
    expect(meets(Rational.of(4), point('=', 4))).toBe(true);
  });
});

describe('bounds of a term', () => {
  it('faceBounds: 1..N, or the listed faces', () => {
    expect(faceBounds(dice('3d8'))).toEqual([1, 8]);
    expect(faceBounds(dice('4dF'))).toEqual([-1, 1]);
    expect(faceBounds(dice('1d{3,-2,7,7}'))).toEqual([-2, 7]);
  });

  it('clampBounds: min and max, else the faces', () => {
    expect(clampBounds(dice('2d6min2'))).toEqual([2, 6]);
    expect(clampBounds(dice('2d6max4min3'))).toEqual([3, 4]);
    expect(clampBounds(dice('2d{-3,5}'))).toEqual([-3, 5]);
  });

  it('explodePoint: the written point, else the largest face', () => {
    const written = dice('1d10!>=9');
    const largest = dice('1d{1,4,2}!');
    const explode = (d: DiceNode) => d.modifiers.find((m) => m.kind === 'explode') as never;
    expect(explodePoint(written, explode(written))).toEqual({ operator: '>=', value: 9 });
    expect(explodePoint(largest, explode(largest))).toEqual({ operator: '=', value: 4 });
  });

  it('everyValueMeets: after min and max, over standard and custom dice', () => {
    expect(everyValueMeets(dice('1d6'), point('>=', 1))).toBe(true);
    expect(everyValueMeets(dice('1d6'), point('>=', 2))).toBe(false);
    expect(everyValueMeets(dice('1d6min2'), point('>=', 2))).toBe(true);
    // Not equal: met by every value when the excluded one is outside 1..6.
    expect(everyValueMeets(dice('1d6'), point('<>', 7))).toBe(true);
    expect(everyValueMeets(dice('1d6'), point('<>', 6))).toBe(false);
    expect(everyValueMeets(dice('1d{2,4}'), point('>', 1))).toBe(true);
    expect(everyValueMeets(dice('1d{2,4}max3'), point('=', 3))).toBe(false);
  });
});

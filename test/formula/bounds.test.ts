// The interval of values an expression can take (src/formula/bounds.ts), which the checks use
// to refuse a divisor that may be zero and a power that may pass 10^100: never narrower than the
// truth, on values worked out by hand.

import { describe, expect, it } from 'vitest';
import { bounds } from '../../src/formula/bounds.js';
import { parseFormula } from '../../src/formula/index.js';

/** The bounds of a formula's whole sum. */
const of = (formula: string) => bounds({ kind: 'sum', terms: parseFormula(formula).terms, column: 1 });

describe('bounds', () => {
  it('dice terms: counts, signs, multipliers, explosions (100 extras at most)', () => {
    expect(of('2d6+3')).toEqual([5, 15]);
    expect(of('-1d4')).toEqual([-4, -1]);
    expect(of('3d6x2')).toEqual([6, 36]);
    expect(of('1d6!')).toEqual([1, 6 + 100 * 6]);
    // Penetrating: each extra at most 5.
    expect(of('1d6!p')).toEqual([1, 6 + 100 * 5]);
  });

  it('keep/drop may keep none of the sum; counting and mt count dice', () => {
    expect(of('4d6kh3')).toEqual([0, 24]);
    expect(of('2d20adv')).toEqual([0, 40]);
    expect(of('6d10>=8')).toEqual([-6, 6]);
    expect(of('20d6mt')).toEqual([0, 20]);
  });

  it('operators and functions', () => {
    expect(of('2d10/d20')).toEqual([0.1, 20]);
    // A remainder by 7 is below 7 and has the left side's sign.
    expect(of('1d20%7')).toEqual([0, 7]);
    expect(of('(1d6-3)^2')).toEqual([0, 9]);
    expect(of('floor(1d6/4)')).toEqual([0, 1]);
    expect(of('abs(1d6-4)')).toEqual([0, 3]);
    expect(of('min(1d6,1d8)')).toEqual([1, 6]);
    expect(of('max(1d6,1d8)+0')).toEqual([1, 8]);
  });

  it("groups: a kept subset, or a count of items or of a pool's dice", () => {
    expect(of('{1d6,1d8}kh1')).toEqual([0, 14]);
    expect(of('{1d6,1d8}')).toEqual([2, 14]);
    expect(of('{3d6,3d6}>=10')).toEqual([-2, 2]);
    expect(of('{4d6}>=5')).toEqual([-4, 4]);
  });
});

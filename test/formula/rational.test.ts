// Exact rationals (src/formula/rational.ts): always reduced with a positive denominator, the four
// operations, powers, the remainder of truncating division, comparison and four roundings.

import { describe, expect, it } from 'vitest';
import { Rational } from '../../src/formula/rational.js';

const r = (n: number, d = 1) => Rational.of(n, d);
const str = (x: Rational) => x.toString();

describe('Rational', () => {
  it('is reduced, with the sign on the numerator', () => {
    expect(str(r(6, 4))).toBe('3/2');
    expect(str(r(3, -6))).toBe('-1/2');
    expect(str(r(-4, -2))).toBe('2');
    expect(str(r(0, -5))).toBe('0');
    expect(() => r(1, 0)).toThrow(RangeError);
  });

  it('adds, subtracts, multiplies and divides exactly', () => {
    expect(str(r(1, 3).add(r(1, 6)))).toBe('1/2');
    expect(str(r(1, 3).sub(r(1, 2)))).toBe('-1/6');
    expect(str(r(2, 3).mul(r(9, 4)))).toBe('3/2');
    expect(str(r(7, 2).div(r(-7, 4)))).toBe('-2');
    expect(() => r(1).div(r(0))).toThrow(RangeError);
    // floor(7/2*2) is 7, not a floating-point accident.
    expect(str(r(7).div(r(2)).mul(r(2)))).toBe('7');
  });

  it('powers, with 0^0 = 1', () => {
    expect(str(r(-2, 3).pow(3))).toBe('-8/27');
    expect(str(r(0).pow(0))).toBe('1');
    expect(r(10).pow(30).toString()).toBe(`1${'0'.repeat(30)}`);
  });

  it('mod: the remainder of truncating division, with the sign of the left side', () => {
    expect(str(r(7).mod(r(3)))).toBe('1');
    expect(str(r(-7).mod(r(3)))).toBe('-1');
    expect(str(r(7).mod(r(-3)))).toBe('1');
    expect(str(r(7, 2).mod(r(1)))).toBe('1/2');
  });

  it('compares, and knows zero and integers', () => {
    expect(r(1, 3).compare(r(2, 6))).toBe(0);
    expect(r(-1, 2).compare(r(1, 3))).toBe(-1);
    expect(r(5, 4).compare(r(1))).toBe(1);
    expect([r(0).isZero(), r(1, 7).isZero()]).toEqual([true, false]);
    expect([r(4, 2).isInteger(), r(3, 2).isInteger()]).toEqual([true, false]);
  });

  it('floor, ceil, round (halves away from zero) and abs', () => {
    const values = [r(5, 2), r(-5, 2), r(7, 3), r(-7, 3), r(4)];
    expect(values.map((v) => str(v.floor()))).toEqual(['2', '-3', '2', '-3', '4']);
    expect(values.map((v) => str(v.ceil()))).toEqual(['3', '-2', '3', '-2', '4']);
    expect(values.map((v) => str(v.round()))).toEqual(['3', '-3', '2', '-2', '4']);
    expect(values.map((v) => str(v.abs()))).toEqual(['5/2', '5/2', '7/3', '7/3', '4']);
  });

  it('toNumber: the nearest double, exact for integers up to 2^53', () => {
    expect(r(1, 3).toNumber()).toBe(1 / 3);
    expect(Rational.of(2n ** 53n).toNumber()).toBe(2 ** 53);
    expect(r(-7, 4).toNumber()).toBe(-1.75);
  });
});

// Polynomials of counts (src/stats/poly.ts): products by the schoolbook loop and by Kronecker
// substitution give the same coefficients, powers are repeated products, and packing is lossless.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multiply, pack, power, total, unpack } from '../../src/stats/poly.js';

/** The product by definition: every pair of coefficients. */
function reference(a: readonly bigint[], b: readonly bigint[]): bigint[] {
  const result: bigint[] = new Array(a.length + b.length - 1).fill(0n);
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) result[i + j]! += a[i]! * b[j]!;
  return result;
}

describe('multiply', () => {
  it('small products: (1 + x)(1 + x) and an empty factor', () => {
    expect(multiply([1n, 1n], [1n, 1n])).toEqual([1n, 2n, 1n]);
    expect(multiply([2n, 0n, 3n], [5n])).toEqual([10n, 0n, 15n]);
    expect(multiply([], [1n, 2n])).toEqual([]);
  });

  it('past the schoolbook limit, packing gives the coefficients of the definition', () => {
    // 100 x 100 products: past the 4096 the loop takes, so packed; coefficients of ~200 bits.
    const a = Array.from({ length: 100 }, (_, i) => 3n ** BigInt(i % 97) + BigInt(i));
    const b = Array.from({ length: 100 }, (_, i) => 2n ** BigInt((i * 7) % 101));
    expect(multiply(a, b)).toEqual(reference(a, b));
  });

  it('agrees with the definition on random polynomials', () => {
    const poly = fc.array(fc.bigInt({ min: 0n, max: 2n ** 90n }), { minLength: 1, maxLength: 120 });
    fc.assert(
      fc.property(poly, poly, (a, b) => {
        expect(multiply(a, b)).toEqual(reference(a, b));
      }),
      { numRuns: 60 },
    );
  });
});

describe('power and total', () => {
  it('(1 + x)^10 is the tenth row of binomials; 6 faces squared are 2d6', () => {
    expect(power([1n, 1n], 10)).toEqual([1n, 10n, 45n, 120n, 210n, 252n, 210n, 120n, 45n, 10n, 1n]);
    expect(power(new Array(6).fill(1n), 2)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 5n, 4n, 3n, 2n, 1n]);
    expect(power([5n, 7n], 0)).toEqual([1n]);
  });

  it('a power of 100 dice sums to 6^100', () => {
    const d6 = new Array(6).fill(1n);
    const hundred = power(d6, 100);
    expect(hundred).toHaveLength(501);
    expect(total(hundred)).toBe(6n ** 100n);
    expect(hundred[0]).toBe(1n);
    expect(hundred[1]).toBe(100n);
  });
});

describe('pack and unpack', () => {
  it('are inverse', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 2n ** 200n - 1n }), { minLength: 1, maxLength: 70 }),
        (poly) => {
          expect(unpack(pack(poly, 50), 50, poly.length)).toEqual(poly);
        },
      ),
    );
  });

  it('one coefficient per slot of hex digits, index 0 lowest; a coefficient too wide is an error', () => {
    expect(pack([1n, 2n, 3n], 2)).toBe(0x030201n);
    expect(unpack(0x030201n, 2, 3)).toEqual([1n, 2n, 3n]);
    expect(() => unpack(0x030201n, 2, 2)).toThrow(RangeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bitLength, fraction, ratioToNumber } from '../../src/stats/exact.js';
import { pack, unpack } from '../../src/stats/poly.js';

describe('ratioToNumber: the nearest double of n/d', () => {
  it('agrees with IEEE division of the same ratio scaled into huge integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 3000 }),
        (n, d, k) => {
          const scale = 3n ** BigInt(k);
          expect(ratioToNumber(BigInt(n) * scale, BigInt(d) * scale)).toBe(n / d);
          expect(ratioToNumber(-BigInt(n) * scale, BigInt(d) * scale)).toBe(-n / d || 0);
        },
      ),
    );
  });

  it('rounds ties to even and handles the subnormal range and underflow', () => {
    const big = 2n ** 2000n;
    // 2^53 + 1 is halfway between two doubles: ties to even gives 2^53.
    expect(ratioToNumber((2n ** 53n + 1n) * big, big)).toBe(2 ** 53);
    expect(ratioToNumber((2n ** 53n + 3n) * big, big)).toBe(2 ** 53 + 4);
    expect(ratioToNumber(1n, 2n ** 1074n)).toBe(5e-324);
    expect(ratioToNumber(1n, 2n ** 1075n)).toBe(0);
    expect(ratioToNumber(3n, 2n ** 1076n)).toBe(5e-324);
    expect(ratioToNumber(1n, 6n ** 1000n)).toBe(0);
    expect(ratioToNumber(2n ** 1100n, 3n * 2n ** 2122n)).toBe(2 ** -1022 / 3);
    expect(ratioToNumber(10n ** 400n, 10n ** 100n)).toBe(1e300);
  });
});

describe('exact helpers', () => {
  it('fractions in lowest terms with a positive denominator', () => {
    expect(fraction(15869n * 7n, 1296n * 7n)).toBe('15869/1296');
    expect(fraction(6n, -4n)).toBe('-3/2');
    expect(fraction(0n, 5n)).toBe('0/1');
    expect(fraction(14n, 2n)).toBe('7/1');
  });
  it('bit lengths', () => {
    expect([0n, 1n, 2n, 255n, 256n, 2n ** 1000n].map(bitLength)).toEqual([0, 1, 2, 8, 9, 1001]);
  });
  it('pack and unpack are inverse', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 2n ** 200n - 1n }), { minLength: 1, maxLength: 70 }),
        (poly) => {
          expect(unpack(pack(poly, 50), 50, poly.length)).toEqual(poly);
        },
      ),
    );
  });
});

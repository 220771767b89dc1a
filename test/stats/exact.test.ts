import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bitLength, fraction, gcd, ratiosOver, ratioToNumber } from '../../src/stats/exact.js';

/** A positive BigInt of at most `bits` bits. */
const bigint = (bits: number) => fc.bigInt({ min: 1n, max: (1n << BigInt(bits)) - 1n });

/** An exact tie at 53 bits and one away: m/8 for an odd 54-bit m, times a large d, nudged by -1..1. */
const tieAtPrecision = fc
  .tuple(fc.bigInt({ min: 2n ** 53n, max: 2n ** 54n - 1n }), bigint(400), fc.integer({ min: -1, max: 1 }))
  .map(([m, d, nudge]) => ({
    n: m * (d | (1n << 300n)) + BigInt(nudge),
    divisor: (d | (1n << 300n)) << 3n,
  }));

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

/** The nearest double to n/d by BigInt alone: 120 bits of quotient, rounded by hand, ties to even. */
function referenceRatio(n: bigint, d: bigint): number {
  const shift = 120 - (n.toString(2).length - d.toString(2).length);
  const scaled = shift >= 0 ? n << BigInt(shift) : n;
  const divisor = shift >= 0 ? d : d << BigInt(-shift);
  let q = scaled / divisor;
  if (q * divisor !== scaled) q |= 1n;
  const drop = q.toString(2).length - 53;
  let m = q >> BigInt(drop);
  const rest = q & ((1n << BigInt(drop)) - 1n);
  const half = 1n << BigInt(drop - 1);
  if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
  return Number(m) * 2 ** (drop - shift);
}

describe('ratioToNumber on counts of hundreds of bits', () => {
  it('agrees with the BigInt reference, ties and their neighbours included', () => {
    fc.assert(
      fc.property(bigint(1000), bigint(900), (n, d) => {
        expect(ratioToNumber(n, d | (1n << 250n))).toBe(referenceRatio(n, d | (1n << 250n)));
      }),
      { numRuns: 2000 },
    );
    // Exact ties at 53 bits and one away (tieAtPrecision).
    fc.assert(
      fc.property(tieAtPrecision, ({ n, divisor }) => {
        expect(ratioToNumber(n, divisor)).toBe(referenceRatio(n, divisor));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('ratiosOver: many numerators over one denominator', () => {
  it('gives exactly what ratioToNumber gives, ties, their neighbours, tiny and huge values included', () => {
    fc.assert(
      fc.property(bigint(900), fc.array(bigint(1000), { minLength: 1, maxLength: 20 }), (d, numerators) => {
        const denominator = d | (1n << 60n);
        const ratios = ratiosOver(denominator);
        for (const n of [...numerators, 0n, -numerators[0]!, denominator, denominator - 1n, 1n]) {
          expect(ratios.of(n)).toBe(ratioToNumber(n, denominator));
          expect(ratios.of(n, ratios.scaled(n))).toBe(ratioToNumber(n, denominator));
        }
      }),
      { numRuns: 500 },
    );
    // Exact ties at 53 bits and one away (as above): the cheap bound cannot decide them.
    fc.assert(
      fc.property(tieAtPrecision, ({ n, divisor }) => {
        expect(ratiosOver(divisor).of(n)).toBe(referenceRatio(n, divisor));
      }),
      { numRuns: 1000 },
    );
    // Small denominators, the subnormal range, a denominator past the fast bound.
    expect(ratiosOver(1296n).of(15n)).toBe(15 / 1296);
    expect(ratiosOver(2n ** 1074n).of(1n)).toBe(5e-324);
    expect(ratiosOver(10n ** 400n).of(3n)).toBe(ratioToNumber(3n, 10n ** 400n));
    expect(ratiosOver(10n ** 200n).of(1n)).toBe(1e-200);
    // Denominators of over 1000 bits (ten exploding d10s): the scaled-down bound.
    fc.assert(
      fc.property(bigint(1400), bigint(1500), (d, n) => {
        const denominator = d | (1n << 1300n);
        expect(ratiosOver(denominator).of(n)).toBe(ratioToNumber(n, denominator));
      }),
      { numRuns: 500 },
    );
    // Running sums carry running sums of the scaled numerators.
    const ratios = ratiosOver(10n ** 155n + 7n);
    let running = 0n;
    let scaled = 0n;
    for (let i = 1n; i < 400n; i++) {
      const count = (10n ** 150n * i * i) / 7n;
      running += count;
      scaled += ratios.scaled(count);
      expect(ratios.of(running, scaled)).toBe(ratioToNumber(running, 10n ** 155n + 7n));
    }
    for (let shift = 0n; shift < 1400n; shift += 7n) {
      const n = (10n ** 310n - 12345n) >> shift;
      expect(ratiosOver(10n ** 310n).of(n)).toBe(ratioToNumber(n, 10n ** 310n));
    }
  });
});

describe('gcd, fractions and bit lengths', () => {
  it('fractions in lowest terms with a positive denominator', () => {
    expect(fraction(15869n * 7n, 1296n * 7n)).toBe('15869/1296');
    expect(fraction(6n, -4n)).toBe('-3/2');
    expect(fraction(0n, 5n)).toBe('0/1');
    expect(fraction(14n, 2n)).toBe('7/1');
  });
  it('gcd is never negative, and gcd(0, n) is |n|', () => {
    expect(gcd(12n, -18n)).toBe(6n);
    expect(gcd(0n, -7n)).toBe(7n);
    expect(gcd(17n, 5n)).toBe(1n);
  });
  it("gcd of large numbers (Lehmer's steps) equals Euclid's remainders, on random and structured pairs", () => {
    const euclid = (a: bigint, b: bigint): bigint => {
      let x = a < 0n ? -a : a;
      let y = b < 0n ? -b : b;
      while (y !== 0n) [x, y] = [y, x % y];
      return x;
    };
    // A deterministic generator: the test is the same on every run.
    let seed = 12345;
    const word = (): bigint => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return BigInt(seed);
    };
    const random = (bits: number): bigint => {
      let x = 0n;
      for (let b = 0; b < bits; b += 31) x = (x << 31n) | word();
      return x >> BigInt(Math.max(0, Math.ceil(bits / 31) * 31 - bits));
    };
    const pairs: Array<[bigint, bigint]> = [];
    for (const bits of [40, 64, 65, 100, 200, 700, 2000]) {
      for (let i = 0; i < 40; i++) {
        const common = random(1 + (i % 5) * 30) + 1n;
        pairs.push([random(bits) * common, random(bits - (i % 7) * 5 + 1) * common]);
        pairs.push([random(bits), random(10 + (i % 3))]);
      }
    }
    // Consecutive Fibonacci numbers (every quotient 1), powers of ten, equal and zero operands.
    let [f, g] = [1n, 1n];
    for (let i = 0; i < 1500; i++) [f, g] = [g, f + g];
    pairs.push(
      [g, f],
      [f, g],
      [10n ** 155n, 10n ** 124n * 3n ** 40n],
      [2n ** 900n, 2n ** 900n],
      [7n ** 300n, 0n],
    );
    pairs.push(
      [-(10n ** 90n) * 6n, 10n ** 80n * 15n],
      [(1n << 64n) + 1n, 1n << 64n],
      [3n ** 500n, 3n ** 499n * 2n],
    );
    // Remainders that fall more than 1000 bits at once, mid-way through the steps.
    pairs.push(
      [(2n ** 3000n + 12345n) * 7n ** 40n, (2n ** 1500n + 1n) * 7n ** 40n],
      [2n ** 2500n * 3n + 2n ** 70n, 2n ** 2500n],
    );
    for (let i = 0; i < 30; i++)
      pairs.push([random(1500) * random(2500) + random(200), random(1500) * random(1200)]);
    for (const [a, b] of pairs) expect(gcd(a, b)).toBe(euclid(a, b));
  });
  it('bit lengths', () => {
    expect([0n, 1n, 2n, 255n, 256n, 2n ** 1000n].map(bitLength)).toEqual([0, 1, 2, 8, 9, 1001]);
  });
});

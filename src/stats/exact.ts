// Exact arithmetic on BigInt for the distribution engine: fractions in lowest terms, the nearest
// double of a ratio of integers of any size, binomial coefficients and bit lengths.

/** Greatest common divisor of two integers (the result is never negative). */
export function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  if (x < y) [x, y] = [y, x];
  // One remainder first: often decisive (one divides the other), and the rest starts balanced.
  if (y > LEHMER_SMALL) [x, y] = [y, x % y];
  let bits = x > LEHMER_SMALL ? bitLength(x) : 0;
  // Lehmer's algorithm (Knuth, TAOCP 2, 4.5.2, Algorithm L): while the numbers are large, run
  // Euclid on their leading 50 bits with cofactors kept in doubles (every value below 2^52, so
  // exact), and apply the cofactors to the whole numbers once; a remainder step when the leading
  // bits cannot decide a quotient. Many BigInt divisions become a few multiplications.
  while (y > LEHMER_SMALL) {
    bits = bitsAtMost(x, bits);
    const shift = BigInt(Math.max(0, bits - 50));
    let xh = Number(x >> shift);
    let yh = Number(y >> shift);
    let A = 1;
    let B = 0;
    let C = 0;
    let D = 1;
    while (yh + C !== 0 && yh + D !== 0) {
      const q = Math.floor((xh + A) / (yh + C));
      if (q !== Math.floor((xh + B) / (yh + D))) break;
      [A, C] = [C, A - q * C];
      [B, D] = [D, B - q * D];
      [xh, yh] = [yh, xh - q * yh];
    }
    if (B === 0) {
      [x, y] = [y, x % y];
    } else {
      [x, y] = [BigInt(A) * x + BigInt(B) * y, BigInt(C) * x + BigInt(D) * y];
    }
  }
  while (y !== 0n) {
    const r = x % y;
    x = y;
    y = r;
  }
  return x;
}

/**
 * The bit length b of a positive x of at most `bound` bits, or b + 1: from the double of its bits
 * from bound - 1000 up (at least 2^(b-1) and at most 2^b), without a string.
 */
function bitsAtMost(x: bigint, bound: number): number {
  const drop = Math.max(0, bound - 1000);
  const leading = Number(drop === 0 ? x : x >> BigInt(drop));
  // x far below the bound (a remainder step can take more than 1000 bits off): count them.
  if (leading === 0) return bitLength(x);
  return Math.floor(Math.log2(leading)) + 1 + drop;
}

/** Below this, Euclid's remainders are single BigInt digits: Lehmer's steps stop paying. */
const LEHMER_SMALL = 1n << 64n;

/** `n/d` in lowest terms with a positive denominator, always written as a fraction (`7/1`). */
export function fraction(numerator: bigint, denominator: bigint): string {
  if (denominator === 0n) throw new RangeError('zero denominator');
  let n = numerator;
  let d = denominator;
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  if (g > 1n) {
    n /= g;
    d /= g;
  }
  return `${n}/${d}`;
}

/** Number of bits of |x| (0 for 0). */
export function bitLength(x: bigint): number {
  const v = x < 0n ? -x : x;
  if (v === 0n) return 0;
  // toString(16) is linear for a power-of-two radix.
  const hex = v.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(hex[0]!, 16)));
}

/** x * 2^e in steps, so no intermediate factor overflows or underflows (exact for a normal result). */
function scaleByPowerOfTwo(x: number, e: number): number {
  let result = x;
  let rest = e;
  while (rest > 1000) {
    result *= 2 ** 1000;
    rest -= 1000;
  }
  while (rest < -1000) {
    result *= 2 ** -1000;
    rest += 1000;
  }
  return result * 2 ** rest;
}

/** Bits of a non-negative x, possibly one too many (when Number(x) rounds up to a power of two). */
function approximateBits(x: bigint): number {
  const n = Number(x);
  if (n < 2 ** 52) return n === 0 ? 0 : Math.floor(Math.log2(n)) + 1;
  return Number.isFinite(n) ? Math.floor(Math.log2(n)) + 1 : bitLength(x);
}

/**
 * The double nearest to n/d (ties to even), for integers of any size: the exact quotient is
 * taken to at least 62 significant bits plus a sticky bit, so the one rounding Number() does is
 * correct. Values too small for a normal double are rounded at the subnormal grid by hand.
 */
export function ratioToNumber(numerator: bigint, denominator: bigint): number {
  if (denominator === 0n) throw new RangeError('zero denominator');
  let n = numerator;
  let d = denominator;
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  if (n === 0n) return 0;
  const negative = n < 0n;
  if (negative) n = -n;
  // Both exact in a double: IEEE division rounds correctly.
  if (n <= 9007199254740991n && d <= 9007199254740991n) {
    const value = Number(n) / Number(d);
    return negative ? -value : value;
  }
  // n/d lies in [2^(e-2), 2^(e+2)).
  let e = approximateBits(n) - approximateBits(d);
  if (e <= -1018) e = bitLength(n) - bitLength(d);
  let value: number;
  if (e + 1 <= -1022) {
    // Subnormal (or underflow): round n/d * 2^1074 to an integer, ties to even.
    const scaled = n << 1074n;
    let q = scaled / d;
    const twice = (scaled % d) * 2n;
    if (twice > d || (twice === d && (q & 1n) === 1n)) q += 1n;
    value = Number(q) * 2 ** -537 * 2 ** -537;
  } else {
    const shift = 66 - e;
    let q: bigint;
    let exact: boolean;
    if (shift >= 0) {
      const scaled = n << BigInt(shift);
      q = scaled / d;
      exact = q * d === scaled;
    } else {
      const scaledD = d << BigInt(-shift);
      q = n / scaledD;
      exact = q * scaledD === n;
    }
    if (!exact) q |= 1n;
    value = scaleByPowerOfTwo(Number(q), -shift);
  }
  return negative ? -value : value;
}

/** Binomial coefficients C(n, 0..n), exactly. */
export function binomialRow(n: number): bigint[] {
  const row: bigint[] = new Array(n + 1);
  row[0] = 1n;
  for (let k = 1; k <= n; k++) row[k] = (row[k - 1]! * BigInt(n - k + 1)) / BigInt(k);
  return row;
}

/** ratioToNumber over one denominator, for many numerators (see ratiosOver). */
export interface Ratios {
  /**
   * The nearest double of numerator / denominator: exactly ratioToNumber's answer. `scaled`,
   * when given, must be scaled(numerator) (a running sum of numerators may carry the running
   * sum of theirs, which saves the product).
   */
  of(numerator: bigint, scaled?: bigint): number;
  /** numerator times the precomputed inverse (0 when the denominator is small): additive. */
  scaled(numerator: bigint): bigint;
}

/**
 * ratioToNumber for many numerators over one positive denominator, cheaper per call: with
 * inv = floor(2^P / d) computed once, n * 2^P / d lies in [n * inv, n * inv + n), an interval a
 * few parts in 2^70 wide (scaled down by 2^-drop to stay inside the doubles' range, widened by
 * one unit for the truncation); when both ends round to the same double, so does every point
 * between (rounding is monotonic), and scaling by 2^-(P - drop) is exact for a normal result.
 * Otherwise (a value next to a rounding boundary, a negative numerator, one past the
 * denominator, a tiny result) it is ratioToNumber's exact division. Returns the same double as
 * ratioToNumber, always.
 */
export function ratiosOver(denominator: bigint): Ratios {
  // Small denominators: ratioToNumber's one division of doubles is cheaper still.
  if (denominator <= 9007199254740991n) {
    return { of: (numerator) => ratioToNumber(numerator, denominator), scaled: () => 0n };
  }
  const bits = bitLength(denominator) + 72;
  const inverse = (1n << BigInt(bits)) / denominator;
  // n * inv < 2^bits for n <= d: at most 1000 bits once shifted, so Number() stays finite.
  const drop = Math.max(0, bits - 1000);
  const dropBits = BigInt(drop);
  const scale = 2 ** -(bits - drop);
  return {
    scaled: (numerator) => numerator * inverse,
    of: (numerator, scaled) => {
      if (numerator > 0n && numerator <= denominator) {
        const low = scaled ?? numerator * inverse;
        let value: number;
        let high: number;
        if (drop === 0) {
          value = Number(low);
          high = Number(low + numerator);
        } else {
          value = Number(low >> dropBits);
          high = Number(((low + numerator) >> dropBits) + 1n);
        }
        if (value === high) {
          const result = value * scale;
          if (result >= 2 ** -1020) return result;
        }
      }
      return ratioToNumber(numerator, denominator);
    },
  };
}

// Polynomials with non-negative BigInt coefficients: the counts of a distribution, index i
// standing for one outcome. Large products use Kronecker substitution: every coefficient goes
// into a fixed-width slot of one huge BigInt, so a whole convolution is one BigInt
// multiplication, which V8 does with sub-quadratic algorithms.

import { bitLength } from './exact.js';

/** Below this many coefficient products, the schoolbook loop beats packing. */
const SCHOOLBOOK_PRODUCTS = 4096;

function maxBits(poly: readonly bigint[]): number {
  let max = 0n;
  for (const c of poly) if (c > max) max = c;
  return bitLength(max);
}

/** Slot width in hex digits that holds every coefficient of a product of the two. */
function slotDigits(aBits: number, bBits: number, terms: number): number {
  return Math.ceil((aBits + bBits + bitLength(BigInt(terms)) + 1) / 4);
}

/** Packs coefficients into one BigInt, `digits` hex digits per slot, index 0 in the lowest slot. */
export function pack(poly: readonly bigint[], digits: number): bigint {
  return packRange(poly, 0, poly.length, BigInt(digits * 4));
}

/** Halves packed separately and joined by one shift: linear work per level, no strings. */
function packRange(poly: readonly bigint[], from: number, to: number, slotBits: bigint): bigint {
  if (to - from <= 8) {
    let packed = 0n;
    for (let i = to - 1; i >= from; i--) packed = (packed << slotBits) | poly[i]!;
    return packed;
  }
  const middle = (from + to) >> 1;
  const low = packRange(poly, from, middle, slotBits);
  const high = packRange(poly, middle, to, slotBits);
  return (high << (BigInt(middle - from) * slotBits)) | low;
}

/** The inverse of pack: `length` coefficients of `digits` hex digits each. */
export function unpack(packed: bigint, digits: number, length: number): bigint[] {
  const slotBits = BigInt(digits * 4);
  if (packed >> (BigInt(length) * slotBits) !== 0n) throw new RangeError('slot overflow');
  const result: bigint[] = new Array(length);
  unpackRange(packed, 0, length, slotBits, result);
  return result;
}

function unpackRange(packed: bigint, from: number, to: number, slotBits: bigint, out: bigint[]): void {
  if (to - from <= 8) {
    const bits = Number(slotBits);
    let rest = packed;
    for (let i = from; i < to; i++) {
      out[i] = BigInt.asUintN(bits, rest);
      rest >>= slotBits;
    }
    return;
  }
  const middle = (from + to) >> 1;
  const shift = BigInt(middle - from) * slotBits;
  unpackRange(BigInt.asUintN(Number(shift), packed), from, middle, slotBits, out);
  unpackRange(packed >> shift, middle, to, slotBits, out);
}

/** The product of two polynomials (the distribution of a sum of two independent parts). */
export function multiply(a: readonly bigint[], b: readonly bigint[]): bigint[] {
  if (a.length === 0 || b.length === 0) return [];
  const length = a.length + b.length - 1;
  if (a.length * b.length <= SCHOOLBOOK_PRODUCTS) {
    const result: bigint[] = new Array(length).fill(0n);
    for (let i = 0; i < a.length; i++) {
      const ai = a[i]!;
      if (ai === 0n) continue;
      for (let j = 0; j < b.length; j++) result[i + j] = result[i + j]! + ai * b[j]!;
    }
    return result;
  }
  const digits = slotDigits(maxBits(a), maxBits(b), Math.min(a.length, b.length));
  return unpack(pack(a, digits) * pack(b, digits), digits, length);
}

/** poly^n by repeated squaring (the distribution of the sum of n independent copies). */
export function power(poly: readonly bigint[], n: number): bigint[] {
  let result: bigint[] = [1n];
  let base: bigint[] = poly.slice();
  let rest = n;
  while (rest > 0) {
    if (rest & 1) result = multiply(result, base);
    rest >>= 1;
    if (rest > 0) base = multiply(base, base);
  }
  return result;
}

/** Sum of the coefficients. */
export function total(poly: readonly bigint[]): bigint {
  let sum = 0n;
  for (const c of poly) sum += c;
  return sum;
}

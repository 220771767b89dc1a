// Keep the k highest (or lowest) of n identical dice, exactly, without enumerating rolls: a
// dynamic program over the die's outcomes from the best down (icepool's method, Liu, "Icepool:
// Efficient Computation of Dice Pool Probabilities"). The state is how many dice have been
// placed so far (fewer than k) and the sum they keep; once k dice are placed the rest only
// need to be lower, which a closed binomial sum counts, so the work is about
// outcomes x k^2 operations on packed polynomials, not a walk over the n-dice multisets.
// Ties do not matter for a total: equal values kept in any order sum the same.

import type { DieCounts } from './die.js';
import { bitLength } from './exact.js';
import { unpack } from './poly.js';

/**
 * Distribution of the sum of the k kept dice of n (1 <= k < n), as counts over the values
 * `k * die.min + i`. A die in the die's tail (a chain deeper than the listing depth) counts as
 * higher than any listed value when `tailAbove` (the caller checks it): a roll that keeps one is
 * left out of the listing (its mass is the caller's tail); a roll that drops it is listed.
 */
export function keepDistribution(
  die: DieCounts,
  n: number,
  k: number,
  highest: boolean,
  tailAbove: boolean,
): { min: number; counts: bigint[] } {
  const maxIndex = die.counts.length - 1;
  // Positions count from the first outcome processed (the top one when keeping the highest), so
  // the packed sums start small and grow only as the walk goes on.
  const outcomes: Array<{ index: number; weight: bigint }> = [];
  for (let i = 0; i < die.counts.length; i++) {
    const weight = die.counts[i]!;
    if (weight !== 0n) outcomes.push({ index: highest ? maxIndex - i : i, weight });
  }
  if (highest) outcomes.reverse();
  const length = k * maxIndex + 1;
  // Slot width: every partial count is at most C(n, j) * denominator^j <= 2^n * denominator^n.
  const slotBits = 4 * Math.ceil((bitLength(die.denominator) * n + n + 8) / 4);
  const slot = BigInt(slotBits);
  // Below the current outcome in processing order: the later outcomes, plus (keeping the
  // lowest) the tail, whose dice are the highest and so may be dropped. When the tail's chains do
  // not all rank above the listed values, a roll with any die in the tail is left to the tail.
  let rest = highest || !tailAbove ? 0n : die.tail;
  for (const o of outcomes) rest += o.weight;

  // binomials[j][c] = C(n - j, c), c = 0..k.
  const binomials: bigint[][] = [];
  for (let j = 0; j < k; j++) {
    const row: bigint[] = [1n];
    for (let c = 1; c <= k; c++) row.push((row[c - 1]! * BigInt(n - j - c + 1)) / BigInt(c));
    binomials.push(row);
  }

  let placed: bigint[] = new Array<bigint>(k).fill(0n);
  placed[0] = 1n;
  let result = 0n;
  const weightPowers: bigint[] = new Array(k + 1);
  for (const { index, weight } of outcomes) {
    rest -= weight;
    const atMost = weight + rest;
    weightPowers[0] = 1n;
    for (let c = 1; c <= k; c++) weightPowers[c] = weightPowers[c - 1]! * weight;
    const next: bigint[] = new Array<bigint>(k).fill(0n);
    for (let j = 0; j < k; j++) {
      const state = placed[j]!;
      if (state === 0n) continue;
      const remaining = n - j;
      const row = binomials[j]!;
      // c more dice show this outcome, still fewer than k placed: all of them kept.
      let notFinished = 0n;
      for (let c = 0; c < k - j; c++) {
        const ways = row[c]! * weightPowers[c]!;
        next[j + c]! += c === 0 ? state : (state * ways) << (BigInt(c * index) * slot);
        notFinished += ways * rest ** BigInt(remaining - c);
      }
      // At least k - j more show it: k - j of them are kept, every other die is at most this.
      const finished = atMost ** BigInt(remaining) - notFinished;
      if (finished !== 0n) result += (state * finished) << (BigInt((k - j) * index) * slot);
    }
    placed = next;
  }
  const counts = unpack(result, slotBits / 4, length);
  return { min: k * die.min, counts: highest ? counts.reverse() : counts };
}

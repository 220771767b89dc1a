// Chi-square tests, the one implementation every test uses: the survival function and the
// critical value at a given alpha (1e-6 throughout: it detects a byte % 6 bias and almost never
// fails a fair source), the roller against an exact distribution, and two samples against each
// other (fairdice against a peer engine).

import { expect } from 'vitest';
import { prepareRoll } from '../../src/formula/index.js';
import { rollPrepared } from '../../src/roll/roll.js';
import type { RollRequest } from '../../src/roll/types.js';
import { distribution } from '../../src/stats/distribution.js';

export const ALPHA = 1e-6;

/** ln Γ(z) by Lanczos (g = 7, n = 9): about 15 significant digits for z > 0. */
function lnGamma(z: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const x = z - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Regularized upper incomplete gamma Q(a, x) (series below a+1, continued fraction above). */
function gammaQ(a: number, x: number): number {
  const lnFront = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 10_000 && Math.abs(term) > Math.abs(sum) * 1e-16; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - sum * Math.exp(lnFront);
  }
  // Lentz's method.
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(lnFront) * h;
}

/** P(X >= x) for X chi-square with `dof` degrees of freedom. */
export const chiSquareSurvival = (x: number, dof: number): number => gammaQ(dof / 2, x / 2);

/** The x with survival `alpha`, by bisection. */
export function chiSquareCritical(dof: number, alpha: number): number {
  let low = 0;
  let high = 10_000;
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2;
    if (chiSquareSurvival(mid, dof) > alpha) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** The chi-square statistic of observed counts against expected counts. */
export function chiSquareStatistic(observed: readonly number[], expected: readonly number[]): number {
  let statistic = 0;
  for (let i = 0; i < expected.length; i++) statistic += (observed[i]! - expected[i]!) ** 2 / expected[i]!;
  return statistic;
}

/**
 * The roller and the exact engine check each other: `rolls` rolls of `request` with the
 * production random source against its exact distribution (bins pooled until each expects at
 * least 5 rolls), so a wrong model on either side fails and a fair one almost never does.
 */
export function chiSquareAgainstExact(
  request: RollRequest,
  rolls = 100_000,
): { statistic: number; critical: number; bins: number } {
  const exact = distribution(request);
  const prepared = prepareRoll(request);
  const observed = new Map<number, number>();
  for (let i = 0; i < rolls; i++) {
    const { total } = rollPrepared(prepared);
    observed.set(total, (observed.get(total) ?? 0) + 1);
  }
  const listed = new Set(exact.outcomes.map((o) => o.total));
  const outside = [...observed.keys()].filter((t) => !listed.has(t));
  // Only the unlisted tail (below 1e-30) could hold another total.
  expect(outside).toEqual([]);
  const expected: number[] = [];
  const counted: number[] = [];
  let pending = { expected: 0, observed: 0 };
  for (const o of exact.outcomes) {
    pending.expected += o.probability * rolls;
    pending.observed += observed.get(o.total) ?? 0;
    if (pending.expected >= 5) {
      expected.push(pending.expected);
      counted.push(pending.observed);
      pending = { expected: 0, observed: 0 };
    }
  }
  expected[expected.length - 1]! += pending.expected;
  counted[counted.length - 1]! += pending.observed;
  return {
    statistic: chiSquareStatistic(counted, expected),
    critical: chiSquareCritical(expected.length - 1, ALPHA),
    bins: expected.length,
  };
}

/**
 * The p-value of the two-sample chi-square test that two equal-size samples come from one
 * distribution: adjacent values are pooled until each bin holds at least 20 of both samples.
 */
export function twoSampleP(a: readonly number[], b: readonly number[]): number {
  const counts = new Map<number, [number, number]>();
  for (const v of a) (counts.get(v) ?? counts.set(v, [0, 0]).get(v)!)[0]++;
  for (const v of b) (counts.get(v) ?? counts.set(v, [0, 0]).get(v)!)[1]++;
  const bins: Array<[number, number]> = [];
  let current: [number, number] = [0, 0];
  for (const value of [...counts.keys()].sort((x, y) => x - y)) {
    const [x, y] = counts.get(value)!;
    current[0] += x;
    current[1] += y;
    if (current[0] + current[1] >= 20) {
      bins.push(current);
      current = [0, 0];
    }
  }
  if (bins.length === 0) return 1;
  bins[bins.length - 1]![0] += current[0];
  bins[bins.length - 1]![1] += current[1];
  if (bins.length === 1) return 1;
  let statistic = 0;
  for (const [x, y] of bins) statistic += (x - y) ** 2 / (x + y);
  return chiSquareSurvival(statistic, bins.length - 1);
}

// The luck report's arithmetic: a roll's mid-P percentile under its exact
// distribution, the exact variance of that percentile, and the Z-test that dice are fair.
// Counts are exact integers over one denominator; only the final z and p are doubles.

import { fraction, ratioToNumber } from './exact.js';

/** One outcome of a distribution: its total and how many of `denominator` ways give it. */
export interface LuckOutcome {
  total: number;
  count: bigint;
}

/** u = P(X < x) + P(X = x)/2 exactly: `n/d` in lowest terms, and its nearest double. */
export function midPExact(
  outcomes: readonly LuckOutcome[],
  denominator: bigint,
  x: number,
): { exact: string; value: number } {
  let twice = 0n;
  for (const o of outcomes) {
    if (o.total < x) twice += 2n * o.count;
    else if (o.total === x) twice += o.count;
  }
  return { exact: fraction(twice, 2n * denominator), value: ratioToNumber(twice, 2n * denominator) };
}

/** u = P(X < x) + P(X = x)/2, as the nearest double of the exact value. */
export function midP(outcomes: readonly LuckOutcome[], denominator: bigint, x: number): number {
  return midPExact(outcomes, denominator, x).value;
}

/** Var(u) = (1 − Σ p_k³)/12, with Σ p_k³ summed exactly as Σ c_k³ / d³ (denominators of any size). */
export function midPVariance(outcomes: readonly LuckOutcome[], denominator: bigint): number {
  let cubes = 0n;
  for (const o of outcomes) cubes += o.count ** 3n;
  const d3 = denominator ** 3n;
  return ratioToNumber(d3 - cubes, 12n * d3);
}

/** Z = (Σu − n/2) / sqrt(Σ Var) and its two-sided p-value; null when nothing was rated. */
export function fairDiceTest(
  us: readonly number[],
  variances: readonly number[],
): { z: number; p: number } | null {
  const sumVar = variances.reduce((a, b) => a + b, 0);
  if (us.length === 0 || sumVar <= 0) return null;
  const z = (us.reduce((a, b) => a + b, 0) - us.length / 2) / Math.sqrt(sumVar);
  return { z, p: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}

/**
 * erfc to about 1e-14: the Maclaurin series of erf below 2 (terms at most e⁴, so little is lost
 * to cancellation), the continued fraction e^{-x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))
 * from 2 on, evaluated from its 200th term back.
 */
export function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = x;
  for (let k = 200; k >= 1; k--) f = x + k / 2 / f;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

// The roller and the engine check each other: `rolls` rolls with the production random source
// against the exact distribution, by a chi-square test at alpha = 1e-6 (bins pooled until each
// expects at least 5 rolls), so a wrong model on either side fails and a fair one almost never.
import { expect } from 'vitest';
import { prepareRoll } from '../../src/roll/prepare.js';
import { rollPrepared } from '../../src/roll/roll.js';
import type { RollRequest } from '../../src/roll/types.js';
import { distribution } from '../../src/stats/distribution.js';

/** Upper 1e-6 point of the standard normal. */
const Z = 4.753424;

/** Wilson-Hilferty: the chi-square critical value for `df` degrees of freedom at alpha 1e-6. */
const critical = (df: number) => df * (1 - 2 / (9 * df) + Z * Math.sqrt(2 / (9 * df))) ** 3;

export function chiSquare(
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
  const bins: Array<{ expected: number; observed: number }> = [];
  let current = { expected: 0, observed: 0 };
  for (const o of exact.outcomes) {
    current.expected += o.probability * rolls;
    current.observed += observed.get(o.total) ?? 0;
    if (current.expected >= 5) {
      bins.push(current);
      current = { expected: 0, observed: 0 };
    }
  }
  const last = bins[bins.length - 1]!;
  last.expected += current.expected;
  last.observed += current.observed;
  let statistic = 0;
  for (const bin of bins) statistic += (bin.observed - bin.expected) ** 2 / bin.expected;
  return { statistic, critical: critical(bins.length - 1), bins: bins.length };
}

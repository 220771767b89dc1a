// The roller and the engine check each other: 100,000 rolls with the production random source
// against the exact distribution, by a chi-square test at alpha = 1e-6 (bins pooled until each
// expects at least 5 rolls), so a wrong model on either side fails and a fair one almost never.
import { describe, expect, it } from 'vitest';
import { prepareRoll } from '../../src/roll/prepare.js';
import { rollPrepared } from '../../src/roll/roll.js';
import type { RollRequest } from '../../src/roll/types.js';
import { distribution } from '../../src/stats/distribution.js';

const ROLLS = 100_000;
/** Upper 1e-6 point of the standard normal. */
const Z = 4.753424;

/** Wilson-Hilferty: the chi-square critical value for `df` degrees of freedom at alpha 1e-6. */
const critical = (df: number) => df * (1 - 2 / (9 * df) + Z * Math.sqrt(2 / (9 * df))) ** 3;

function chiSquare(request: RollRequest): { statistic: number; critical: number; bins: number } {
  const exact = distribution(request);
  const prepared = prepareRoll(request);
  const observed = new Map<number, number>();
  for (let i = 0; i < ROLLS; i++) {
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
    current.expected += o.probability * ROLLS;
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

describe('the real roller against the exact distribution', () => {
  it.each([
    { formula: '5d10!kh3' },
    { formula: '4d6r1dl1+1d12-2d6!p' },
    { formula: '8d4!' },
    { formula: '6d6ro<3kl4x2' },
    { formula: '10d6dh3-1d4x3' },
    { formula: '1d20+3', advantage: 'disadvantage', bonuses: ['1d4!', 2] },
    { formula: '6d10>=8f1' },
    { formula: '5d10!>=9' },
    { formula: '3d6!!' },
    { formula: '4dF+2d6min3' },
    { formula: '{4d6+3d8}kh3' },
    { formula: '4d10dh1dl2' },
    { formula: '4d10!>=9kh2>=8f1' },
    { formula: '3d{1,1,2,3,5,8}!!p>=5' },
  ] satisfies RollRequest[])('$formula', (request) => {
    const { statistic, critical: limit, bins } = chiSquare(request);
    expect(bins).toBeGreaterThan(5);
    expect(statistic).toBeLessThan(limit);
  });
});

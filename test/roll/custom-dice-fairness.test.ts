// Fairness of Fate and custom dice through the whole engine (chi-square, alpha 1e-6): Fate
// dice, and a custom die with a repeated face, whose values must come up in proportion to how
// often each is listed.

import { describe, expect, it } from 'vitest';
import { roll } from '../../src/index.js';
import { ALPHA, chiSquareCritical, chiSquareStatistic } from '../support/chi-square.js';

/** Rolls `formula` `rolls` times with the real source and counts each recorded value. */
function valueCounts(formula: string, rolls: number, values: readonly number[]): number[] {
  const counts = new Map<number, number>(values.map((v) => [v, 0]));
  const strangers: number[] = [];
  for (let i = 0; i < rolls; i++) {
    for (const value of roll({ formula }).dice[0]!.results) {
      const seen = counts.get(value);
      if (seen === undefined) strangers.push(value);
      else counts.set(value, seen + 1);
    }
  }
  expect(strangers, 'every value is one of the faces').toEqual([]);
  return values.map((v) => counts.get(v)!);
}

describe('fairness of Fate and custom dice (chi-square, alpha 1e-6)', () => {
  it('dF: -1, 0 and +1 equally likely over 1,000,000 dice', () => {
    const counts = valueCounts('1000dF', 1000, [-1, 0, 1]);
    const statistic = chiSquareStatistic(counts, [1e6 / 3, 1e6 / 3, 1e6 / 3]);
    expect(statistic).toBeLessThan(chiSquareCritical(2, ALPHA));
  });

  it('d{1,1,2,3,5,8}: 1 twice as likely as each other face over 600,000 dice', () => {
    const dice = 600_000;
    const counts = valueCounts('1000d{1,1,2,3,5,8}', dice / 1000, [1, 2, 3, 5, 8]);
    const expected = [2, 1, 1, 1, 1].map((share) => (dice * share) / 6);
    expect(chiSquareStatistic(counts, expected)).toBeLessThan(chiSquareCritical(4, ALPHA));
  });

  it('the test would see a custom die that ignored repeats', () => {
    // Faces 1, 2, 3, 5, 8 equally likely (the repeat of 1 lost): far outside the critical value.
    const dice = 600_000;
    const uniform = [1, 1, 1, 1, 1].map(() => dice / 5);
    const expected = [2, 1, 1, 1, 1].map((share) => (dice * share) / 6);
    expect(chiSquareStatistic(uniform, expected)).toBeGreaterThan(chiSquareCritical(4, ALPHA));
  });
});

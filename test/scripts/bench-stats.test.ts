// The stats bench's arithmetic and report (the timing itself is never asserted).
import { describe, expect, it } from 'vitest';
import {
  formatStatsBench,
  STATS_EXPRESSION_FORMULAS,
  STATS_QUESTIONS,
  STATS_TARGET_FORMULAS,
  statsRow,
} from '../../scripts/bench-stats.js';

describe('bench:stats', () => {
  it('the ratio is exact over sampling, medians of the rounds, against 1/10', () => {
    expect(statsRow('4d6kh3', [1, 3, 2], [100, 10, 30])).toMatchObject({
      exactMs: 2,
      samplingMs: 30,
      meetsTarget: true,
    });
    expect(statsRow('8d6!', [8], [50]).meetsTarget).toBe(false);
    expect(statsRow('1000d6', [300], null)).toEqual({
      formula: '1000d6',
      exactMs: 300,
      samplingMs: null,
      ratio: null,
      meetsTarget: null,
    });
  });

  it('covers the formulas with a target and reports each verdict', () => {
    expect(STATS_TARGET_FORMULAS).toEqual([
      '4d6kh3',
      '10d10kh3',
      '100d6',
      '2d20adv+5',
      '5d10!kh3',
      '8d6!',
      '6d10>=8f1',
    ]);
    expect(STATS_EXPRESSION_FORMULAS).toEqual(['(1d8+4)*2', '{1d20+5,1d20+3}kh1', '2d10/d20']);
    // Every question of docs/stats.md: versus, targets, moments below the depth, a batch of 5.
    const asked = STATS_QUESTIONS.flatMap((q) => q.requests);
    expect(asked.some((r) => r.versus !== undefined)).toBe(true);
    expect(asked.some((r) => r.targets?.length === 20)).toBe(true);
    expect(asked.some((r) => r.depth !== undefined && r.formula.includes('!'))).toBe(true);
    expect(STATS_QUESTIONS.some((q) => q.requests.length === 5)).toBe(true);
    // Labels fit the report's column.
    for (const q of STATS_QUESTIONS) expect(q.label.length).toBeLessThanOrEqual(20);
    const text = formatStatsBench(
      [statsRow('4d6kh3', [0.1], [40]), statsRow('8d6!', [8], [50]), statsRow('1000d6', [300], null)],
      100_000,
    );
    expect(text).toMatch(/^4d6kh3 .* met$/m);
    expect(text).toMatch(/^8d6! .* MISSED$/m);
    expect(text).toMatch(/^1000d6 .* \(absolute\)$/m);
  });
});

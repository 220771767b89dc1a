// The line of the stats tool, from an exact distribution: mean, spread, range, percentiles, and
// with a target the chance of rolling at least it.
import { describe, expect, it } from 'vitest';
import { percentOf, type StatsSummary, statsLine } from '../../src/mcp/lines.js';

/** 2d6, exactly: P(total = t) = (6 - |t - 7|) / 36. */
function twoD6(): StatsSummary {
  const totals = Array.from({ length: 11 }, (_, i) => i + 2);
  const ways = (t: number) => 6 - Math.abs(t - 7);
  return {
    formula: '2d6',
    advantageState: 'normal',
    min: 2,
    max: 12,
    mean: 7,
    sd: Math.sqrt(35 / 6),
    outcomes: totals.map((total) => ({
      total,
      atLeast: totals.filter((t) => t >= total).reduce((sum, t) => sum + ways(t), 0) / 36,
    })),
    percentiles: { 5: 3, 25: 5, 50: 7, 75: 9, 95: 11 },
  };
}

describe('the stats line', () => {
  it('gives the mean, the spread, the range and the percentiles', () => {
    expect(statsLine(twoD6(), {})).toBe(
      '2d6 → mean 7, sd 2.42, 2 to 12; percentiles 5% 3, 25% 5, 50% 7, 75% 9, 95% 11',
    );
  });

  it.each([
    [10, '16.67%'],
    [12, '2.78%'],
    [2, '100%'],
    [-5, '100%'],
    [13, '0%'],
  ])('with target %i, the chance of at least it: %s', (target, percent) => {
    expect(statsLine(twoD6(), { target })).toMatch(
      new RegExp(`; at least ${target}: ${percent.replace('.', '\\.')}$`),
    );
  });

  it('a total between listed ones takes the next listed total; unlisted outcomes say so', () => {
    const gappy: StatsSummary = {
      ...twoD6(),
      formula: '1d6x10',
      min: 10,
      max: 60,
      outcomes: [10, 20, 30, 40, 50, 60].map((total, i) => ({ total, atLeast: (6 - i) / 6 })),
    };
    expect(statsLine(gappy, { target: 35 })).toMatch(/at least 35: 50\.00%$/);
    expect(statsLine({ ...twoD6(), outcomes: [], percentiles: null }, { target: 7 })).toBe(
      '2d6 → mean 7, sd 2.42, 2 to 12; at least 7: not listed (too many totals)',
    );
  });

  it('never rounds a possible outcome to 0% or 100%, nor writes e-notation', () => {
    expect(percentOf(1e-9)).toBe('< 0.0001%');
    expect(percentOf(1 - 1e-5)).toBe('99.9990%');
    expect(percentOf(1 - 1e-12)).toBe('> 99.9999%');
    expect(percentOf(0.5)).toBe('50.00%');
    const tiny = {
      ...twoD6(),
      outcomes: [
        { total: 2, atLeast: 1 },
        { total: 12, atLeast: 3e-9 },
      ],
    };
    expect(statsLine(tiny, { target: 12 })).toMatch(/at least 12: < 0\.0001%$/);
  });
});

describe('the stats line with versus and targets (docs/mcp.md)', () => {
  it('puts the opposed roll first, exact as the engine counts it, and each target after', async () => {
    const { distribution } = await import('../../src/stats/distribution.js');
    const answer = distribution({ formula: '1d20+7', targets: [15], versus: { formula: '1d20+5' } });
    const line = statsLine(answer, {});
    // 229 of the 400 pairs beat, 18 tie, 153 lose (counted in test/stats/odds.test.ts).
    expect(line).toMatch(
      /^1d20\+7 beats 1d20\+5: 57\.25%, ties 4\.50% \(loses 38\.25%\); 1d20\+7 → mean 17\.5/,
    );
    expect(line).toMatch(/; at least 15: 65\.00%, at most 15: 40\.00%$/);
    const advantaged = distribution({ formula: '1d20', versus: { formula: '1d20', advantage: 'advantage' } });
    // P(a > max(b1, b2)) = sum over v of (2v - 1)/400 * (20 - v)/20 = 2470/8000; a tie is 1/20.
    expect(statsLine(advantaged, {})).toMatch(/^1d20 beats 1d20 with advantage: 30\.88%, ties 5\.00%/);
  });
});

// The real roller against the exact distribution of formulas with arithmetic and groups:
// 100,000 rolls per formula with the production random source, a chi-square test at alpha = 1e-6
// (test/support/chi-square.ts). {3d6, 3d6, 3d6}>=10 has only four totals, so four bins.
import { describe, expect, it } from 'vitest';
import { chiSquareAgainstExact } from '../support/chi-square.js';

describe('the real roller against the engine, 100,000 rolls at alpha 1e-6', () => {
  it.each([
    '(1d8+4)*2',
    '2d10/d20',
    '{1d20+5, 1d20+3}kh1',
    '{3d6, 3d6, 3d6}>=10',
    '1d6^2',
    '1d20%7',
    'floor(8d6/2)+max(1d6!, 3)',
    '{1d8!, 1d6!}kh1',
    '(4-2)d10+3d(2*6)',
  ])('%s', (formula) => {
    const { statistic, critical, bins } = chiSquareAgainstExact({ formula });
    expect(bins).toBeGreaterThanOrEqual(4);
    expect(statistic).toBeLessThan(critical);
  });
});

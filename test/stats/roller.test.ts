// The roller and the engine check each other on dice terms: 100,000 real rolls
// against the exact distribution at alpha = 1e-6 (test/support/chi-square.ts).
import { describe, expect, it } from 'vitest';
import type { RollRequest } from '../../src/roll/types.js';
import { chiSquareAgainstExact } from '../support/chi-square.js';

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
    const { statistic, critical: limit, bins } = chiSquareAgainstExact(request);
    expect(bins).toBeGreaterThan(5);
    expect(statistic).toBeLessThan(limit);
  });
});

// /v1/stats and the language's Part C (docs/language.md): every Part C form is answered exactly
// or refused with the reason, never answered wrongly.

import { describe, expect, it } from 'vitest';
import { distribution } from '../../src/stats/distribution.js';

describe('Part C forms in /v1/stats', () => {
  it('bare dN is dlN, answered exactly as dlN is', () => {
    expect(distribution({ formula: '4d6d1' })).toEqual({
      ...distribution({ formula: '4d6dl1' }),
      formula: '4d6d1',
    });
  });

  it.each([
    ['1d6^2', '1d6*1d6', false],
    ['1d6**2', '1d6^2', true],
    ['1d20%7', '1d20', false],
    ['(4-2)d10', '2d10', true],
    ['3d(2*6)', '3d12', true],
  ])(
    '%s is answered exactly (test/stats/expression.test.ts enumerates every roll)',
    (formula, other, same) => {
      const d = distribution({ formula });
      expect(d.listing).toBe('full');
      const otherOutcomes = distribution({ formula: other }).outcomes;
      if (same) expect(d.outcomes).toEqual(otherOutcomes);
      else expect(d.outcomes).not.toEqual(otherOutcomes);
    },
  );

  it('dice in a divisor: 2d10/d20 is answered exactly', () => {
    const d = distribution({ formula: '2d10/d20' });
    expect(d.denominator).toBe('2000');
    expect(d.outcomes.reduce((sum, o) => sum + BigInt(o.count!), 0n)).toBe(2000n);
  });

  it.each(['4d10dh1dl2', '1d6r<>6', '6d10<>1', '2d6!<>4', '2d6!!p'])('%s is answered exactly', (formula) => {
    const d = distribution({ formula });
    expect(d.listing).toBe('full');
    const listed = d.outcomes.reduce((a, o) => a + BigInt(o.count!), 0n);
    const [n, den] = (d.truncation?.tailExact ?? '0/1').split('/').map(BigInt) as [bigint, bigint];
    // Listed counts and the tail make up the whole.
    expect(listed * den + n * BigInt(d.denominator!)).toBe(BigInt(d.denominator!) * den);
  });

  it('20d6m is answered: m never changes the total (test/stats/second-edition.test.ts)', () => {
    expect(distribution({ formula: '20d6m' }).outcomes).toEqual(distribution({ formula: '20d6' }).outcomes);
  });

  it.each(['4d6u', '4d6uo<3', '20d6mt'])('%s is refused with the reason', (formula) => {
    expect(() => distribution({ formula })).toThrow(
      /(Unique dice|Matching sets) .* are not computed by \/v1\/stats/,
    );
  });
});

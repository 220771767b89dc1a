// /v1/stats and the language's Part C (docs/language.md): every Part C form is answered exactly
// or refused as not yet supported, never answered wrongly.

import { describe, expect, it } from 'vitest';
import { FormulaError } from '../../src/index.js';
import { distribution } from '../../src/stats/distribution.js';

describe('Part C forms in /v1/stats', () => {
  it('bare dN is dlN, answered exactly as dlN is', () => {
    expect(distribution({ formula: '4d6d1' })).toEqual({
      ...distribution({ formula: '4d6dl1' }),
      formula: '4d6d1',
    });
  });

  it.each(['4d10dh1dl2', '1d6r<>6', '6d10<>1', '2d6!<>4', '2d6!!p'])('%s is answered exactly', (formula) => {
    const d = distribution({ formula });
    expect(d.listing).toBe('full');
    const listed = d.outcomes.reduce((a, o) => a + BigInt(o.count!), 0n);
    const [n, den] = (d.truncation?.tailExact ?? '0/1').split('/').map(BigInt) as [bigint, bigint];
    // Listed counts and the tail make up the whole.
    expect(listed * den + n * BigInt(d.denominator!)).toBe(BigInt(d.denominator!) * den);
  });

  it.each(['4d6u', '4d6uo<3', '20d6m', '20d6mt'])('%s is refused with the reason', (formula) => {
    expect(() => distribution({ formula })).toThrow(
      /(Unique dice|Matching sets) .* are not computed by \/v1\/stats/,
    );
  });

  it.each(['1d6^2', '1d6**2', '1d20%7', '2d10/d20', '(4-2)d10', '3d(2*6)'])(
    '%s is refused as not yet supported',
    (formula) => {
      let error: unknown;
      try {
        distribution({ formula });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(FormulaError);
      expect((error as FormulaError).message).toMatch(/not yet supported by \/v1\/stats/);
    },
  );
});

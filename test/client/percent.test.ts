// The one way every face writes a probability as a percentage (packages/client/src/odds.ts): the
// page, MCP lines and Discord. Never a rounded 0% or 100% for a chance that is neither, never
// e-notation however small or near certain.
import { describe, expect, it } from 'vitest';
import { percentText } from '../../packages/client/src/odds.js';

describe('percentText', () => {
  it.each([
    [0, '0%', '0%'],
    [Number.MIN_VALUE, '< 0.0001%', '< 0.0001%'],
    [1e-9, '< 0.0001%', '< 0.0001%'],
    [9.99e-7, '< 0.0001%', '< 0.0001%'],
    // 0.0001 %, the boundary: from here on, the figure.
    [1e-6, '0.00010%', '0.00010%'],
    [1.234e-5, '0.0012%', '0.0012%'],
    [0.0123, '1.2%', '1.23%'],
    [0.5, '50.0%', '50.00%'],
    [0.9997, '99.970%', '99.970%'],
    [1 - 1e-5, '99.9990%', '99.9990%'],
    [1 - 1e-6, '99.99990%', '99.99990%'],
    [1 - 1e-9, '> 99.9999%', '> 99.9999%'],
    [1 - Number.EPSILON, '> 99.9999%', '> 99.9999%'],
    [1, '100%', '100%'],
  ])('writes %s as %s (with two decimals: %s)', (p, shown, quoted) => {
    expect(percentText(p)).toBe(shown);
    expect(percentText(p, 2)).toBe(quoted);
  });

  it('never writes e-notation, nor 0% or 100% for a chance strictly between', () => {
    const chances = Array.from({ length: 320 }, (_, k) => 10 ** -(k / 10)).flatMap((p) => [p, 1 - p]);
    for (const p of chances) {
      for (const text of [percentText(p), percentText(p, 2)]) {
        expect(text, String(p)).toMatch(/^(< |> )?\d+(\.\d+)?%$/);
        if (p > 0 && p < 1) expect(text, String(p)).not.toMatch(/^(0(\.0+)?|100(\.0+)?)%$/);
      }
    }
  });
});

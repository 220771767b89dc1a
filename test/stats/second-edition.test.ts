// The second edition's dice terms (docs/stats.md): custom and Fate faces, clamps, compare-point
// and compounding explosions, <> points, success and failure counting, crit ranges, several
// keep/drops in one term and pool groups, each checked count for count against every roll the
// real roller can make (test/stats/enumerate.ts), and by known tables.

import { describe, expect, it } from 'vitest';
import { prepareRoll } from '../../src/formula/index.js';
import { distribution } from '../../src/stats/distribution.js';
import { expectExactAs } from './enumerate.js';

/** Sums (every die counts): a deep die is always kept, so only kept deep dice go to the tail. */
function sums(): string[] {
  const out: string[] = [];
  const dice = ['d3', 'd4', 'dF', 'd{0,2,2}', 'd{-1,3}'];
  const modifiers = [
    '',
    'min2',
    'max2',
    'min0max1',
    'cs>=3',
    'cf2',
    'r1',
    'ro<>3',
    '!>=3',
    '!<2',
    '!=2',
    '!!',
    '!!p',
    '!!>=3',
    '!p>=3',
    '>=2',
    '>=3f1',
    '<>2',
    '=1f=3',
    '!>=3>=3f1',
    '!!>=3>=4',
    'min2!>=3',
    'ro1!',
  ];
  for (const die of dice) {
    for (const modifier of modifiers) {
      for (const count of [1, 2, 3]) {
        if (count === 3 && (modifier.includes('!') || modifier.startsWith('r'))) continue;
        const formula = `${count}${die}${modifier}`;
        // Forms the language refuses for this die (a clamp outside its faces, a point every face meets).
        try {
          prepareRoll({ formula });
        } catch {
          continue;
        }
        out.push(formula);
      }
    }
  }
  return out;
}

/** Keep/drop of non-classic dice, several keeps, pools: a roll with any deep die is the tail. */
const SELECTIONS = [
  '3d4dh1dl1',
  '3d4kh2kl1',
  '3d4dl1dh2',
  '3d3kh2dh1',
  '3dFkh2',
  '3d{0,2,2}kh2',
  '2d{-1,3}!>=3kl1',
  '2d4!>=3kh1',
  '2d4min2kl1',
  '3d4>=3kh2',
  '3d4>=3f1dl1',
  '2d4!>=3>=3kh1',
  '2d3!>=2kh1>=3',
  '2d4!!kh1>=4',
  '2d4!!>=3kh1',
  '{2d3+1d4}kh2',
  '{1d3!+1d4}kl1',
  '{1d4+1dF}kh1',
  '{2d3+1d3}>=2',
  '{2d3+1d3}>=2f1',
  '{2d4!>=3+1d3}kh2',
  '{1d3x2+2d3}dl1',
  '{2d3}dh1+1d4',
  '{1d4+1d3}kh1+{2d3}kl1-2',
];

describe('exhaustive enumeration of second-edition terms through the real roller', () => {
  const cases = sums();
  it(`every generated sum (${cases.length}) matches count for count`, () => {
    let rolls = 0;
    for (const formula of cases) {
      const depth = formula.includes('!') ? 2 : 0;
      try {
        rolls += expectExactAs({ formula }, depth, false).rolls;
      } catch (error) {
        throw new Error(`${formula} depth ${depth}: ${(error as Error).message}`);
      }
    }
    expect(rolls).toBeGreaterThan(5_000);
  });

  it(`every keep/drop, several keeps and pool group (${SELECTIONS.length}) matches count for count`, () => {
    for (const formula of SELECTIONS) {
      for (const depth of formula.includes('!') ? [1, 2] : [0]) {
        try {
          expectExactAs({ formula }, depth, true);
        } catch (error) {
          throw new Error(`${formula} depth ${depth}: ${(error as Error).message}`);
        }
      }
    }
  });

  it('compounding on the top face keeps and drops as whole chains (a dropped deep die is listed)', () => {
    for (const formula of ['2d3!!kh1', '3d3!!pkl2', '2d4!!dl1', '{2d3!!+1d4}kh1']) {
      const anyDeep = formula.startsWith('{');
      for (const depth of [1, 2]) {
        try {
          expectExactAs({ formula }, depth, anyDeep);
        } catch (error) {
          throw new Error(`${formula} depth ${depth}: ${(error as Error).message}`);
        }
      }
    }
  });

  it('depth 100 on a compare-point explosion is the whole distribution', () => {
    const d = distribution({ formula: '1d3!>=2', depth: 100 });
    expect(d.truncation).toBeNull();
    const sum = d.outcomes.reduce((a, o) => a + BigInt(o.count!), 0n);
    expect(sum).toBe(BigInt(d.denominator!));
    // The longest chain: 100 extras, each a 2 or a 3 but the last any face.
    expect(d.max).toBe(3 + 100 * 3);
  });
});

describe('known values', () => {
  it('4dF: the Fate distribution over 81', () => {
    const d = distribution({ formula: '4dF' });
    expect(d.denominator).toBe('81');
    expect(d.outcomes.map((o) => [o.total, Number(o.count)])).toEqual([
      [-4, 1],
      [-3, 4],
      [-2, 10],
      [-1, 16],
      [0, 19],
      [1, 16],
      [2, 10],
      [3, 4],
      [4, 1],
    ]);
  });

  it('6d10>=8f1: successes minus failures, mean 6 * (3 - 1) / 10', () => {
    const d = distribution({ formula: '6d10>=8f1' });
    expect(d.meanExact).toBe('6/5');
    expect(d.min).toBe(-6);
    expect(d.max).toBe(6);
    // All six succeed: (3/10)^6.
    expect(d.outcomes.at(-1)!.probability).toBe(3 ** 6 / 10 ** 6);
  });

  it('2d6min3: a clamp moves the low faces up', () => {
    const d = distribution({ formula: '1d6min3' });
    expect(d.outcomes.map((o) => [o.total, Number(o.count)])).toEqual([
      [3, 3],
      [4, 1],
      [5, 1],
      [6, 1],
    ]);
  });

  it('3d6!! sums as 3d6! does; compounding differs only when results are counted', () => {
    const compound = distribution({ formula: '3d6!!' });
    const explode = distribution({ formula: '3d6!' });
    expect(compound.outcomes).toEqual(explode.outcomes);
    // d6!!=6>=6: one result per die; d6!=6>=6: every 6 of the chain is a success.
    expect(distribution({ formula: '1d6!!=6>=6' }).max).toBe(1);
    expect(distribution({ formula: '1d6!=6>=6' }).max).toBeGreaterThan(30);
  });

  it('crit ranges change no total', () => {
    expect(distribution({ formula: '2d20cs>=19cf<=2' }).outcomes).toEqual(
      distribution({ formula: '2d20' }).outcomes,
    );
  });

  it('a pool keeps across its terms: {1d6+1d6}kh1 is 2d6kh1', () => {
    expect(distribution({ formula: '{1d6+1d6}kh1' }).outcomes).toEqual(
      distribution({ formula: '2d6kh1' }).outcomes,
    );
  });

  it('unique dice and matching sets as the total are refused with their reason', () => {
    expect(() => distribution({ formula: '4d6u' })).toThrow(/Unique dice/);
    expect(() => distribution({ formula: '20d6mt' })).toThrow(/Matching sets as the total \(mt\)/);
  });

  it('m lists matching sets and leaves the total alone: 20d6m is 20d6 count for count', () => {
    for (const [withSets, plain] of [
      ['20d6m', '20d6'],
      ['8d6m3', '8d6'],
      ['6d6kh4m', '6d6kh4'],
      ['6d6m3x2', '6d6x2'],
      ['4d6!m', '4d6!'],
      ['{3d6m, 2d8}kh1', '{3d6, 2d8}kh1'],
    ] as const) {
      const d = distribution({ formula: withSets });
      expect(d, withSets).toEqual({ ...distribution({ formula: plain }), formula: withSets });
    }
  });

  it('m through the real roller: every roll of a few small pools, count for count', () => {
    for (const formula of ['3d4m', '3d3m3', '3d4kh2m', '2d3!m', '3d4>=3m']) {
      for (const depth of formula.includes('!') ? [1, 2] : [0]) {
        try {
          expectExactAs({ formula }, depth, false);
        } catch (error) {
          throw new Error(`${formula} depth ${depth}: ${(error as Error).message}`);
        }
      }
    }
  });
});

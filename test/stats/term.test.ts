// One dice term as an exact distribution (src/stats/term.ts, docs/stats.md): its functions on
// known values, then every kind of die: custom and Fate faces, clamps, compare-point and
// compounding explosions, <> points, success and failure counting, crit ranges, several
// keep/drops in one term and pool groups, each checked count for count against every roll the
// real roller can make (test/stats/enumerate.ts), and by known tables; what is refused, with why.

import { describe, expect, it } from 'vitest';
import { FormulaError, TooComplexError } from '../../src/errors.js';
import { type GroupPlan, prepareRoll } from '../../src/formula/index.js';
import { distribution } from '../../src/stats/distribution.js';
import {
  addDistributions,
  addLowest,
  autoDepth,
  checkTerm,
  estimateCost,
  formatCost,
  listedSupport,
  lowest,
  poolDistribution,
  scaleDistribution,
  type TermDistribution,
  termBounds,
  termDistribution,
  termExplodes,
  termSelects,
  termSummary,
  trimDistribution,
} from '../../src/stats/term.js';
import { expectExactAs } from './enumerate.js';

/** The plans of a formula's dice terms. */
const plans = (formula: string): readonly GroupPlan[] => prepareRoll({ formula }).groups;
const plan = (formula: string): GroupPlan => plans(formula)[0]!;
const counts = (values: readonly number[]): bigint[] => values.map(BigInt);

describe('one term', () => {
  it('termDistribution: 2d6 over 36, triangular', () => {
    expect(termDistribution(plan('2d6'), 0)).toEqual({
      min: 2,
      step: 1,
      counts: counts([1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]),
      tail: 0n,
      denominator: 36n,
    });
  });

  it('termDistribution: sign and multiplier scale the values, -1d4x3 on a step of 3', () => {
    expect(termDistribution(plans('1d6-1d4x3')[1]!, 0)).toEqual({
      min: -12,
      step: 3,
      counts: counts([1, 1, 1, 1]),
      tail: 0n,
      denominator: 4n,
    });
  });

  it('termDistribution: 1d6! to depth 1 lists one extra; a second 6 is the tail', () => {
    // Faces 1-5 weigh 6 (over 36); a 6 then 1-5 weighs 1 each; 6 alone is never a value.
    expect(termDistribution(plan('1d6!'), 1)).toEqual({
      min: 1,
      step: 1,
      counts: counts([6, 6, 6, 6, 6, 0, 1, 1, 1, 1, 1]),
      tail: 1n,
      denominator: 36n,
    });
  });

  it('checkTerm: unique dice and mt are refused with their reason, a die too large for its rules too', () => {
    expect(() => checkTerm(plan('2d6!>=5kh1'))).not.toThrow();
    expect(() => checkTerm(plan('4d6u'))).toThrow(FormulaError);
    expect(() => checkTerm(plan('4d6u'))).toThrow(/^formula: Unique dice \(u, uo\) are not computed/);
    expect(() => checkTerm(plan('4d6mt'))).toThrow(/^formula: Matching sets as the total \(mt\)/);
    expect(() => checkTerm(plan('4d6m'))).not.toThrow();
    expect(() => checkTerm(plan('1d20000'))).not.toThrow();
    expect(() => checkTerm(plan('1d20000min2'))).toThrow(TooComplexError);
    expect(() => checkTerm(plan('1d20000min2'))).toThrow(/A die of more than 10000 sides/);
  });

  it('termSelects: some dice kept, several keeps or a pool; termExplodes: a kept die explodes', () => {
    expect(['4d6', '4d6kh4', '4d6kh3', '4d10dh1dl2', '2d20adv'].map((f) => termSelects(plan(f)))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(termSelects(plan('{2d6}kh1'))).toBe(true);
    expect(['2d6', '2d6!', '2d6!!', '2d6r1'].map((f) => termExplodes(plan(f)))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it('addLowest: the sum of two fractions in lowest terms equals the sum reduced by its whole gcd', () => {
    let seed = 7;
    const next = (): bigint => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return BigInt(seed);
    };
    const fractions: Array<[bigint, bigint]> = [
      [0n, 1n],
      [5n, 1n],
      [-7n, 3n],
      [7n, 3n],
      [21n, 2n],
      [10n ** 40n + 1n, 2n ** 60n * 5n ** 30n],
    ];
    for (let i = 0; i < 60; i++) {
      const shared = [1n, 2n ** 40n, 10n ** 20n, 6n][i % 4]!;
      fractions.push(lowest((next() - 2n ** 30n) * next() * next(), shared * (next() + 1n)));
    }
    for (const [aN, aD] of fractions) {
      for (const [bN, bD] of fractions.slice(0, 20)) {
        expect(addLowest(aN, aD, bN, bD)).toEqual(lowest(aN * bD + bN * aD, aD * bD));
      }
    }
  });

  it('termSummary: exact mean and variance without listing', () => {
    // 3d6: mean 3 * 7/2, variance 3 * 35/12.
    expect(termSummary(plan('3d6'))).toEqual({ min: 3, max: 18, meanN: 21n, meanD: 2n, varN: 35n, varD: 4n });
    // A Fate die: mean 0, variance 2/3.
    expect(termSummary(plan('4dF'))).toEqual({ min: -4, max: 4, meanN: 0n, meanD: 1n, varN: 8n, varD: 3n });
    expect(() => termSummary(plan('4d6kh3'))).toThrow(RangeError);
  });

  it('autoDepth: the least depth whose unlisted mass is below 1e-30', () => {
    expect(autoDepth(plans('2d6'))).toBe(0);
    // n (1/6)^(depth + 1) < 1e-30: depth 38 for one die, 39 for three.
    expect(autoDepth(plans('1d6!'))).toBe(38);
    expect(autoDepth(plans('3d6!'))).toBe(39);
  });

  it("listedSupport: the totals a listing could have, on the terms' common step", () => {
    expect(listedSupport(plans('2d6'), 0)).toBe(11);
    expect(listedSupport(plans('1d6x3'), 0)).toBe(6);
    expect(listedSupport(plans('2d6+1d4x2'), 0)).toBe(17);
  });

  it('termBounds: least and greatest listed value and the listing size', () => {
    expect(termBounds(plans('3d6'), 0)).toMatchObject({ low: 3, high: 18, size: 16 });
    // 2d6! to depth 2: a die reaches 6 + 6 + 6.
    expect(termBounds(plans('2d6!'), 2)).toMatchObject({ low: 2, high: 36, size: 35 });
  });

  it('estimateCost grows with the dice and with a keep', () => {
    const sum10 = estimateCost(plans('10d6'), 0);
    expect(sum10).toBeGreaterThan(0);
    expect(estimateCost(plans('100d6'), 0)).toBeGreaterThan(100 * sum10);
    expect(estimateCost(plans('10d6kh3+10d6'), 0)).toBeGreaterThan(sum10);
    expect(formatCost(12345)).toBe('1.2e4');
    expect(formatCost(3e9)).toBe('3.0e9');
  });

  it('poolDistribution: {1d6+1d6}kh1 is 2d6kh1', () => {
    const pool = plans('{1d6+1d6}kh1');
    expect(poolDistribution(pool, pool[0]!.pool!, 0)).toEqual({
      min: 1,
      step: 1,
      counts: counts([1, 3, 5, 7, 9, 11]),
      tail: 0n,
      denominator: 36n,
    });
  });
});

describe('combining distributions', () => {
  const d = (min: number, step: number, values: number[], denominator: bigint): TermDistribution => ({
    min,
    step,
    counts: counts(values),
    tail: denominator - counts(values).reduce((a, b) => a + b, 0n),
    denominator,
  });

  it('scaleDistribution multiplies the values, a negative factor reversing them', () => {
    expect(scaleDistribution(d(1, 1, [1, 2, 3], 6n), -2)).toEqual(d(-6, 2, [3, 2, 1], 6n));
    expect(scaleDistribution(d(1, 1, [1, 2, 3], 6n), 3)).toEqual(d(3, 3, [1, 2, 3], 6n));
  });

  it('trimDistribution drops zero counts at both ends', () => {
    expect(trimDistribution(d(0, 2, [0, 0, 1, 0, 3, 0], 4n))).toEqual(d(4, 2, [1, 0, 3], 4n));
  });

  it('addDistributions: two coins make 1, 2, 1 over 4; steps meet on their common divisor', () => {
    const coin = d(0, 1, [1, 1], 2n);
    expect(addDistributions(coin, coin)).toEqual(d(0, 1, [1, 2, 1], 4n));
    // {0, 2} + {0, 3}: 0, 2, 3, 5 on a step of 1.
    expect(addDistributions(d(0, 2, [1, 1], 2n), d(0, 3, [1, 1], 2n))).toEqual(
      d(0, 1, [1, 0, 1, 1, 0, 1], 4n),
    );
    // The unlisted mass of each part stays unlisted.
    expect(addDistributions(d(0, 1, [1], 2n), coin).tail).toBe(2n);
  });

  it('lowest reduces a fraction', () => {
    expect(lowest(6n, 4n)).toEqual([3n, 2n]);
    expect(lowest(7n, 3n)).toEqual([7n, 3n]);
  });
});

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

describe('exhaustive enumeration of every kind of die through the real roller', () => {
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

describe('drop lowest written bare, several keeps, not-equal points, !!p, m, u and mt', () => {
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
  it('20d6m is answered: m never changes the total', () => {
    expect(distribution({ formula: '20d6m' }).outcomes).toEqual(distribution({ formula: '20d6' }).outcomes);
  });
  it.each(['4d6u', '4d6uo<3', '20d6mt'])('%s is refused with the reason', (formula) => {
    expect(() => distribution({ formula })).toThrow(
      /(Unique dice|Matching sets) .* are not computed by \/v1\/stats/,
    );
  });
});

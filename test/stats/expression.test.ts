// /v1/stats for formulas with arithmetic and groups (docs/stats.md, "Arithmetic and groups"),
// proved against the real roller: every roll of a small formula is enumerated (every face of
// every die, explosion chains to a depth) and fed to the roller through a scripted source; the
// roller's totals, tallied with their exact weights, must equal the engine's counts exactly.

import { describe, expect, it } from 'vitest';
import { FormulaError, TooComplexError } from '../../src/errors.js';
import { prepareRoll } from '../../src/formula/index.js';
import type { StatsRequest } from '../../src/stats/distribution.js';
import { distribution } from '../../src/stats/distribution.js';
import { expectExactAs } from './enumerate.js';

/** Engine and enumeration agree exactly (every total's count, the tail, nothing else listed): the rolls enumerated. */
const expectExact = (request: StatsRequest, depth = 2, maxRolls = 200_000): number =>
  expectExactAs(request, depth, false, maxRolls).rolls;

describe('every operator, function and group form, exactly as the roller rolls it', () => {
  it.each([
    // Products, quotients, rounding down of the total.
    '(1d4+1)*2',
    '-1d4*2',
    '1d6/2',
    '(2d3+1)/2',
    '-(1d4+1)',
    '2d2x2*1d2',
    // Functions: rounding (halves away from zero, negative values too), abs, min, max.
    'ceil(1d6/4)',
    'round(1d6/4)',
    'round(-1d6/4)',
    'floor(-1d3/2)',
    'abs(1d4-3)',
    'min(1d4, 1d3)',
    'max(1d4, 2, 1d2)',
    'min(1d3/2, 1d2)+1',
    // Remainders (the sign of the left side) and powers.
    '1d6%4',
    '-1d6%4',
    '(1d6+1)%(1d2+1)',
    '1d3^3',
    '(1d3-2)^2',
    '-1d2^2',
    '(1d4/2)**2',
    // Dice in a divisor that can never be zero.
    '2d3/1d2',
    '1d6/(1d2+1)',
    '10/1d4',
    '(1d4-3)/1d3',
    // Computed counts and sides.
    '(3-1)d3',
    '1d(1+2)+(1+1)d2',
    // Groups over item totals: keep, drop, counting (with failures), keep then count, no modifier.
    '{1d4, 1d4+1}kh1',
    '{1d3, 1d3, 1d3}kl2',
    '{1d3, 1d3, 1d3}dh1',
    '{1d3, 1d3, 1d3}dl2',
    '{1d3, 1d2}k1',
    '{1d4, 1d4, 1d4}>=3',
    '{1d4, 1d4, 1d4}>=3f1',
    '{1d4, 1d4, 1d4}kh2>=3',
    '{1d4, 2d2}<>3',
    '{1d3/2, 1d2}kh1',
    '{1d4/2, 1d3}>1',
    '{1d4, 1d4}',
    '-{1d3, 1d3}kh1*2',
    '{1d3, {1d2, 1d2}kh1}dl1',
    // Keep, explode and reroll inside arithmetic.
    '(2d3kh1+1)*2',
    '(1d3ro1+1)/2',
    '(2d3dl1)%2',
    // The other dice modifiers inside arithmetic and groups, pool groups as operands.
    '(dF+1)/2',
    '{2d3>=2, 1d3}kh1',
    '{2d2+1d3}kh2*2',
    'max(1d{-1,0,3}, 1d2)',
    '(2d3max2)^2%3',
  ])('%s', (formula) => {
    expectExact({ formula });
  });

  it('explosions through arithmetic: the tail is the mass of the rolls with a deeper chain', () => {
    for (const formula of ['1d3!*2', 'max(1d3!, 3)', '{1d3!, 1d2!}kh1', '1d3!%3', 'floor(1d2!/3)+1d2']) {
      for (const depth of [0, 1, 2]) expectExact({ formula }, depth);
    }
  });

  it('bonuses join the value before the one rounding down; the advantage field finds the d20', () => {
    expectExact({ formula: '1d4*2', bonuses: [1, '1d3/2'] });
    expectExact({ formula: '1d6', bonuses: ['(1d4+1)/2'] });
    expectExact({ formula: '1d3/2', bonuses: ['1d3/2', -1] });
    expectExact({ formula: '(1d20+1)/2', advantage: 'advantage' });
    expectExact({ formula: '{1d20, 1d4}kl1', advantage: 'disadvantage' });
  });
});

/** A small deterministic generator (mulberry32). */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const atoms = [
    '1d2',
    '1d3',
    'd3',
    '2d2',
    '1d4',
    '1d2!',
    '2d3kh1',
    '1d3ro1',
    '(3-2)d3',
    '1d(1+1)',
    // Fate and custom faces, clamps, success counts, compounding, pools.
    'dF',
    '1d{0,2,2}',
    '2d3min2',
    '2d3>=2',
    '1d3!!',
    '{1d2+1d3}kh1',
  ];
  const divisors = ['2', '3', '1d2', '1d3', '(1d2+1)', '(2-4)'];
  const numbers = ['1', '2', '3', '5'];
  const expression = (depth: number): string => {
    if (depth === 0) return next() < 0.7 ? pick(atoms) : pick(numbers);
    const sub = () => expression(depth - 1);
    switch (Math.floor(next() * 12)) {
      case 0:
        return `${sub()}+${sub()}`;
      case 1:
        return `${sub()}-(${sub()})`;
      case 2:
        return `(${sub()})*(${sub()})`;
      case 3:
        return `(${sub()})/${pick(divisors)}`;
      case 4:
        return `(${sub()})%${pick(divisors)}`;
      case 5:
        return `(${sub()})^${pick(['0', '1', '2', '3'])}`;
      case 6:
        return `${pick(['floor', 'ceil', 'round', 'abs'])}(${sub()})`;
      case 7:
        return `${pick(['min', 'max'])}(${sub()}, ${sub()})`;
      case 8:
        return `{${sub()}, ${sub()}}${pick(['kh1', 'kl1', 'dh1', 'dl1', '>=2', '<3', '>1f1', 'kh1>=3', ''])}`;
      case 9:
        return `{${sub()}, ${sub()}, ${sub()}}${pick(['kh2', 'kl2', 'dh2', 'dl1', '>=3', '=2f1', 'kl2<=2'])}`;
      case 10:
        return `-(${sub()})`;
      default:
        return sub();
    }
  };
  return { expression };
}

describe('generated expressions', () => {
  it('the engine equals the enumeration of every roll for every formula the generator makes', () => {
    const { expression } = generator(20261123);
    let checked = 0;
    let rolls = 0;
    const seen = new Set<string>();
    for (let attempt = 0; attempt < 2000 && checked < 250; attempt++) {
      const formula = expression(1 + (attempt % 3));
      if (seen.has(formula)) continue;
      seen.add(formula);
      let prepared: ReturnType<typeof prepareRoll>;
      try {
        prepared = prepareRoll({ formula });
      } catch (error) {
        // A divisor whose interval holds zero, a formula without dice: refused by the language.
        expect(error).toBeInstanceOf(FormulaError);
        continue;
      }
      if (prepared.diceCount > 6) continue;
      try {
        rolls += expectExact({ formula }, 1, 20_000);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('too many rolls to enumerate')) continue;
        throw error;
      }
      checked++;
    }
    expect(checked).toBe(250);
    expect(rolls).toBeGreaterThan(10_000);
  });
});

describe('known answers', () => {
  it('a critical hit doubled: (1d8+4)*2 is 10, 12, ... 24, each 1 in 8', () => {
    const d = distribution({ formula: '(1d8+4)*2' });
    expect(d.outcomes.map((o) => [o.total, o.count])).toEqual(
      Array.from({ length: 8 }, (_, i) => [10 + 2 * i, '1']),
    );
    expect(d.denominator).toBe('8');
    expect(d.meanExact).toBe('17/1');
  });

  it('{1d20+5, 1d20+3}kh1: the better of two, over 400', () => {
    const d = distribution({ formula: '{1d20+5, 1d20+3}kh1' });
    expect(d.denominator).toBe('400');
    // t = 6, 7: only the first item reaches it alone (the second is at least 4 ... 23).
    expect(d.outcomes.slice(0, 2).map((o) => [o.total, o.count])).toEqual([
      [6, '3'],
      [7, '5'],
    ]);
    expect(d.max).toBe(25);
    expect(d.outcomes.at(-1)!.count).toBe('20');
  });

  it('2d10/d20 rounds each quotient down; the exact mean is of the rounded totals', () => {
    const d = distribution({ formula: '2d10/d20' });
    expect(d.min).toBe(0);
    expect(d.max).toBe(20);
    // Total 20 only as 20/1: 1 way of 100 for 2d10, 1 of 20 for d20.
    expect(d.outcomes.at(-1)).toMatchObject({ total: 20, count: '1' });
    expect(d.denominator).toBe('2000');
  });

  it('{3d6, 3d6, 3d6}>=10 counts the items reaching 10', () => {
    const d = distribution({ formula: '{3d6, 3d6, 3d6}>=10' });
    // P(3d6 >= 10) = 135/216 = 5/8: binomial(3, 5/8).
    expect(d.outcomes.map((o) => o.probability)).toEqual([27 / 512, 135 / 512, 225 / 512, 125 / 512]);
    expect(d.meanExact).toBe('15/8');
  });

  it('the truncation of an exploding die goes through arithmetic unchanged', () => {
    const plain = distribution({ formula: '1d6!' });
    for (const formula of ['(1d6!)*2', 'max(1d6!, 3)', '1d6!%5']) {
      const d = distribution({ formula });
      expect(d.truncation).toEqual(plain.truncation);
    }
    expect(distribution({ formula: '(1d6!)*2' }).outcomes.map((o) => o.total / 2)).toEqual(
      plain.outcomes.map((o) => o.total),
    );
  });
});

describe('before any work: the budget and the listing limit', () => {
  it('a formula over the budget is too_complex, with the estimate in the message', () => {
    for (const formula of ['{1d100, 1d100, 1d100, 1d100, 1d100, 1d100}kh3', '(1d1000)*(1d1000)*(1d1000)']) {
      expect(() => distribution({ formula })).toThrow(TooComplexError);
      expect(() => distribution({ formula })).toThrow(
        /would take about .* units of work; the limit is 2\.0e9/,
      );
    }
    expect(() => distribution({ formula: '(1d8+4)*2' }, { costBudget: 1000 })).toThrow(
      /would take about .* units of work; the limit is 1\.0e3/,
    );
  });

  it('totals that could not all be listed: too_complex, an expression has no summary', () => {
    expect(() => distribution({ formula: '(1d100)*(1d100)' }, { outcomesMax: 100 })).toThrow(TooComplexError);
    expect(() => distribution({ formula: '(1d100)*(1d100)' }, { outcomesMax: 100 })).toThrow(
      /no exact summary/,
    );
    expect(distribution({ formula: '(1d100)*(1d100)' }).listing).toBe('full');
  });
});

describe('powers, remainders, computed counts and sides, dice in a divisor', () => {
  it.each([
    ['1d6^2', '1d6*1d6', false],
    ['1d6**2', '1d6^2', true],
    ['1d20%7', '1d20', false],
    ['(4-2)d10', '2d10', true],
    ['3d(2*6)', '3d12', true],
  ])('%s is answered exactly (the enumerations above check every roll)', (formula, other, same) => {
    const d = distribution({ formula });
    expect(d.listing).toBe('full');
    const otherOutcomes = distribution({ formula: other }).outcomes;
    if (same) expect(d.outcomes).toEqual(otherOutcomes);
    else expect(d.outcomes).not.toEqual(otherOutcomes);
  });
  it('dice in a divisor: 2d10/d20 is answered exactly', () => {
    const d = distribution({ formula: '2d10/d20' });
    expect(d.denominator).toBe('2000');
    expect(d.outcomes.reduce((sum, o) => sum + BigInt(o.count!), 0n)).toBe(2000n);
  });
});

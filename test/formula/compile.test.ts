// The plan compiler (src/formula/compile.ts): each dice term's rules as the plan's kinds in the
// order they act, the request's advantage and its deprecations, pools, the expression with its
// dice numbered in written order, the dice count, and the plan shared for a cached formula.

import { describe, expect, it } from 'vitest';
import { FormulaError, RequestError } from '../../src/errors.js';
import { KeepRule, ParseCache, type PreparedRoll, prepareRoll } from '../../src/formula/index.js';
import { rollWith } from '../support/rolls.js';

const INF = Number.POSITIVE_INFINITY;
const group = (formula: string, index = 0) => prepareRoll({ formula }).groups[index]!;
const kinds = (formula: string) => group(formula).modifiers.map((m) => m.kind);

describe('a dice term', () => {
  it('a plain term: no rules, the usual naturals, the fast path', () => {
    expect(group('3d6')).toEqual({
      sides: 6,
      faces: undefined,
      count: 3,
      sign: 1,
      multiplier: 1,
      modifiers: [],
      highLow: 6,
      highHigh: 6,
      lowLow: 1,
      lowHigh: 1,
      plain: true,
      label: undefined,
      pool: undefined,
    });
    expect(group('1d6-2d8x3[cold]', 1)).toMatchObject({
      sign: -1,
      multiplier: 3,
      label: 'cold',
      plain: true,
    });
  });

  it('rules in the order they act, whatever the written order', () => {
    expect(group('2d6>=3f1kh1!r1min2').modifiers).toEqual([
      { kind: 'clamp', low: 2, high: 6 },
      { kind: 'reroll', limit: 100, low: 1, high: 1 },
      { kind: 'explode', low: 6, high: 6, penetrate: false, compound: false },
      { kind: 'keep', rule: KeepRule.KeepHighest, amount: 1 },
      { kind: 'count', success: { low: 3, high: INF }, failure: { low: 1, high: 1 } },
    ]);
    expect(group('2d6>=3f1kh1!r1min2').plain).toBe(false);
  });

  it('each modifier to its kind', () => {
    expect(group('1d6r<>6').modifiers).toEqual([{ kind: 'reroll', limit: 100, low: 7, high: 5 }]);
    expect(group('1d6ro<3').modifiers).toEqual([{ kind: 'reroll', limit: 1, low: -INF, high: 2 }]);
    expect(group('4d6u').modifiers).toEqual([{ kind: 'unique', limit: 100, low: -INF, high: INF }]);
    expect(group('4d6uo>4').modifiers).toEqual([{ kind: 'unique', limit: 1, low: 5, high: INF }]);
    expect(group('2d6!!p>=5').modifiers).toEqual([
      { kind: 'explode', low: 5, high: INF, penetrate: true, compound: true },
    ]);
    expect(group('20d6mt3').modifiers).toEqual([{ kind: 'match', amount: 3, total: true }]);
    expect(group('4d10dh1dl2').modifiers).toEqual([
      { kind: 'keep', rule: KeepRule.DropHighest, amount: 1 },
      { kind: 'keep', rule: KeepRule.DropLowest, amount: 2 },
    ]);
    expect(kinds('4d6d1')).toEqual(['keep']);
    expect(group('4dF').faces).toEqual([-1, 0, 1]);
  });

  it('crit ranges change only the naturals, and leave the fast path', () => {
    expect(group('1d20cs>=19cf<3')).toMatchObject({
      modifiers: [],
      highLow: 19,
      highHigh: INF,
      lowLow: -INF,
      lowHigh: 2,
      plain: false,
    });
    expect(group('1d{-1,0,5}')).toMatchObject({
      highLow: 5,
      highHigh: 5,
      lowLow: -1,
      lowHigh: -1,
      plain: false,
    });
  });
});

describe('advantage', () => {
  it('adv and dis keep one of at least two dice; 1d20adv is deprecated', () => {
    const plan = prepareRoll({ formula: '1d20adv+5' });
    expect(plan.groups[0]).toMatchObject({
      count: 2,
      modifiers: [{ kind: 'keep', rule: KeepRule.KeepHighest, amount: 1 }],
    });
    expect(plan.advantageState).toBe('advantage');
    expect(plan.deprecations).toEqual([
      {
        item: 'formula',
        message:
          'The form 1d20adv (adv or dis on a single die) is deprecated: it still throws two dice; write 2d20adv.',
      },
    ]);
    expect(prepareRoll({ formula: '3d20dis' }).groups[0]).toMatchObject({
      count: 3,
      modifiers: [{ rule: KeepRule.KeepLowest }],
    });
  });

  it("the request's advantage goes to the formula's first plain d20", () => {
    const plan = prepareRoll({ formula: '4d6kh3+1d20+1d20', advantage: 'disadvantage', bonuses: ['1d20'] });
    expect(plan.groups.map((g) => g.count)).toEqual([4, 2, 1, 1]);
    expect(plan.groups[1]!.modifiers).toEqual([{ kind: 'keep', rule: KeepRule.KeepLowest, amount: 1 }]);
    expect(plan.advantageState).toBe('disadvantage');
    expect(prepareRoll({ formula: '1d8', advantage: 'advantage' }).advantageState).toBe('normal');
  });

  it('one adv or dis term per roll, and never beside the advantage field', () => {
    expect(() => prepareRoll({ formula: '2d20adv', bonuses: ['2d20dis'] })).toThrow(FormulaError);
    expect(() => prepareRoll({ formula: '2d20adv', bonuses: ['2d20dis'] })).toThrow(
      'bonuses[0], column 5: A roll may have only one adv or dis term.',
    );
    expect(() => prepareRoll({ formula: '2d20adv', advantage: 'advantage' })).toThrow(RequestError);
  });
});

describe('pools and the expression', () => {
  it('a pool group: its terms planned together, sharing one pool plan', () => {
    const plan = prepareRoll({ formula: '1d4+{4d6+3d8}kh3' });
    const pool = { first: 1, size: 2, keep: { kind: 'keep', rule: KeepRule.KeepHighest, amount: 3 } };
    expect(plan.groups.map((g) => g.pool)).toEqual([undefined, pool, pool]);
    expect(plan.groups[1]!.pool).toBe(plan.groups[2]!.pool);
    expect(plan.expression).toMatchObject({
      kind: 'sum',
      terms: [
        { kind: 'dice', group: 0 },
        { kind: 'pool', first: 1, size: 2 },
      ],
    });
  });

  it("a pool's success point counts on each of its terms", () => {
    const plan = prepareRoll({ formula: '{2d10+1d8}>=7f1' });
    const count = { kind: 'count', success: { low: 7, high: INF }, failure: { low: 1, high: 1 } };
    expect(plan.groups.map((g) => g.modifiers)).toEqual([[count], [count]]);
  });

  it('a plain sum has no expression; its flat terms and integer bonuses are the modifiers', () => {
    const plan = prepareRoll({ formula: '1d20+5-2', bonuses: [3, '1d4-1'] });
    expect(plan.expression).toBeUndefined();
    expect([plan.modifiers, plan.modifier, plan.diceCount]).toEqual([[5, -2, 3, -1], 5, 2]);
  });

  it('with arithmetic, the formula and each bonus in order', () => {
    const plan = prepareRoll({ formula: '(1d8+4)*2', bonuses: [2, '1d4'] });
    expect(plan.expression).toEqual({
      kind: 'sum',
      terms: [
        {
          kind: 'product',
          operator: '*',
          left: {
            kind: 'sum',
            terms: [
              { kind: 'dice', group: 0 },
              { kind: 'number', value: 4 },
            ],
          },
          right: { kind: 'number', value: 2 },
        },
        { kind: 'number', value: 2 },
        { kind: 'dice', group: 1 },
      ],
    });
  });

  it('the same bonus twice is two terms: each its own dice', () => {
    const plan = prepareRoll({ formula: '(1d20)', bonuses: ['1d4', '1d4'] });
    expect(plan.expression).toEqual({
      kind: 'sum',
      terms: [
        { kind: 'dice', group: 0 },
        { kind: 'dice', group: 1 },
        { kind: 'dice', group: 2 },
      ],
    });
    // Each die counts once: 1 + 2 + 3.
    expect(rollWith({ formula: '(1d20)', bonuses: ['1d4', '1d4'] }, [1, 2, 3]).total).toBe(6);
    // A pool group given twice is two pools.
    const pools = prepareRoll({ formula: '(1d20)', bonuses: ['{2d6}kh1', '{2d6}kh1'] });
    expect(pools.groups.map((g) => g.pool?.first)).toEqual([undefined, 1, 2]);
    expect(rollWith({ formula: '(1d20)', bonuses: ['{2d6}kh1', '{2d6}kh1'] }, [1, 2, 3, 4, 5]).total).toBe(
      1 + 3 + 5,
    );
  });
});

describe('counting and sharing', () => {
  it('the dice count and its limit', () => {
    expect(prepareRoll({ formula: '4d6+2d20adv+{3d6}kh1' }).diceCount).toBe(9);
    expect(() => prepareRoll({ formula: '60d6' }, { dicePerRoll: 50 })).toThrow(
      'formula: This roll asks for 60 dice; a roll may throw at most 50.',
    );
  });

  it('a cached formula rolled as written has one frozen plan; anything else a new one', () => {
    const cache = new ParseCache();
    const first = prepareRoll({ formula: '4d6kh3' }, { parseCache: cache });
    const again: PreparedRoll = prepareRoll({ formula: '4d6kh3' }, { parseCache: cache });
    expect(again).toBe(first);
    expect(Object.isFrozen(first.groups[0]!.modifiers[0])).toBe(true);
    const withBonus = prepareRoll({ formula: '4d6kh3', bonuses: [1] }, { parseCache: cache });
    expect(withBonus).not.toBe(first);
    expect(Object.isFrozen(withBonus)).toBe(false);
    const uncached = new ParseCache({ maxEntries: 0 });
    expect(prepareRoll({ formula: '4d6kh3' }, { parseCache: uncached })).not.toBe(
      prepareRoll({ formula: '4d6kh3' }, { parseCache: uncached }),
    );
  });

  it('request errors before any parse', () => {
    expect(() => prepareRoll({ formula: 3 as never })).toThrow('The formula must be a string.');
    expect(() => prepareRoll({ formula: '1d6', advantage: 'lucky' as never })).toThrow(
      'advantage must be normal, advantage or disadvantage.',
    );
    expect(() => prepareRoll({ formula: '1d6', tags: ['Fire'] })).toThrow(RequestError);
    expect(() => prepareRoll({ formula: '1d6', bonuses: [1.5] })).toThrow(
      'bonuses[0] must be an integer or a string.',
    );
  });
});

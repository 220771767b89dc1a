// Arithmetic and groups (docs/language.md, "Arithmetic and groups"): operators, powers,
// remainders, functions, groups, dice in a divisor and computed counts and sides, rolled with
// scripted faces so every value of the expression tree is known; the limits at and past each bound.

import { describe, expect, it } from 'vitest';
import { countDice, LIMITS, roll } from '../../src/index.js';
import { formulaError, group, rollWith } from '../support/rolls.js';
import { minSource } from '../support/sources.js';

describe('arithmetic', () => {
  it('(1d8+4)*2: a critical hit doubled', () => {
    const r = rollWith('(1d8+4)*2', [5]);
    expect(r.total).toBe(18);
    expect(r.expression).toEqual({
      type: 'operation',
      operator: '*',
      value: 18,
      operands: [
        {
          type: 'operation',
          operator: '+',
          value: 9,
          operands: [
            { type: 'dice', group: 0, value: 5 },
            { type: 'number', value: 4 },
          ],
        },
        { type: 'number', value: 2 },
      ],
    });
    expect(r.modifiers).toEqual([]);
    expect(r.dice[0]).toMatchObject({ total: 5, sign: 1 });
  });

  it('usual precedence: * and / before + and -, left to right', () => {
    expect(rollWith('1d6+2*3', [1]).total).toBe(7);
    expect(rollWith('1d6*2+3', [1]).total).toBe(5);
    expect(rollWith('12/2/3+0*1d4', [1]).total).toBe(2);
    expect(rollWith('1d6-2-1', [6]).total).toBe(3);
    expect(rollWith('1d6 * 2 - 8 / 4', [5]).total).toBe(8);
  });

  it('exact arithmetic, one final rounding down', () => {
    const r = rollWith('(2d6+3)/2', [3, 5]);
    expect(r.expression).toMatchObject({ value: 5.5, exact: '11/2' });
    expect(r.total).toBe(5);
    expect(rollWith('1d6/3*3', [1]).total).toBe(1);
    expect(rollWith('-1d6/2', [3]).total).toBe(-2);
    expect(rollWith('1d10/3+1d10/3+1d10/3', [1, 1, 1]).total).toBe(1);
  });

  it('functions: floor, ceil, round (half away from zero), abs, min, max', () => {
    expect(rollWith('floor(8d6/2)', [1, 2, 3, 4, 5, 6, 1, 3]).total).toBe(12);
    expect(rollWith('ceil(1d6/4)', [5]).total).toBe(2);
    expect(rollWith('round(1d6/2)', [5]).total).toBe(3);
    expect(rollWith('round(-1d6/2)', [5]).total).toBe(-3);
    expect(rollWith('round(1d6/4)', [5]).total).toBe(1);
    expect(rollWith('abs(1d4-5)', [1]).total).toBe(4);
    expect(rollWith('max(1d20, 10)', [3]).total).toBe(10);
    expect(rollWith('min(1d20, 10, 1d4)', [3, 4]).total).toBe(3);
    expect(rollWith('FLOOR(1d6/4)', [5]).expression).toMatchObject({
      type: 'function',
      name: 'floor',
      value: 1,
    });
  });

  it('signs in the tree: a dice term after - carries the sign; anything else gets a - node', () => {
    const r = rollWith('10-1d4*2', [3]);
    expect(r.expression).toEqual({
      type: 'operation',
      operator: '+',
      value: 4,
      operands: [
        { type: 'number', value: 10 },
        {
          type: 'operation',
          operator: '-',
          value: -6,
          operands: [
            {
              type: 'operation',
              operator: '*',
              value: 6,
              operands: [
                { type: 'dice', group: 0, value: 3 },
                { type: 'number', value: 2 },
              ],
            },
          ],
        },
      ],
    });
    const unary = rollWith('-1d4*2', [3]);
    expect(unary.dice[0]).toMatchObject({ sign: -1, total: -3 });
    expect(unary.expression).toMatchObject({
      operator: '*',
      value: -6,
      operands: [{ type: 'dice', value: -3 }, {}],
    });
    const dice = rollWith('(5-1d4)', [3]);
    expect(dice.dice[0]).toMatchObject({ sign: -1, total: -3 });
    expect(rollWith('2*-(1d4)', [3]).expression).toMatchObject({
      operator: '*',
      value: -6,
      operands: [
        { type: 'number', value: 2 },
        { operator: '-', value: -3 },
      ],
    });
  });

  it('modifiers hold the flat numbers of the top-level sum only', () => {
    const r = rollWith('1d6+(2+3)*2-4', [1]);
    expect(r.modifiers).toEqual([-4]);
    expect(r.total).toBe(7);
  });

  it('the right side of / is never zero: a number known to be non-zero, or dice whose interval excludes zero', () => {
    expect(rollWith('1d6/(1+1)', [4]).total).toBe(2);
    expect(formulaError('1d6/(3-3)').message).toMatch(/zero/);
    expect(formulaError('1d6/0').column).toBe(5);
    expect(rollWith('1d6/1d4', [6, 4]).total).toBe(1);
    expect(formulaError('1d6/(2*1d4-2)').column).toBe(5);
    expect(formulaError('1d6/(2*1d4-2)').message).toMatch(/holds 0/);
    expect(formulaError('1d6/floor(1/2)').message).toMatch(/zero/);
    expect(rollWith('1d6/-2', [4]).total).toBe(-2);
    expect(rollWith('1d4*1d4', [3, 4]).total).toBe(12);
  });

  it('whitespace around operators, inside brackets, never between a function name and (', () => {
    expect(rollWith('  ( 1d6 + 1 ) * 2  ', [2]).total).toBe(6);
    expect(rollWith('max( 1d6 , 3 )', [2]).total).toBe(3);
    expect(formulaError('max (1d6, 3)').code).toBe('invalid_formula');
  });

  it('a formula still must roll a die; a sign never follows a sign', () => {
    expect(formulaError('(2+3)*4').message).toMatch(/at least one die/);
    expect(formulaError('1d6+-2').column).toBe(5);
  });

  it('a tag may follow an expression', () => {
    expect(rollWith({ formula: '(1d8+4)*2 fire', tags: ['fire'] }, [1]).tag).toBe('fire');
  });
});

describe('groups', () => {
  it('{1d8!, 1d6!}kh1: a Savage Worlds trait roll keeps the better item', () => {
    const r = rollWith('{1d8!, 1d6!}kh1[trait]', [8, 3, 4]);
    expect(r.dice.map((g) => g.total)).toEqual([11, 4]);
    expect(r.total).toBe(11);
    expect(r.expression).toEqual({
      type: 'group',
      value: 11,
      items: [
        { value: 11, kept: true, node: { type: 'dice', group: 0, value: 11 } },
        { value: 4, kept: false, node: { type: 'dice', group: 1, value: 4 } },
      ],
      label: 'trait',
    });
  });

  it('{3d6, 3d6, 3d6}>=10 counts the items reaching 10; f subtracts failures', () => {
    const r = rollWith('{3d6, 3d6, 3d6}>=10', [6, 6, 6, 1, 2, 3, 4, 3, 3]);
    expect(r.expression).toMatchObject({ type: 'group', value: 2, successes: 2 });
    expect(r.expression).not.toHaveProperty('failures');
    expect(r.total).toBe(2);
    const f = rollWith('{3d6, 3d6, 3d6}>=10f<7', [6, 6, 6, 1, 2, 3, 4, 3, 3]);
    expect(f.expression).toMatchObject({ value: 1, successes: 2, failures: 1 });
  });

  it('keep and drop on items: ties go to the earlier item', () => {
    expect(rollWith('{1d6, 1d6, 1d6}kl2', [4, 2, 4]).total).toBe(6);
    const tie = rollWith('{1d6, 1d6}kh1', [3, 3]).expression;
    expect(tie?.type === 'group' && tie.items.map((i) => i.kept)).toEqual([true, false]);
    expect(rollWith('{1d6, 1d6, 1d6}dh1', [6, 1, 2]).total).toBe(3);
    expect(rollWith('{1d6, 1d6, 5}dl1', [6, 1]).total).toBe(11);
  });

  it('item totals may be fractional and are compared exactly', () => {
    const r = rollWith('{1d6/2, 1d6/2}>=2', [3, 4]);
    expect(r.expression).toMatchObject({ successes: 1, items: [{ value: 1.5, exact: '3/2' }, { value: 2 }] });
  });

  it('without modifiers a group is a sum, and one item is parentheses', () => {
    expect(rollWith('{1d6, 2}', [3]).total).toBe(5);
    expect(rollWith('{1d6+2}*2', [3]).total).toBe(10);
  });

  it('{4d6+3d8}kh3: one item with modifiers is one pool of dice', () => {
    const r = rollWith('{4d6+3d8}kh3', [6, 1, 2, 5, 8, 3, 7]);
    expect(r.dice[0]).toMatchObject({ keptFlags: [true, false, false, false], kept: [6], total: 6 });
    expect(r.dice[1]).toMatchObject({ keptFlags: [true, false, true], kept: [8, 7], total: 15 });
    expect(r.total).toBe(21);
    expect(r.expression).toMatchObject({ type: 'group', value: 21, items: [{ value: 21, kept: true }] });
  });

  it('a pool counts successes across its terms, each DieGroup carrying its share', () => {
    const r = rollWith('{2d10+2d6}>=6f1', [6, 10, 1, 3]);
    expect(r.dice[0]).toMatchObject({ successes: 2, total: 2 });
    expect(r.dice[0]).not.toHaveProperty('failures', undefined);
    expect(r.dice[1]).toMatchObject({ successes: 0, failures: 1, total: -1 });
    expect(r.expression).toMatchObject({ value: 1, successes: 2, failures: 1 });
    expect(rollWith('{6d10>=8, 4d10>=8}', [8, 1, 1, 1, 1, 9, 10, 1, 1, 1]).total).toBe(3);
  });

  it('a pool throws at most 1000 dice, as one dice term does', () => {
    expect(countDice({ formula: '{600d6+400d6}kh3' })).toBe(1000);
    expect(formulaError({ formula: '{600d6+401d6}kh3' }).message).toMatch(
      /pool group throws at most 1,000 dice/,
    );
  });

  it('a pool item only adds dice terms, which have no keep or counting of their own', () => {
    expect(formulaError('{4d6-3d8}kh3').column).toBe(6);
    expect(formulaError('{4d6+3}kh3').message).toMatch(/pool/);
    expect(formulaError('{4d6kh3+1d6}kh3').message).toMatch(/inside a pool/);
    expect(formulaError('{4d6>=3}>=3').code).toBe('invalid_formula');
    expect(rollWith('{2d6!+1d4}kh2', [6, 1, 2, 3]).dice[0]!.throws).toHaveLength(3);
  });

  it('group modifiers: once each, f needs a success point, keep at least one', () => {
    expect(formulaError('{1d6, 1d6}kh1kl1').message).toMatch(/one keep or drop/);
    expect(formulaError('{1d6, 1d6}f1').message).toMatch(/success point/);
    expect(formulaError('{1d6, 1d6}kh0').code).toBe('invalid_formula');
    expect(formulaError('{1d6, 1d6}>=3>=4').message).toMatch(/one success point/);
  });
});

describe('limits', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}1d6${')'.repeat(depth)}`;

  it('16 levels of brackets roll; 17 are refused at the 17th', () => {
    expect(rollWith(nested(16), [2]).total).toBe(2);
    const error = formulaError(nested(17));
    expect(error.column).toBe(17);
    expect(error.message).toMatch(/16/);
    expect(
      rollWith(`${'floor('.repeat(8)}${'{'.repeat(8)}1d6${'}'.repeat(8)}${')'.repeat(8)}`, [3]).total,
    ).toBe(3);
    expect(formulaError(`${'abs('.repeat(17)}1d6${')'.repeat(17)}`).message).toMatch(/nest/);
  });

  it('custom faces are no level of nesting', () => {
    expect(rollWith(`${'('.repeat(16)}1d{1,2}${')'.repeat(16)}`, [2]).total).toBe(2);
  });

  it('100 terms roll; 101 cannot be written within the 200-character limit', () => {
    const hundred = `d2${'+1'.repeat(99)}`;
    expect(hundred).toHaveLength(LIMITS.formulaMaxLength);
    expect(rollWith(hundred, [2]).total).toBe(101);
    // The shortest 101 terms take 201 characters: the length limit binds first (docs/language.md).
    expect(formulaError(`${hundred}+1`).message).toMatch(/200 characters/);
    expect(formulaError({ formula: '1d6', bonuses: [`${hundred}+1`] }).message).toMatch(/200 characters/);
  });

  it('20 items per group; the 21st is refused', () => {
    const items = (n: number) => `{${Array.from({ length: n }, () => 'd2').join(',')}}`;
    expect(rollWith(items(20), new Array(20).fill(1)).total).toBe(20);
    const error = formulaError(items(21));
    expect(error.message).toMatch(/20 items/);
    expect(error.column).toBe(62);
  });

  it('the per-roll dice limit counts every die in the tree', () => {
    expect(countDice({ formula: '{500d6, 250d6}kh1*2+max(200d6, 50d6)' })).toBe(1000);
    expect(formulaError('{500d6, 250d6}kh1*2+max(200d6, 51d6)').message).toMatch(/1,001/);
    expect(countDice({ formula: '(1d20+5)*2', advantage: 'advantage' })).toBe(2);
  });

  it('functions take the right number of arguments', () => {
    expect(formulaError('floor(1d6, 2)').column).toBe(12);
    expect(formulaError('max(1d6)').message).toMatch(/two or more/);
    expect(formulaError('abs()').code).toBe('invalid_formula');
  });
});

describe('the request', () => {
  it('advantage finds the first plain d20 anywhere in written order', () => {
    const r = rollWith({ formula: '(1d6+1d20)*2', advantage: 'advantage' }, [3, 5, 17]);
    expect(r.dice[1]).toMatchObject({ results: [5, 17], kept: [17] });
    expect(r.advantageState).toBe('advantage');
    expect(r.total).toBe(40);
    const inPool = rollWith({ formula: '{1d20+1d20}kh1+1d20', advantage: 'disadvantage' }, [2, 3, 4, 9]);
    expect(inPool.dice[2]).toMatchObject({ results: [4, 9], kept: [4] });
  });

  it('bonuses join the top-level sum before the one rounding down', () => {
    const r = rollWith({ formula: '1d6/2', bonuses: [1, '1d4/2'] }, [3, 3]);
    expect(r.total).toBe(4);
    expect(r.modifiers).toEqual([1]);
    expect(r.expression).toMatchObject({
      type: 'operation',
      operator: '+',
      value: 4,
      operands: [{ value: 1.5 }, { type: 'number', value: 1 }, { value: 1.5 }],
    });
  });

  it('a bonus alone may bring the expression', () => {
    const r = rollWith({ formula: '1d20+5', bonuses: ['(1d4)*2'] }, [10, 3]);
    expect(r.total).toBe(21);
    expect(r.modifiers).toEqual([5]);
    expect(r.expression).toMatchObject({
      operands: [
        { operator: '+', value: 15 },
        { operator: '*', value: 6 },
      ],
    });
  });

  it('plain sums keep their response: no expression', () => {
    for (const formula of ['1d20+5', '4d6kh3+2', '10-1d4', '2d20adv']) {
      expect(roll({ formula })).not.toHaveProperty('expression');
    }
  });
});

describe('powers ^ and **', () => {
  it('right-associative, tighter than * and than a sign on its left', () => {
    expect(rollWith('1d6^2', [5]).total).toBe(25);
    expect(rollWith('1d6**2', [4]).total).toBe(16);
    expect(rollWith('1d2^3^2', [2]).total).toBe(512);
    expect(rollWith('-1d4^2', [3]).total).toBe(-9);
    expect(rollWith('2*1d6^2', [3]).total).toBe(18);
    expect(rollWith('1d6^(1+1)', [3]).total).toBe(9);
    expect(rollWith('(1d6-1d6)^0', [2, 2]).total).toBe(1);
    expect(rollWith('(1d6/2)^2', [3]).expression).toMatchObject({ operator: '^', exact: '9/4' });
  });
  it('the exponent is a dice-free integer from 0 to 20', () => {
    expect(rollWith('1d6^20', [2]).total).toBe(2 ** 20);
    expect(formulaError('1d6^21').message).toMatch(/0 to 20/);
    expect(formulaError('1d6^(41/2)').message).toMatch(/whole number from 0 to 20/);
    expect(formulaError('1d6^(0-1)').message).toMatch(/0 to 20/);
    expect(formulaError('2^1d6').message).toMatch(/without dice/);
  });
  it('a power that could pass 10^100 is refused', () => {
    expect(formulaError('(1d100^20)^20').message).toMatch(/10\^100/);
  });
});

describe('remainder %', () => {
  it('truncating, with the sign of the left side, at the precedence of * and /', () => {
    expect(rollWith('1d20%3', [17]).total).toBe(2);
    expect(rollWith('1d20%-3', [17]).total).toBe(2);
    expect(rollWith('-1d20%3', [17]).total).toBe(-2);
    expect(rollWith('1d20%3*2', [17]).total).toBe(4);
    expect(rollWith('(1d6/2)%1', [5]).expression).toMatchObject({ operator: '%', exact: '1/2' });
  });
  it('% right after d is the percentile die', () => {
    expect(rollWith('d%', [57]).total).toBe(57);
    const r = rollWith('d15%2', [11]);
    expect(group(r).sides).toBe(15);
    expect(r.total).toBe(1);
    expect(rollWith('d%%7', [57]).total).toBe(1);
  });
  it('a zero divisor is refused', () => {
    expect(formulaError('1d20%0').message).toMatch(/zero/);
    expect(formulaError('1d20%(2-2)').message).toMatch(/zero/);
  });
});

describe('dice in a divisor', () => {
  it('roll when the divisor interval excludes zero', () => {
    const r = rollWith('2d10/d20', [4, 3, 15]);
    expect(r.expression).toMatchObject({ operator: '/', exact: '7/15' });
    expect(r.total).toBe(0);
    expect(rollWith('5/10d20', new Array(10).fill(1)).expression).toMatchObject({ exact: '1/2' });
    expect(rollWith('floor(3d6/2d4)', [1, 2, 5, 2, 4]).total).toBe(1);
    expect(rollWith('1d6/(0-1d4)', [6, 4]).total).toBe(-2);
    expect(rollWith('1d6%(1d4+1)', [6, 3]).total).toBe(2);
    // A penetrating extra is at least 0, so 1d6!p is never below 1.
    expect(rollWith('12/1d6!p', [3]).total).toBe(4);
  });
  it('are refused when the interval holds or touches zero, even if zero cannot come up', () => {
    for (const f of ['1d6/(1d6-1)', '2d6/d{0,1}', '1d6/(1d4-1)', '1d6/(1d6*2-3)', '1d6%(1d6-6)', '1d6/dF']) {
      expect(formulaError(f).message).toMatch(/holds 0/);
    }
  });
});

describe('computed counts and sides', () => {
  it('a parenthesised dice-free expression stands for the count or the sides', () => {
    const r = rollWith('(4-2)d10', [3, 9]);
    expect(group(r).results).toEqual([3, 9]);
    expect(r.total).toBe(12);
    expect(r.expression).toBeUndefined();
    const s = rollWith('3d(2*6)', [12, 1, 1]);
    expect(group(s).sides).toBe(12);
    expect(rollWith('(2)d(3)kh1', [1, 3]).total).toBe(3);
  });
  it('within the limits: 1000 dice roll, 1001 are refused', () => {
    expect(roll({ formula: '(999+1)d2' }, { random: minSource() }).total).toBe(1000);
    expect(formulaError('(999+2)d2').message).toMatch(/1 to 1,000 dice; this one asks for 1,001/);
    expect(formulaError('(0)d6').message).toMatch(/1 to 1,000 dice/);
    expect(formulaError('(1-2)d6').message).toMatch(/1 to 1,000 dice/);
    expect(formulaError('{(600)d6+(600)d6}kh1').message).toMatch(/pool group throws at most/);
  });
  it('a whole number without dice', () => {
    expect(formulaError('(5/2)d6').message).toMatch(/whole number; this one is 5\/2/);
    expect(formulaError('(1d4)d6').message).toMatch(/without dice/);
    expect(formulaError('3d(1d6)').message).toMatch(/without dice/);
    expect(formulaError('3d(0)').message).toMatch(/1 to 4,294,967,296 sides/);
  });
});

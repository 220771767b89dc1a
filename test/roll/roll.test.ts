// Every form and rule of docs/language.md, rolled with scripted faces so the exact dice, flags, totals
// and natural flags are known.

import { describe, expect, it } from 'vitest';
import { countDice, LIMITS, prepareRoll, RandomSourceError, RequestError, roll } from '../../src/index.js';
import { formulaError, group, rollWith } from '../support/rolls.js';
import { maxSource, scripted } from '../support/sources.js';

describe('shape: a signed sum of terms', () => {
  it('2d6 rolls two dice and sums them', () => {
    const r = rollWith('2d6', [3, 5]);
    expect(r.dice).toEqual([
      {
        sides: 6,
        sign: 1,
        results: [3, 5],
        kept: [5, 3],
        keptFlags: [true, true],
        multiplier: 1,
        total: 8,
        naturalHigh: false,
        naturalLow: false,
      },
    ]);
    expect(r).toMatchObject({
      formula: '2d6',
      modifier: 0,
      modifiers: [],
      total: 8,
      advantageState: 'normal',
    });
    expect(r).not.toHaveProperty('tag');
  });

  it('1d20+7 adds a flat modifier; a single kept 20 is a natural high', () => {
    const r = rollWith('1d20+7', [20]);
    expect(r.modifiers).toEqual([7]);
    expect(r.total).toBe(27);
    expect(group(r).naturalHigh).toBe(true);
    expect(group(r).naturalLow).toBe(false);
  });

  it('10-1d4: a term after - has sign -1 and subtracts', () => {
    const r = rollWith('10-1d4', [3]);
    expect(group(r)).toMatchObject({ sign: -1, total: -3, kept: [3] });
    expect(r.modifiers).toEqual([10]);
    expect(r.total).toBe(7);
  });

  it('a leading sign applies to the first term only', () => {
    expect(rollWith('-1d6+2', [4]).total).toBe(-2);
    expect(rollWith('+2d6', [1, 2]).total).toBe(3);
    expect(rollWith('-5+1d6', [6]).modifiers).toEqual([-5]);
  });

  it('1d8+1d4+3 gives one group per dice term, in formula order', () => {
    const r = rollWith('1d8+1d4+3', [5, 2]);
    expect(r.dice.map((g) => g.sides)).toEqual([8, 4]);
    expect(r.total).toBe(10);
  });

  it('flat terms keep their order and signs in modifiers', () => {
    const r = rollWith('3+1d6-2+5', [1]);
    expect(r.modifiers).toEqual([3, -2, 5]);
    expect(r.modifier).toBe(6);
    expect(r.total).toBe(7);
  });

  it('d20 means 1d20 and d% means d100', () => {
    expect(group(rollWith('d20', [7])).results).toEqual([7]);
    expect(group(rollWith('d%', [100])).sides).toBe(100);
    expect(group(rollWith('2D%', [1, 2])).sides).toBe(100);
  });

  it('allows whitespace around + and - and at both ends, and trims the formula', () => {
    const r = rollWith({ formula: '  1d20 + 7 -\t2  ' }, [10]);
    expect(r.formula).toBe('1d20 + 7 -\t2');
    expect(r.total).toBe(15);
  });

  it('refuses whitespace inside a dice term: 4d6 kh3 is 4d6 and a bad trailing word', () => {
    const error = formulaError('4d6 kh3');
    expect(error.column).toBe(5);
    expect(error.message).toContain('kh3');
  });

  it('a formula must roll at least one die', () => {
    expect(formulaError('2+5').message).toMatch(/at least one die/);
    expect(formulaError('-3').code).toBe('invalid_formula');
  });

  // Parentheses, * and / are arithmetic (docs/language.md); these stay refused.
  it('has no unbalanced parentheses, * without a right side, or one-argument max', () => {
    for (const formula of ['(1d6', '1d6*', '1d6/0', 'max(1d6)']) {
      expect(formulaError(formula).code).toBe('invalid_formula');
    }
  });

  it('letters in operators are case-insensitive', () => {
    expect(group(rollWith('1D20KH1', [4])).kept).toEqual([4]);
    expect(group(rollWith('4D6DL1', [1, 2, 3, 4])).keptFlags).toEqual([false, true, true, true]);
    expect(rollWith('2D20ADV', [3, 9]).advantageState).toBe('advantage');
    expect(group(rollWith('1d6R1', [1, 5])).results).toEqual([1, 5]);
    expect(group(rollWith('1d6!P', [6, 2])).results).toEqual([6, 1]);
    expect(group(rollWith('1d6X2', [3])).total).toBe(6);
  });
});

describe('trailing tag', () => {
  it('2d6 fire with fire allowed carries the tag', () => {
    const r = rollWith({ formula: '2d6 fire', tags: ['fire', 'cold'] }, [1, 2]);
    expect(r.tag).toBe('fire');
    expect(r.formula).toBe('2d6 fire');
  });

  it('a trailing word not listed is invalid_formula, at its column', () => {
    const error = formulaError({ formula: '2d6 fire', tags: ['cold'] });
    expect(error.column).toBe(5);
    expect(formulaError('2d6 fire').message).toMatch(/no tags/);
  });

  it('tags are lowercase', () => {
    expect(formulaError({ formula: '2d6 Fire', tags: ['fire'] }).column).toBe(5);
  });

  it('a tag needs whitespace before it and is the last word', () => {
    expect(formulaError({ formula: '2d6fire', tags: ['fire'] }).code).toBe('invalid_formula');
    expect(formulaError({ formula: '2d6 fire+1', tags: ['fire'] }).code).toBe('invalid_formula');
    expect(formulaError({ formula: '2d6 fire cold', tags: ['fire', 'cold'] }).code).toBe('invalid_formula');
  });
});

describe('keep and drop', () => {
  it('4d6kh3 keeps the three highest', () => {
    const g = group(rollWith('4d6kh3', [2, 6, 3, 4]));
    expect(g).toMatchObject({ keptFlags: [false, true, true, true], kept: [6, 4, 3], total: 13 });
  });

  it('k is kh, and N defaults to 1', () => {
    expect(group(rollWith('4d6k3', [2, 6, 3, 4])).keptFlags).toEqual([false, true, true, true]);
    expect(group(rollWith('4d6k', [2, 6, 3, 4])).keptFlags).toEqual([false, true, false, false]);
    expect(group(rollWith('4d6kh', [2, 6, 3, 4])).keptFlags).toEqual([false, true, false, false]);
    expect(group(rollWith('4d6kl', [2, 6, 3, 4])).keptFlags).toEqual([true, false, false, false]);
  });

  it('4d6kl3 and 2d20kl1 keep the lowest', () => {
    expect(group(rollWith('4d6kl3', [2, 6, 3, 4])).keptFlags).toEqual([true, false, true, true]);
    const g = group(rollWith('2d20kl1', [15, 1]));
    expect(g).toMatchObject({ kept: [1], keptFlags: [false, true], naturalLow: true, naturalHigh: false });
  });

  it('dhN and dlN drop the highest and lowest, N defaulting to 1', () => {
    expect(group(rollWith('4d6dl1', [5, 1, 3, 4])).keptFlags).toEqual([true, false, true, true]);
    expect(group(rollWith('4d6dl', [5, 1, 3, 4])).keptFlags).toEqual([true, false, true, true]);
    expect(group(rollWith('4d6dh2', [5, 1, 3, 4])).keptFlags).toEqual([false, true, true, false]);
    expect(group(rollWith('4d6dh', [5, 1, 3, 4])).keptFlags).toEqual([false, true, true, true]);
  });

  it('ties: the earlier die is kept first by kh and kl', () => {
    expect(group(rollWith('3d6kh1', [5, 5, 2])).keptFlags).toEqual([true, false, false]);
    expect(group(rollWith('3d6kh2', [5, 5, 5])).keptFlags).toEqual([true, true, false]);
    expect(group(rollWith('3d6kl1', [2, 5, 2])).keptFlags).toEqual([true, false, false]);
    expect(group(rollWith('4d6kl2', [3, 2, 2, 2])).keptFlags).toEqual([false, true, true, false]);
  });

  it('ties: the earlier die is dropped first by dh and dl', () => {
    expect(group(rollWith('3d6dl1', [2, 5, 2])).keptFlags).toEqual([false, true, true]);
    expect(group(rollWith('3d6dh1', [6, 3, 6])).keptFlags).toEqual([false, true, true]);
    expect(group(rollWith('4d6dh2', [6, 6, 6, 1])).keptFlags).toEqual([false, false, true, true]);
    expect(group(rollWith('4d6dl2', [1, 1, 1, 6])).keptFlags).toEqual([false, false, true, true]);
  });

  it('keeping more than were rolled keeps them all', () => {
    expect(group(rollWith('2d6kh5', [3, 4])).keptFlags).toEqual([true, true]);
    expect(group(rollWith('2d6kl2', [3, 4])).keptFlags).toEqual([true, true]);
  });

  it('dropping as many as were rolled, or more, drops them all', () => {
    const all = group(rollWith('2d6dl2', [3, 4]));
    expect(all).toMatchObject({ keptFlags: [false, false], kept: [], total: 0 });
    expect(all.naturalHigh || all.naturalLow).toBe(false);
    expect(group(rollWith('2d6dh9', [6, 1])).kept).toEqual([]);
  });

  it('keep N must be at least 1', () => {
    expect(formulaError('4d6kh0').column).toBe(4);
    expect(formulaError('4d6kl0').code).toBe('invalid_formula');
  });

  it('dropping none (dl0) drops nothing', () => {
    expect(group(rollWith('2d6dl0', [1, 2])).keptFlags).toEqual([true, true]);
  });
});

describe('adv and dis', () => {
  it('2d20adv is 2d20kh1 and sets advantageState', () => {
    const r = rollWith('2d20adv+5', [4, 17]);
    expect(group(r)).toMatchObject({ kept: [17], keptFlags: [false, true] });
    expect(r.total).toBe(22);
    expect(r.advantageState).toBe('advantage');
  });

  it('2d20dis is 2d20kl1', () => {
    const r = rollWith('2d20dis', [4, 17]);
    expect(group(r)).toMatchObject({ kept: [4], keptFlags: [true, false] });
    expect(r.advantageState).toBe('disadvantage');
  });

  it('4d20adv throws four and keeps one', () => {
    const g = group(rollWith('4d20adv', [3, 20, 7, 20]));
    expect(g.keptFlags).toEqual([false, true, false, false]);
    expect(g.naturalHigh).toBe(true);
  });

  it('ties keep the earlier die', () => {
    expect(group(rollWith('2d20adv', [9, 9])).keptFlags).toEqual([true, false]);
    expect(group(rollWith('2d20dis', [9, 9])).keptFlags).toEqual([true, false]);
  });

  it('1d20adv is deprecated: still throws two dice, counts two, and reports a warning', () => {
    const warnings: Array<{ message: string; item: string }> = [];
    const source = scripted([5, 12]);
    const r = roll({ formula: '1d20adv' }, { random: source, onDeprecation: (w) => warnings.push(w) });
    expect(group(r).results).toEqual([5, 12]);
    expect(group(r).kept).toEqual([12]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.item).toBe('formula');
    expect(warnings[0]?.message).toMatch(/deprecated/);
    expect(countDice({ formula: '1d20adv' })).toBe(2);
    expect(countDice({ formula: 'd20dis' })).toBe(2);
    expect(prepareRoll({ formula: '2d20adv' }).deprecations).toEqual([]);
    // The warning never goes into the response.
    expect(JSON.stringify(r)).not.toMatch(/deprecat/);
  });

  it('adv or dis with a keep/drop on the same term is invalid', () => {
    expect(formulaError('4d6kh3adv').column).toBe(7);
    expect(formulaError('2d20disk2').code).toBe('invalid_formula');
    expect(formulaError('2d20advdl1').message).toMatch(/adv/);
    expect(formulaError('2d20advdis').code).toBe('invalid_formula');
  });

  it('at most one adv/dis term per formula', () => {
    const error = formulaError('2d20adv+2d20dis');
    expect(error.column).toBe(13);
    expect(formulaError('2d20adv+1d6+2d6adv').code).toBe('invalid_formula');
  });
});

describe('explode and penetrate', () => {
  it('1d6! rolls one more die on a maximum, which may explode again', () => {
    const g = group(rollWith('1d6!', [6, 6, 2]));
    expect(g).toMatchObject({
      results: [6, 6, 2],
      keptFlags: [true, true, true],
      kept: [6, 6, 2],
      total: 14,
    });
    expect(g.naturalHigh).toBe(true);
  });

  it('3d6! explodes each die on its own, extras following their die', () => {
    const g = group(rollWith('3d6!', [6, 1, 2, 6, 6, 3]));
    expect(g.results).toEqual([6, 1, 2, 6, 6, 3]);
    expect(g.total).toBe(24);
  });

  it('1d6!p records every extra minus 1: a penetrated 1 is 0', () => {
    const g = group(rollWith('1d6!p', [6, 6, 1]));
    expect(g.results).toEqual([6, 5, 0]);
    expect(g.kept).toEqual([6, 5, 0]);
    expect(g.total).toBe(11);
    // 2d6!p from the table
    expect(group(rollWith('2d6!p', [6, 3, 4])).results).toEqual([6, 2, 4]);
  });

  it('a penetrating extra explodes on its raw maximum', () => {
    expect(group(rollWith('1d4!p', [4, 4, 4, 2])).results).toEqual([4, 3, 3, 1]);
  });

  it('a die explodes at most 100 times in a chain', () => {
    const faces = new Array(1 + LIMITS.explodeCap).fill(6);
    const g = group(rollWith('1d6!', faces));
    expect(g.results).toHaveLength(101);
    expect(g.total).toBe(606);
  });

  it('a condition every face meets is invalid: 1d1!', () => {
    expect(formulaError('1d1!').column).toBe(4);
    expect(formulaError('1d1!p').code).toBe('invalid_formula');
    expect(group(rollWith('1d2!', [1])).results).toEqual([1]);
  });
});

describe('reroll', () => {
  it('2d6r<3 rerolls a die while it shows 1 or 2', () => {
    const g = group(rollWith('2d6r<3', [1, 2, 5, 3]));
    expect(g).toMatchObject({
      results: [1, 2, 5, 3],
      keptFlags: [false, false, true, true],
      kept: [5, 3],
      total: 8,
    });
  });

  it('1d20ro1 rerolls at most once; the final throw decides the natural flags', () => {
    const g = group(rollWith('1d20ro1', [1, 1]));
    expect(g).toMatchObject({ results: [1, 1], keptFlags: [false, true], naturalLow: true });
    expect(group(rollWith('1d20ro1', [1, 20])).naturalHigh).toBe(true);
    expect(group(rollWith('1d20ro1', [20])).results).toEqual([20]);
  });

  it('r alone is r1', () => {
    expect(group(rollWith('2d6r', [1, 4, 2])).keptFlags).toEqual([false, true, true]);
    expect(group(rollWith('1d6ro', [1, 1])).results).toEqual([1, 1]);
  });

  it('compare points: N, =N, <N, <=N, >N, >=N', () => {
    expect(group(rollWith('1d6r2', [2, 3])).results).toEqual([2, 3]);
    expect(group(rollWith('1d6r=2', [2, 1])).results).toEqual([2, 1]);
    expect(group(rollWith('1d6r<3', [2, 1, 3])).results).toEqual([2, 1, 3]);
    expect(group(rollWith('1d6r<=2', [2, 1, 3])).results).toEqual([2, 1, 3]);
    expect(group(rollWith('1d6r>4', [5, 6, 4])).results).toEqual([5, 6, 4]);
    expect(group(rollWith('1d6r>=5', [5, 4])).results).toEqual([5, 4]);
    expect(group(rollWith('1d6r>=5', [4])).results).toEqual([4]);
  });

  it('a die is rerolled at most 100 times and then keeps its last throw', () => {
    const faces = new Array(1 + LIMITS.rerollCap).fill(1);
    const g = group(rollWith('1d6r1', faces));
    expect(g.results).toHaveLength(101);
    expect(g.keptFlags.filter(Boolean)).toHaveLength(1);
    expect(g.keptFlags[100]).toBe(true);
    expect(g.kept).toEqual([1]);
  });

  it('a condition every face meets is invalid', () => {
    expect(formulaError('1d6r<7').column).toBe(4);
    expect(formulaError('1d6r>=1').code).toBe('invalid_formula');
    expect(formulaError('1d6ro<=6').code).toBe('invalid_formula');
    expect(formulaError('1d1r1').code).toBe('invalid_formula');
    expect(group(rollWith('1d6r<6', [6])).results).toEqual([6]);
  });

  it('a condition no face meets rerolls nothing', () => {
    expect(group(rollWith('1d6r7', [6])).results).toEqual([6]);
    expect(group(rollWith('1d6r>6', [6])).results).toEqual([6]);
  });
});

describe('a die is one die, however many throws it took', () => {
  it('the final throw may explode after rerolls', () => {
    const g = group(rollWith('1d6r1!', [1, 6, 3]));
    expect(g).toMatchObject({
      results: [1, 6, 3],
      keptFlags: [false, true, true],
      total: 9,
      naturalHigh: true,
    });
  });

  it('a rerolled-away top face does not explode', () => {
    expect(group(rollWith('1d6r6!', [6, 2])).results).toEqual([6, 2]);
  });

  it('explosion extras are never rerolled', () => {
    expect(group(rollWith('1d6r1!', [6, 1])).results).toEqual([6, 1]);
    expect(group(rollWith('1d6r1!', [6, 1])).keptFlags).toEqual([true, true]);
  });

  it('keep/drop ranks dice by value and keeps whole chains (4d6!kh3)', () => {
    // values: 6+2=8, 5, 6+6+1=13, 3
    const g = group(rollWith('4d6!kh3', [6, 2, 5, 6, 6, 1, 3]));
    expect(g.results).toEqual([6, 2, 5, 6, 6, 1, 3]);
    expect(g.keptFlags).toEqual([true, true, true, true, true, true, false]);
    expect(g.kept).toEqual([6, 6, 6, 5, 2, 1]);
    expect(g.total).toBe(26);
  });

  it('keeping a single exploded die looks at its final throw for naturalHigh', () => {
    const g = group(rollWith('2d6!kh1', [3, 6, 1]));
    expect(g).toMatchObject({ keptFlags: [false, true, true], naturalHigh: true, naturalLow: false });
  });

  it('rerolled-away throws are flagged false even on a kept die', () => {
    const g = group(rollWith('2d6r1kh1', [1, 5, 4]));
    expect(g.keptFlags).toEqual([false, true, false]);
  });

  it('modifiers apply in the fixed order whatever the written order', () => {
    const a = group(rollWith('4d6x2kh3r1', [1, 2, 6, 3, 4]));
    const b = group(rollWith('4d6r1kh3x2', [1, 2, 6, 3, 4]));
    expect(a).toEqual(b);
    expect(a.total).toBe(26);
  });
});

describe('multiply', () => {
  it('1d6x10 multiplies its own group only', () => {
    const r = rollWith('1d6x10+5', [4]);
    expect(group(r).multiplier).toBe(10);
    expect(group(r).total).toBe(40);
    expect(r.total).toBe(45);
  });

  it('a negative multiplied group', () => {
    expect(rollWith('10-2d4x3', [1, 2]).total).toBe(1);
  });

  it('K is 1 to 1000', () => {
    expect(group(rollWith('1d6x1000', [2])).total).toBe(2000);
    expect(formulaError('1d6x0').column).toBe(4);
    expect(formulaError('1d6x1001').code).toBe('invalid_formula');
    expect(formulaError('1d6x').column).toBe(5);
  });
});

describe('each modifier at most once per dice term', () => {
  // `1d6!!` (compounding) and `1d6!!p` are their own modifiers: `1d6!p!` explodes twice.
  it.each([
    '4d6kh3kh2',
    '4d6dl1d1',
    '1d6!p!',
    '1d6!!p!',
    '2d6u1uo2',
    '6d6mmt',
    '2d6r1ro2',
    '1d6x2x3',
    '2d20advadv',
  ])('%s', (formula) => {
    expect(formulaError(formula).code).toBe('invalid_formula');
  });
});

describe('natural flags', () => {
  it('are false with more than one kept die, even showing the top face', () => {
    const g = group(rollWith('2d20', [20, 1]));
    expect(g.naturalHigh).toBe(false);
    expect(g.naturalLow).toBe(false);
  });

  it('a single d20 showing 1 is a natural low', () => {
    expect(group(rollWith('1d20', [1]))).toMatchObject({ naturalLow: true, naturalHigh: false });
  });

  it('apply to any single kept die, not only d20', () => {
    expect(group(rollWith('1d6', [6])).naturalHigh).toBe(true);
    expect(group(rollWith('3d6kh1', [2, 6, 6])).naturalHigh).toBe(true);
  });
});

describe('the request: advantage', () => {
  it('1d20+7 with advantage is thrown as two and keeps the highest', () => {
    const r = rollWith({ formula: '1d20+7', advantage: 'advantage' }, [5, 16]);
    expect(group(r)).toMatchObject({ results: [5, 16], keptFlags: [false, true], total: 16 });
    expect(r.advantageState).toBe('advantage');
    expect(r.total).toBe(23);
    expect(countDice({ formula: '1d20+7', advantage: 'advantage' })).toBe(2);
  });

  it('disadvantage keeps the lowest', () => {
    const r = rollWith({ formula: 'd20', advantage: 'disadvantage' }, [5, 16]);
    expect(group(r).kept).toEqual([5]);
    expect(r.advantageState).toBe('disadvantage');
  });

  it('keeps one die out of however many the term throws', () => {
    const r = rollWith({ formula: '3d20', advantage: 'advantage' }, [5, 16, 2]);
    expect(group(r).keptFlags).toEqual([false, true, false]);
    expect(countDice({ formula: '3d20', advantage: 'advantage' })).toBe(3);
  });

  it('applies to the first plain d20 term only', () => {
    const r = rollWith({ formula: '2d20kh1+1d20+1d20', advantage: 'advantage' }, [3, 4, 8, 9, 10]);
    expect(r.dice.map((g) => g.results.length)).toEqual([2, 2, 1]);
    expect(group(r, 1).keptFlags).toEqual([false, true]);
  });

  it('a plain d20 may explode or reroll; advantage still applies', () => {
    const r = rollWith({ formula: '1d20ro1', advantage: 'advantage' }, [1, 3, 7]);
    expect(group(r).results).toEqual([1, 3, 7]);
    expect(group(r).keptFlags).toEqual([false, false, true]);
  });

  it('with no plain d20, nothing changes and the state is normal', () => {
    const r = rollWith({ formula: '2d6+1d20kl1', advantage: 'advantage' }, [1, 2, 3]);
    expect(r.advantageState).toBe('normal');
    expect(r.dice.map((g) => g.results.length)).toEqual([2, 1]);
  });

  it('normal changes nothing', () => {
    const r = rollWith({ formula: '1d20', advantage: 'normal' }, [3]);
    expect(r.advantageState).toBe('normal');
  });

  it('an adv/dis term plus non-normal advantage is invalid_request', () => {
    for (const advantage of ['advantage', 'disadvantage'] as const) {
      expect(() => roll({ formula: '2d20adv', advantage })).toThrow(RequestError);
      expect(() => prepareRoll({ formula: '1d20+1', bonuses: ['2d20dis'], advantage })).toThrow(RequestError);
    }
    expect(rollWith({ formula: '2d20dis', advantage: 'normal' }, [1, 2]).advantageState).toBe('disadvantage');
    try {
      roll({ formula: '2d20adv', advantage: 'advantage' });
    } catch (error) {
      expect((error as RequestError).code).toBe('invalid_request');
    }
  });

  it('an unknown advantage value is invalid_request', () => {
    expect(() => roll({ formula: '1d20', advantage: 'lucky' as 'normal' })).toThrow(RequestError);
  });
});

describe('the request: bonuses', () => {
  it('integers are modifiers; strings add their dice and flats, in bonus order', () => {
    const r = rollWith(
      { formula: '1d20+5', bonuses: [2, '1d4', '-2', '1d6+1', '+1d8-1d4'] },
      [10, 3, 5, 7, 2],
    );
    expect(r.dice.map((g) => [g.sides, g.sign])).toEqual([
      [20, 1],
      [4, 1],
      [6, 1],
      [8, 1],
      [4, -1],
    ]);
    expect(r.modifiers).toEqual([5, 2, -2, 1]);
    expect(r.modifier).toBe(6);
    expect(r.total).toBe(10 + 3 + 5 + 7 - 2 + 6);
  });

  it('a fragment that does not parse names the bonus and its column', () => {
    const error = formulaError({ formula: '1d20', bonuses: [1, '1d4+'] });
    expect(error.item).toBe('bonuses[1]');
    expect(error.column).toBe(5);
    expect(error.message).toMatch(/^bonuses\[1\], column 5: /);
  });

  it('a fragment takes no tag', () => {
    expect(formulaError({ formula: '1d20', bonuses: ['1d4 fire'], tags: ['fire'] }).item).toBe('bonuses[0]');
  });

  it('a fragment may be flat only, and obeys the term rules', () => {
    expect(rollWith({ formula: '1d20', bonuses: ['3'] }, [1]).modifiers).toEqual([3]);
    expect(formulaError({ formula: '1d20', bonuses: ['1d1!'] }).item).toBe('bonuses[0]');
    expect(formulaError({ formula: '1d20', bonuses: ['1001d6'] }).item).toBe('bonuses[0]');
  });

  it('bonus dice count toward the roll', () => {
    expect(countDice({ formula: '2d6', bonuses: ['1d4+2d8', 5] })).toBe(5);
  });

  it('integer bonuses obey the flat limit; a non-integer is invalid_request', () => {
    expect(formulaError({ formula: '1d20', bonuses: [1_000_001] }).item).toBe('bonuses[0]');
    expect(() => roll({ formula: '1d20', bonuses: [1.5] })).toThrow(RequestError);
  });

  it('the deprecated form in a bonus is reported for that bonus', () => {
    const warnings: string[] = [];
    roll(
      { formula: '1d6', bonuses: [1, '1d20adv'] },
      { random: maxSource(), onDeprecation: (w) => warnings.push(w.item) },
    );
    expect(warnings).toEqual(['bonuses[1]']);
  });
});

describe('limits', () => {
  it('sides: 1 to 2^32', () => {
    expect(group(rollWith('1d4294967296', [4294967296])).naturalHigh).toBe(true);
    expect(group(rollWith('1d1', [1])).results).toEqual([1]);
    expect(formulaError('1d4294967297').column).toBe(3);
    expect(formulaError('1d0').column).toBe(3);
  });

  it('count: 1 to 1000', () => {
    expect(countDice({ formula: '1000d6' })).toBe(1000);
    expect(formulaError('1001d6').column).toBe(1);
    // docs/language.md "Limits": a roll over the dice limit is refused with a message stating the limit and the count.
    expect(formulaError('1001d6').message).toMatch(/1,000\b.*1,001/);
    expect(formulaError('0d6').code).toBe('invalid_formula');
    expect(formulaError('2+0d6').column).toBe(3);
  });

  it('flat integers: at most 1,000,000 in absolute value', () => {
    expect(rollWith('1d6+1000000', [1]).total).toBe(1_000_001);
    expect(rollWith('1d6-1000000', [1]).total).toBe(-999_999);
    expect(formulaError('1d6+1000001').column).toBe(5);
    expect(formulaError('-1000001+1d6').code).toBe('invalid_formula');
  });

  it('per-roll dice: over the limit states the limit and the requested count', () => {
    const error = formulaError('600d6+500d6');
    expect(error.message).toContain('1,100');
    expect(error.message).toContain('1,000');
    expect(formulaError({ formula: '999d6', bonuses: ['2d4'] }).message).toContain('1,001');
    expect(formulaError({ formula: '1d20', advantage: 'advantage', bonuses: ['999d4'] }).message).toContain(
      '1,001',
    );
    expect(countDice({ formula: '500d6+500d6' })).toBe(1000);
  });

  it('the per-roll limit is configurable', () => {
    expect(() => countDice({ formula: '11d6' }, { dicePerRoll: 10 })).toThrow(/at most 10\b/);
    expect(countDice({ formula: '10d6' }, { dicePerRoll: 10 })).toBe(10);
  });

  it('1000d2! with an always-maximum source ends with exactly 100 extras per die', () => {
    const source = maxSource();
    const r = roll({ formula: '1000d2!' }, { random: source });
    expect(source.calls).toBe(1000 * 101);
    expect(group(r).results).toHaveLength(1000 * 101);
    expect(r.total).toBe(1000 * 101 * 2);
  });

  it('1000d6r>1 with an always-maximum source ends after 100 rerolls per die', () => {
    const source = maxSource();
    const r = roll({ formula: '1000d6r>1' }, { random: source });
    expect(source.calls).toBe(1000 * 101);
    expect(group(r).kept).toHaveLength(1000);
  });

  it('1000d2! with the real source finishes with at most the documented extras', () => {
    const r = roll({ formula: '1000d2!' });
    const g = group(r);
    expect(g.results.length).toBeGreaterThanOrEqual(1000);
    expect(g.results.length).toBeLessThanOrEqual(1000 * (1 + LIMITS.explodeCap));
    // Replay the chains: no die has more than 100 extras.
    let i = 0;
    let dice = 0;
    while (i < g.results.length) {
      let extras = 0;
      let face = g.results[i++];
      while (face === 2 && i < g.results.length && extras < LIMITS.explodeCap) {
        face = g.results[i++];
        extras++;
      }
      dice++;
    }
    expect(dice).toBe(1000);
  });
});

describe('errors', () => {
  it('a formula error carries code, item, column and what was expected', () => {
    const error = formulaError('4d');
    expect(error.code).toBe('invalid_formula');
    expect(error.item).toBe('formula');
    expect(error.column).toBe(3);
    expect(error.expected).toEqual(['a number of sides']);
    expect(error.message).toBe('formula, column 3: Expected a number of sides, but the formula ends there.');
  });

  it('a failing random source becomes RandomSourceError with its cause', () => {
    const cause = new Error('entropy gone');
    try {
      roll(
        { formula: '2d6' },
        {
          random: {
            die() {
              throw cause;
            },
          },
        },
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RandomSourceError);
      expect((error as RandomSourceError).code).toBe('internal_error');
      expect((error as RandomSourceError).cause).toBe(cause);
    }
  });

  it('a random source giving a face outside 1..sides is a RandomSourceError', () => {
    for (const face of [0, 7, 2.5, Number.NaN]) {
      expect(() => roll({ formula: '1d6' }, { random: { die: () => face } })).toThrow(RandomSourceError);
    }
  });
});

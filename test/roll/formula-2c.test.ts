// The second edition, part C (docs/language.md): not-equal points, !!p, bare drop, several
// keep/drop modifiers, unique, matching sets, powers, remainders, dice divisors and computed
// counts and sides, rolled with scripted faces so every value is known; each limit at and past
// its bound; what stays refused says why and what to write instead.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormulaError, parseFormula, type RollResponse, roll } from '../../src/index.js';
import { maxSource, minSource, scripted } from '../support/sources.js';

function rollWith(formula: string, faces: readonly number[]): RollResponse {
  const source = scripted(faces);
  const response = roll({ formula }, { random: source });
  expect(source.remaining, 'every scripted face is thrown').toBe(0);
  return response;
}

function formulaError(formula: string): FormulaError {
  try {
    roll({ formula }, { random: maxSource() });
  } catch (error) {
    expect(error).toBeInstanceOf(FormulaError);
    return error as FormulaError;
  }
  throw new Error(`${formula} rolled; it should be refused`);
}

const g = (response: RollResponse, i = 0) => response.dice[i]!;

describe('not equal <>N', () => {
  it('counts successes not equal to N', () => {
    const r = rollWith('6d10<>1', [1, 2, 1, 3, 4, 5]);
    expect(g(r).successes).toBe(4);
    expect(r.total).toBe(4);
  });
  it('explodes on every value but N', () => {
    // First die 4: no extra; second die 3 explodes, its extra 4 stops the chain.
    const r = rollWith('2d6!<>4', [4, 3, 4]);
    expect(g(r).results).toEqual([4, 3, 4]);
    expect(r.total).toBe(11);
  });
  it('rerolls while not N; a condition every value meets is refused', () => {
    expect(rollWith('1d6r<>6', [2, 5, 6]).total).toBe(6);
    expect(formulaError('1d10!<>11').message).toMatch(/Every face of a d10 meets this condition/);
    expect(formulaError('1d6r<>0').message).toMatch(/never settle/);
  });
  it('!=N after a dice term stays explode on =N', () => {
    expect(rollWith('1d6!=2', [2, 2, 5]).total).toBe(9);
  });
});

describe('compounding penetration !!p', () => {
  it('merges a chain, each extra recorded minus 1 after its test', () => {
    const r = rollWith('2d6!!p', [6, 6, 2, 3]);
    expect(g(r).results).toEqual([12, 3]);
    expect(g(r).compounded).toBe(true);
    expect(g(r).throws).toEqual([
      { die: 0, kind: 'roll', value: 6 },
      { die: 0, kind: 'explode', value: 5, face: 6 },
      { die: 0, kind: 'explode', value: 1, face: 2 },
      { die: 1, kind: 'roll', value: 3 },
    ]);
    expect(r.total).toBe(15);
  });
  it('with a compare point', () => {
    expect(rollWith('1d6!!p>4', [5, 5, 1]).total).toBe(9);
    expect(rollWith('1d6!!P>4', [4]).total).toBe(4);
  });
  it('at most one explode of any kind', () => {
    expect(formulaError('1d6!!p!').message).toMatch(/explodes .* at most once/);
  });
});

describe('bare drop dN and several keep/drop modifiers', () => {
  it('dN is drop lowest N, ties dropping the earlier die', () => {
    const r = rollWith('4d6d1', [3, 1, 4, 1]);
    expect(g(r).keptFlags).toEqual([true, false, true, true]);
    expect(r.total).toBe(8);
    expect(rollWith('4d6D2', [3, 1, 4, 1]).total).toBe(7);
  });
  it('dis and dh stay themselves', () => {
    expect(rollWith('2d20dis', [5, 17]).total).toBe(5);
    expect(rollWith('3d6dh1', [5, 6, 2]).total).toBe(7);
  });
  it('each modifier ranks all the dice; a die counts only when none drops it', () => {
    const r = rollWith('4d10dh1dl2', [2, 8, 6, 4]);
    expect(g(r).keptFlags).toEqual([false, false, true, false]);
    expect(r.total).toBe(6);
    // k1 keeps the first 7, dh1 drops that same die: nothing is left.
    const none = rollWith('3d10k1dh1', [5, 7, 7]);
    expect(g(none).kept).toEqual([]);
    expect(none.total).toBe(0);
    expect(rollWith('5d6kh4kl3', [6, 5, 4, 3, 2]).total).toBe(7);
  });
  it('each distinct modifier at most once; adv/dis stand alone', () => {
    expect(formulaError('4d6kh1kh2').message).toMatch(/at most one keep highest/);
    expect(formulaError('4d6dl1d1').message).toMatch(/at most one drop lowest/);
    expect(formulaError('2d20advkh1').message).toMatch(/adv and dis cannot be combined/);
    expect(formulaError('2d20dl1dis').message).toMatch(/adv and dis cannot be combined/);
  });
});

describe('unique u / uo / uP / uoP', () => {
  it('rerolls a die while it repeats an earlier die of the term', () => {
    const r = rollWith('4d6u', [2, 2, 3, 2, 5, 3, 1]);
    expect(g(r).results).toEqual([2, 2, 3, 2, 5, 3, 1]);
    expect(g(r).keptFlags).toEqual([true, false, true, false, true, false, true]);
    expect(g(r).throws!.map((t) => t.kind)).toEqual([
      'roll',
      'roll',
      'reroll',
      'roll',
      'reroll',
      'roll',
      'reroll',
    ]);
    expect(r.total).toBe(11);
  });
  it('uo rerolls at most once', () => {
    expect(rollWith('3d6uo', [4, 4, 4, 4, 4]).total).toBe(12);
  });
  it('stops after 100 rerolls; the last throw stands', () => {
    const r = rollWith('2d1u', new Array(102).fill(1));
    expect(g(r).results).toHaveLength(102);
    expect(r.total).toBe(2);
  });
  it('uP considers only values meeting P', () => {
    expect(rollWith('4d6u<3', [5, 5, 1, 1, 2]).total).toBe(13);
    expect(rollWith('3d6uo>4', [5, 5, 5, 1]).total).toBe(11);
  });
  it('applies after reroll, and records throws even when nothing repeats', () => {
    const r = rollWith('2d6r1u', [1, 2, 2, 3]);
    expect(g(r).throws!.map((t) => t.kind)).toEqual(['roll', 'reroll', 'roll', 'reroll']);
    expect(r.total).toBe(5);
    expect(g(rollWith('2d6u', [1, 2])).throws).toHaveLength(2);
  });
  it('never with an explode; once per term', () => {
    for (const f of ['6d6u!', '6d6!pu', '6d6!!u', '6d6uo!!p'])
      expect(formulaError(f).message).toMatch(/unique/);
    expect(formulaError('6d6uuo').message).toMatch(/at most one unique/);
  });
});

describe('matching sets m / mN / mt / mtN', () => {
  const faces = [3, 1, 3, 5, 1, 1];
  it('m lists the values shown by at least N kept dice, the total unchanged', () => {
    const r = rollWith('6d6m', faces);
    expect(g(r).matches).toEqual([1, 3]);
    expect(r.total).toBe(14);
    expect(g(rollWith('6d6m3', faces)).matches).toEqual([1]);
    expect(g(rollWith('6d6kh3m', faces)).matches).toEqual([3]);
    expect(g(rollWith('2d6m', [1, 2])).matches).toEqual([]);
    expect(g(rollWith('3d6', [1, 1, 2])).matches).toBeUndefined();
  });
  it('mt makes the total the number of sets, times sign and multiplier', () => {
    expect(rollWith('6d6mt', faces).total).toBe(2);
    expect(rollWith('6d6mt3', faces).total).toBe(1);
    expect(rollWith('6d6mtx3', faces).total).toBe(6);
    expect(rollWith('1d4-6d6mt', [4, ...faces]).total).toBe(2);
  });
  it('N from 2; at most one; mt never with a success point', () => {
    expect(formulaError('6d6m1').message).toMatch(/2 to 1,000/);
    expect(formulaError('6d6mt1001').message).toMatch(/2 to 1,000/);
    expect(formulaError('6d6mmt').message).toMatch(/at most one matching set/);
    expect(formulaError('6d6mt>3').message).toMatch(/success point/);
    expect(rollWith('6d6m>3', faces).total).toBe(1);
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
    expect(g(r).sides).toBe(15);
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
    expect(g(r).results).toEqual([3, 9]);
    expect(r.total).toBe(12);
    expect(r.expression).toBeUndefined();
    const s = rollWith('3d(2*6)', [12, 1, 1]);
    expect(g(s).sides).toBe(12);
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

describe('what stays refused says why and what to write', () => {
  it.each([
    ['20*17', /must roll at least one die/],
    ['2^3', /must roll at least one die/],
    ['1d10!>0', /Every face of a d10 meets this condition/],
    ['d6 # note', /use a label \[note\].*or a tag/],
    ['1d20 // to hit', /use a label \[note\]/],
    ['[[2d20]]', /not text with embedded rolls/],
  ])('%s', (formula, message) => {
    const error = formulaError(formula);
    expect(error.code).toBe('invalid_formula');
    expect(error.message).toMatch(message);
  });
});

describe("another tool's notation answers why, and what to write where fairdice has a spelling", () => {
  const FUNCTIONS = 'The functions are floor, ceil, round, abs, min and max.';
  const SORTING =
    'Sorting (s, sa, sd) is not a modifier here: the total does not depend on the order, and results stay in rolling order for a display to sort; leave it out.';
  const REROLLS =
    'A dice term takes at most one reroll (r or ro), on one compare point: rerolls on several values such as r8r1 cannot be combined; one point may cover a range (r<3, r>=7).';
  it.each([
    [
      'sqrt(1d6)',
      1,
      `sqrt is refused: a formula's value stays exact (a rational number) and sqrt's results are not. ${FUNCTIONS}`,
    ],
    [
      '1d20+LOG(1d6)',
      6,
      `log is refused: a formula's value stays exact (a rational number) and log's results are not. ${FUNCTIONS}`,
    ],
    ['pow(1d6,2)', 1, 'Powers are written with ^ (or **) here: write 1d6^2, not pow(1d6,2).'],
    [
      'sign(1d6-3)',
      1,
      'sign is not a function here: the functions are floor, ceil, round, abs, min and max.',
    ],
    ['4d6s', 4, SORTING],
    ['4d6sa', 4, SORTING],
    ['4d6kh3sd', 7, SORTING],
    ['4dF.2', 4, 'dF.2 is the usual Fate die, written dF here: write 4dF.'],
    [
      '4dF.1',
      4,
      'dF.1 (one minus face, four blank faces, one plus face) is a custom die here: write 4d{-1,0,0,0,0,1}.',
    ],
    [
      '4dF.3',
      4,
      'A Fate die is dF (faces -1, 0 and +1); list other faces as a custom die, such as d{-1,0,0,0,0,1}.',
    ],
    ['1d6*1.5', 5, 'Numbers are whole numbers here: write 1.5 as a fraction, (3/2).'],
    ['2d6/0.25', 5, 'Numbers are whole numbers here: write 0.25 as a fraction, (1/4).'],
    [
      '1d20+5[str]',
      7,
      'A label names a dice term, not a number: move it after a dice term, or leave it out.',
    ],
    [
      '(1d20+5)[str]',
      9,
      'A label follows a dice term or a group, not parentheses: write braces, {1d20+5}[str].',
    ],
    [
      'floor(1d6/2)[half]',
      13,
      'A label follows a dice term or a group, not a function call: put it on a dice term inside, or leave it out.',
    ],
    ['2d8r8r1', 6, REROLLS],
    ['2d6ror1', 6, REROLLS],
    [
      '2d6rr1',
      5,
      'A dice term takes at most one reroll: r already rerolls until the condition fails, so write r, not rr (ro rerolls once).',
    ],
    [
      '4d6xo',
      5,
      'x multiplies here (1d6x10 is ten times 1d6): explode with ! (1d6!); an explosion that stops after one extra throw has no spelling here.',
    ],
    [
      '1d6x',
      5,
      'x multiplies here and takes a number (1d6x10 is ten times 1d6): to explode, write ! (1d6!, or 1d6!>=5 on a compare point).',
    ],
  ])('%s (column %i)', (formula, column, message) => {
    const error = formulaError(formula);
    expect(error.code).toBe('invalid_formula');
    expect(error.detail).toBe(message);
    expect(error.message).toBe(`formula, column ${column}: ${message}`);
  });
  it('the spellings these messages offer roll', () => {
    for (const formula of [
      '4dF',
      '4d{-1,0,0,0,0,1}',
      '1d6*(3/2)',
      '{1d20+5}[str]',
      '2d6r1',
      '1d6x10',
      '1d6!>=5',
    ])
      expect(Number.isInteger(roll({ formula }, { random: minSource() }).total), formula).toBe(true);
  });
  it('every string of these notations parses or throws FormulaError', () => {
    const chars = [...'0123456789dDfF.+-*/()[]{}<>=!rosaxq ', 'sqrt(', 'pow(', 'dF.1', 'rr', 'xo', '[str]'];
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: fc.constantFrom(...chars) }), (text) => {
        try {
          parseFormula(text);
        } catch (error) {
          if (!(error instanceof FormulaError)) throw error;
          expect(error.detail.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });
  it('only where the parse failed: the same letters elsewhere keep the usual message', () => {
    expect(formulaError('2d6+s').detail).toBe('Expected a term (dice like 2d6, or a number), but found "s".');
    expect(formulaError('2d6[fire]+').detail).toMatch(/^Expected a term/);
  });
});

describe('totality over Part C syntax', () => {
  const chars = [...'0123456789dD%+-*/^()<>=!pPuUoOmMtTkKhHlL{},[] ', '**', '<>', '!!p', 'mt'];
  it('every string of these characters parses or throws FormulaError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: fc.constantFrom(...chars) }), (text) => {
        try {
          const ast = parseFormula(text);
          expect(ast.kind).toBe('formula');
          roll({ formula: text }, { random: minSource() });
        } catch (error) {
          if (!(error instanceof FormulaError)) throw error;
          expect(error.code).toBe('invalid_formula');
        }
      }),
      { numRuns: 3000 },
    );
  });
});

// What a formula in another tool's notation is told (src/formula/notation.ts, docs/language.md
// "Coming from Roll20 / Foundry / rpg-dice-roller"): why fairdice refuses it, and what to write
// where fairdice has a spelling; only where the parse failed.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormulaError, parseFormula, roll } from '../../src/index.js';
import { formulaError } from '../support/rolls.js';
import { minSource } from '../support/sources.js';

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
    'A dice term takes at most one reroll (r or ro), on one compare point: rerolls on several values such as r8r1 cannot be combined; one point may cover a range (r>=7 rerolls every 7 or more).';
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

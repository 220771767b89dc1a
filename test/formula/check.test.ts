// The rules the grammar leaves open (src/formula/check.ts): the checks return the tree they are
// given, or a new one where a computed count or number of sides was resolved, and never write
// into a node; each rule refuses with its message at its column.

import { describe, expect, it } from 'vitest';
import type { DiceNode, FormulaNode } from '../../src/formula/ast.js';
import { deepFreeze } from '../../src/formula/cache.js';
import { checkTerms } from '../../src/formula/check.js';
import { parse } from '../../src/formula/generated/parser.js';

/** The parser's tree, before any check, frozen: a check writing into it would throw. */
const unchecked = (text: string): FormulaNode => deepFreeze(parse(text, { startRule: 'Formula' }));
const check = (text: string) => checkTerms(unchecked(text), 'formula', 'formula');
const dice = (node: unknown): DiceNode => node as DiceNode;

describe('the checked tree', () => {
  it('is the tree given when nothing is computed', () => {
    const tree = unchecked('(1d8+4)*2+{1d6,1d4}kh1');
    expect(checkTerms(tree, 'formula', 'formula')).toBe(tree);
  });

  it('resolves computed counts and sides into new nodes, sharing what did not change', () => {
    const tree = unchecked('(4-2)d10+3d(2*6)+1d4');
    const checked = checkTerms(tree, 'formula', 'formula');
    expect(checked).not.toBe(tree);
    expect([dice(checked.terms[0]).count, dice(checked.terms[1]).sides]).toEqual([2, 12]);
    // The tree given is unchanged (frozen), and the unchanged term is shared.
    expect([dice(tree.terms[0]).count, dice(tree.terms[1]).sides]).toEqual([1, 0]);
    expect(checked.terms[2]).toBe(tree.terms[2]);
    expect(dice(checked.terms[0]).countExpression).toBe(dice(tree.terms[0]).countExpression);
  });

  it('rebuilds the path to a computed count inside arithmetic, and only that path', () => {
    const tree = unchecked('((4-2)d10)*2+max(1d6,3)');
    const checked = checkTerms(tree, 'formula', 'formula');
    const product = checked.terms[0]!;
    expect(
      product.kind === 'product' && product.left.kind === 'sum' && dice(product.left.terms[0]).count,
    ).toBe(2);
    expect(checked.terms[1]).toBe(tree.terms[1]);
  });
});

describe('each rule, at its column', () => {
  it.each([
    ['4d6kh1kh2', 'formula, column 7: A dice term takes at most one keep highest (kh or k).'],
    [
      '1d6rr2',
      'formula, column 5: A dice term takes at most one reroll: r already rerolls until the condition fails, so write r, not rr (ro rerolls once).',
    ],
    ['2d20advkh1', 'formula, column 5: adv and dis cannot be combined with a keep or drop on the same term.'],
    [
      '4d6u!',
      'formula, column 5: u (unique) cannot be combined with !, !p, !! or !!p on the same term: an extra throw is never unique.',
    ],
    ['4d6m1', 'formula, column 4: A matching set has 2 to 1,000 dice (m, m3, mt, mt3).'],
    ['1d6min7', 'formula, column 4: min must lie from the smallest face to the largest (1 to 6).'],
    ['1d6min4max3', 'formula, column 8: min cannot be above max.'],
    [
      '1d6!>=1',
      'formula, column 4: Every face of a d6 meets this condition (after min and max), so it would explode forever: write a condition some face misses, such as !>5.',
    ],
    ['1d1!', 'formula, column 4: A one-sided die always shows its maximum, so it cannot explode.'],
    [
      '1d6r<7',
      'formula, column 4: Every face of a d6 meets this reroll condition, so the die would never settle.',
    ],
    ['1d6f1', 'formula, column 4: f counts failures and needs a success point in the same term (6d10>=8f1).'],
    ['1d6/(2-2)', 'formula, column 5: A divisor must not be zero.'],
    [
      '1d20/(1d4-2)',
      'formula, column 6: A divisor with dice must never be zero: its values may range from -1 to 2, which holds 0 (write (2d6+3)/2, or a divisor like 1d6+1).',
    ],
    [
      '1d6^(1d2)',
      'formula, column 5: An exponent is a number without dice, a whole number from 0 to 20 (write 1d6^2, not 2^1d6).',
    ],
    ['2^(1/2)+1d6', 'formula, column 3: An exponent is a whole number from 0 to 20.'],
    ['1d1000000^17', 'formula, column 1: A power may reach at most 10^100 in absolute value.'],
    ['{1d6,1d8}kh1kl1', 'formula, column 13: A group takes at most one keep or drop.'],
    [
      '{1d6+2}kh1',
      'formula, column 6: A one-item group with modifiers is a pool of dice: its item only adds dice terms ({4d6+3d8}kh3); for item totals, list two or more items.',
    ],
    [
      '{1d6kh1+1d4}kh1',
      "formula, column 5: A dice term inside a pool group is kept and counted by the group's modifiers, not its own.",
    ],
    ['{600d6+600d6}kh1', 'formula, column 1: A pool group throws at most 1,000 dice, as one dice term does.'],
    ['floor(1d6,2)', 'formula, column 11: floor takes exactly one argument.'],
    ['max(1d6)', 'formula, column 1: max takes two or more arguments.'],
    ['(2-3)d6', 'formula, column 1: A dice term throws 1 to 1,000 dice; this one asks for -1.'],
    [
      '(1d2)d6',
      'formula, column 1: A computed count of dice is an expression without dice (write (4-2)d10 or 3d(2*6)).',
    ],
    ['3d(7/2)', 'formula, column 3: A computed number of sides must be a whole number; this one is 7/2.'],
    ['1d0', 'formula, column 3: A die has 1 to 4,294,967,296 sides.'],
    ['2d6+2d20adv+1d20dis', 'formula, column 17: A formula may have only one adv or dis term.'],
    ['1d6+1000001', 'formula, column 5: A number in a formula is at most 1,000,000 in absolute value.'],
    [
      `${'('.repeat(17)}1d6${')'.repeat(17)}`,
      'formula, column 17: Brackets nest at most 16 deep (parentheses, groups and functions).',
    ],
  ])('%s', (formula, message) => {
    expect(() => check(formula)).toThrow(message);
  });

  it('names the item and the text it checks', () => {
    expect(() => checkTerms(unchecked('1d6+1000001'), 'bonuses[2]', 'bonus')).toThrow(
      'bonuses[2], column 5: A number in a bonus is at most 1,000,000 in absolute value.',
    );
  });
});

// Walks over the syntax tree (src/formula/walk.ts): dice terms in written order with their
// pool group, and the questions the checks and the compiler ask of a tree.

import { describe, expect, it } from 'vitest';
import type { DiceNode, GroupNode } from '../../src/formula/ast.js';
import { parseFormula, parseFragment } from '../../src/formula/index.js';
import {
  diceTermsOf,
  forEachDice,
  hasDice,
  hasDiceIn,
  isPool,
  mapSame,
  poolDice,
  poolTerms,
  usesArithmetic,
} from '../../src/formula/walk.js';

const sides = (terms: readonly DiceNode[]) => terms.map((d) => d.sides);
const group = (formula: string): GroupNode => {
  const term = parseFormula(formula).terms[0]!;
  if (term.kind !== 'group') throw new Error(`${formula} is not a group`);
  return term;
};

describe('forEachDice and diceTermsOf', () => {
  it('visit dice in written order through every kind of node', () => {
    const ast = parseFormula('max(1d2, 1d3) + {1d4, 1d5}kh1 * (1d6 - (-1d7))^2 + 1d8 % 1d9');
    expect(sides(diceTermsOf(ast))).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('name the pool group of a pool term, and of no other', () => {
    const seen: Array<[number, string | undefined]> = [];
    forEachDice(parseFormula('1d4+{2d6+1d8}kh2+{1d10,1d12}kh1').terms, (dice, pool) =>
      seen.push([dice.sides, pool === undefined ? undefined : `${pool.kind} at ${pool.column}`]),
    );
    expect(seen).toEqual([
      [4, undefined],
      [6, 'group at 5'],
      [8, 'group at 5'],
      [10, undefined],
      [12, undefined],
    ]);
  });
});

describe('questions about a tree', () => {
  it('hasDice: the no-dice rule; hasDiceIn: any node', () => {
    expect(hasDice(parseFragment('2+3'))).toBe(false);
    expect(hasDice(parseFragment('(2+3)*2'))).toBe(false);
    expect(hasDice(parseFragment('1+(2*1d4)'))).toBe(true);
    const product = parseFormula('(2+3)*1d4').terms[0]!;
    expect(product.kind === 'product' && [hasDiceIn(product.left), hasDiceIn(product.right)]).toEqual([
      false,
      true,
    ]);
  });

  it('usesArithmetic: anything beyond a signed sum of dice terms and numbers', () => {
    expect(usesArithmetic(parseFormula('4d6kh3-1d4+2'))).toBe(false);
    expect(usesArithmetic(parseFormula('(4-2)d10'))).toBe(false);
    expect(usesArithmetic(parseFormula('(1d4)'))).toBe(true);
    expect(usesArithmetic(parseFormula('{1d4}'))).toBe(true);
    expect(usesArithmetic(parseFormula('1d4*2'))).toBe(true);
  });

  it('isPool, poolTerms and poolDice: a one-item group with modifiers', () => {
    expect(isPool(group('{4d6+3d8}kh3'))).toBe(true);
    expect(isPool(group('{4d6+3d8}'))).toBe(false);
    expect(isPool(group('{4d6, 3d8}kh1'))).toBe(false);
    const pool = group('{4d6+3d8}>=5');
    expect(sides(poolTerms(pool.items[0]!))).toEqual([6, 8]);
    expect(poolDice(pool)).toBe(7);
  });
});

describe('mapSame', () => {
  it('the same array when nothing changes, else a new one with the changes', () => {
    const items = [1, 2, 3];
    expect(mapSame(items, (x) => x)).toBe(items);
    const changed = mapSame(items, (x) => (x === 2 ? 20 : x));
    expect(changed).toEqual([1, 20, 3]);
    expect(items).toEqual([1, 2, 3]);
  });
});

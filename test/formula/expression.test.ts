// A checked tree's arithmetic as the plan's expression (src/formula/expression.ts): each node
// compiled to its kind, dice terms given indexes in written order, and constant values.

import { describe, expect, it } from 'vitest';
import type { DiceNode } from '../../src/formula/ast.js';
import { compileTerms, constantValue, type DiceSlots, keepPlan } from '../../src/formula/expression.js';
import { KeepRule, parseFormula, parseFragment } from '../../src/formula/index.js';

/** Compiles a formula's terms, numbering dice terms from 0 and pools as they come. */
function compile(formula: string) {
  const planned: string[] = [];
  const slots: DiceSlots = {
    dice: (term: DiceNode) => planned.push(`${term.count}d${term.sides}`) - 1,
    pool: (group) => {
      const first = planned.length;
      for (const term of group.items[0]!.terms)
        planned.push(`pool ${(term as DiceNode).count}d${(term as DiceNode).sides}`);
      return first;
    },
  };
  return { expression: compileTerms(parseFormula(formula).terms, slots), planned };
}

describe('compileTerms', () => {
  it('a sum of one term is that term; numbers carry their sign', () => {
    expect(compile('(1d6)').expression).toEqual({ kind: 'dice', group: 0 });
    expect(compile('(1d6)-2').expression).toEqual({
      kind: 'sum',
      terms: [
        { kind: 'dice', group: 0 },
        { kind: 'number', value: -2 },
      ],
    });
  });

  it('dice terms are numbered in written order through every node', () => {
    const { expression, planned } = compile('max(1d2, 1d3) * -(1d4) ^ 2 % 1d5');
    expect(planned).toEqual(['1d2', '1d3', '1d4', '1d5']);
    expect(expression).toEqual({
      kind: 'product',
      operator: '%',
      left: {
        kind: 'product',
        operator: '*',
        left: {
          kind: 'call',
          name: 'max',
          arguments: [
            { kind: 'dice', group: 0 },
            { kind: 'dice', group: 1 },
          ],
        },
        right: {
          kind: 'negate',
          operand: {
            kind: 'power',
            base: { kind: 'dice', group: 2 },
            exponent: { kind: 'number', value: 2 },
          },
        },
      },
      right: { kind: 'dice', group: 3 },
    });
  });

  it('a group keeps its keep, points and label; a pool has its terms planned together', () => {
    expect(compile('{1d6, 1d8+1}dl1>=4f1[trait]').expression).toEqual({
      kind: 'group',
      items: [
        { kind: 'dice', group: 0 },
        {
          kind: 'sum',
          terms: [
            { kind: 'dice', group: 1 },
            { kind: 'number', value: 1 },
          ],
        },
      ],
      keep: { kind: 'keep', rule: KeepRule.DropLowest, amount: 1 },
      success: { operator: '>=', value: 4 },
      failure: { operator: '=', value: 1 },
      label: 'trait',
    });
    const pool = compile('1d4+{2d6+1d8}>=5');
    expect(pool.planned).toEqual(['1d4', 'pool 2d6', 'pool 1d8']);
    expect(pool.expression).toEqual({
      kind: 'sum',
      terms: [
        { kind: 'dice', group: 0 },
        {
          kind: 'pool',
          item: {
            kind: 'sum',
            terms: [
              { kind: 'dice', group: 1 },
              { kind: 'dice', group: 2 },
            ],
          },
          first: 1,
          size: 2,
          counting: true,
          failures: false,
          label: undefined,
        },
      ],
    });
  });
});

describe('constantValue and keepPlan', () => {
  it('the exact value of a dice-free expression; dice in it are an error', () => {
    const value = (text: string) =>
      constantValue({ kind: 'sum', terms: parseFragment(text).terms, column: 1 }).toString();
    expect(value('7/2*2')).toBe('7');
    expect(value('floor(7/2)+2^3')).toBe('11');
    expect(value('-(1/3)')).toBe('-1/3');
    expect(() => value('1d6+1')).toThrow(/has no dice/);
  });

  it('keepPlan: each keep and drop to its rule', () => {
    const rules = ['kh2', 'kl2', 'dh2', 'dl2'].map((m) => {
      const term = parseFormula(`4d6${m}`).terms[0] as DiceNode;
      return keepPlan(term.modifiers[0] as never);
    });
    expect(rules).toEqual([
      { kind: 'keep', rule: KeepRule.KeepHighest, amount: 2 },
      { kind: 'keep', rule: KeepRule.KeepLowest, amount: 2 },
      { kind: 'keep', rule: KeepRule.DropHighest, amount: 2 },
      { kind: 'keep', rule: KeepRule.DropLowest, amount: 2 },
    ]);
  });
});

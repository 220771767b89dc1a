// Exact evaluation of a plan's expression (src/formula/evaluate.ts) with dice outcomes given:
// every kind of node, fractions with their `exact`, groups keeping and counting items, pools
// reporting their terms' counts.

import { describe, expect, it } from 'vitest';
import { type DiceOutcome, type ExpressionPlan, evaluate, KeepRule } from '../../src/formula/index.js';

const dice = (group: number): ExpressionPlan => ({ kind: 'dice', group });
const number = (value: number): ExpressionPlan => ({ kind: 'number', value });
/** Dice outcomes by group index. */
const outcomes =
  (...totals: Array<number | DiceOutcome>) =>
  (group: number): DiceOutcome => {
    const outcome = totals[group];
    if (outcome === undefined) throw new Error(`no group ${group}`);
    return typeof outcome === 'number' ? { total: outcome } : outcome;
  };

describe('evaluate', () => {
  it('a sum of a die and a number', () => {
    const { value, node } = evaluate({ kind: 'sum', terms: [dice(0), number(-2)] }, outcomes(5));
    expect(value.toString()).toBe('3');
    expect(node).toEqual({
      type: 'operation',
      operator: '+',
      value: 3,
      operands: [
        { type: 'dice', group: 0, value: 5 },
        { type: 'number', value: -2 },
      ],
    });
  });

  it('a quotient stays exact, with `exact` beside the nearest double', () => {
    const { value, node } = evaluate(
      { kind: 'product', operator: '/', left: dice(0), right: number(4) },
      outcomes(3),
    );
    expect(value.toString()).toBe('3/4');
    expect(node).toMatchObject({ type: 'operation', operator: '/', value: 0.75, exact: '3/4' });
  });

  it('negation, remainder and power', () => {
    const negate = evaluate({ kind: 'negate', operand: dice(0) }, outcomes(4));
    expect(negate.node).toEqual({
      type: 'operation',
      operator: '-',
      value: -4,
      operands: [{ type: 'dice', group: 0, value: 4 }],
    });
    const remainder = evaluate(
      { kind: 'product', operator: '%', left: number(-7), right: dice(0) },
      outcomes(3),
    );
    expect(remainder.value.toString()).toBe('-1');
    const power = evaluate({ kind: 'power', base: dice(0), exponent: number(3) }, outcomes(-2));
    expect(power.node).toMatchObject({ type: 'operation', operator: '^', value: -8 });
  });

  it('functions: rounding halves away from zero, min and max of several', () => {
    const half = (n: number): ExpressionPlan => ({
      kind: 'product',
      operator: '/',
      left: number(n),
      right: number(2),
    });
    const call = (name: 'floor' | 'ceil' | 'round' | 'abs', n: number) =>
      evaluate({ kind: 'call', name, arguments: [half(n)] }, outcomes()).value.toString();
    expect([
      call('floor', -5),
      call('ceil', -5),
      call('round', -5),
      call('round', 5),
      call('abs', -5),
    ]).toEqual(['-3', '-2', '-3', '3', '5/2']);
    const min = evaluate(
      { kind: 'call', name: 'min', arguments: [dice(0), number(3), dice(1)] },
      outcomes(4, 2),
    );
    expect(min.node).toEqual({
      type: 'function',
      name: 'min',
      value: 2,
      arguments: [
        { type: 'dice', group: 0, value: 4 },
        { type: 'number', value: 3 },
        { type: 'dice', group: 1, value: 2 },
      ],
    });
  });

  it('a group keeps the highest item; of equal items the earlier is kept', () => {
    const { node } = evaluate(
      {
        kind: 'group',
        items: [dice(0), dice(1), dice(2)],
        keep: { kind: 'keep', rule: KeepRule.KeepHighest, amount: 1 },
        success: undefined,
        failure: undefined,
        label: 'trait',
      },
      outcomes(5, 7, 7),
    );
    expect(node).toEqual({
      type: 'group',
      value: 7,
      items: [
        { value: 5, kept: false, node: { type: 'dice', group: 0, value: 5 } },
        { value: 7, kept: true, node: { type: 'dice', group: 1, value: 7 } },
        { value: 7, kept: false, node: { type: 'dice', group: 2, value: 7 } },
      ],
      label: 'trait',
    });
  });

  it('a group drops the lowest and counts successes minus failures of the kept items', () => {
    const { node } = evaluate(
      {
        kind: 'group',
        items: [dice(0), dice(1), dice(2), dice(3)],
        keep: { kind: 'keep', rule: KeepRule.DropLowest, amount: 1 },
        success: { operator: '>=', value: 10 },
        failure: { operator: '<=', value: 3 },
        label: undefined,
      },
      outcomes(12, 2, 3, 10),
    );
    // 2 is dropped; 12 and 10 succeed, 3 fails.
    expect(node).toMatchObject({ type: 'group', value: 1, successes: 2, failures: 1 });
    expect((node as { items: Array<{ kept: boolean }> }).items.map((i) => i.kept)).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });

  it('a pool is its item, with the successes and failures of its terms', () => {
    const item: ExpressionPlan = { kind: 'sum', terms: [dice(0), dice(1)] };
    const { node } = evaluate(
      { kind: 'pool', item, first: 0, size: 2, counting: true, failures: false, label: undefined },
      outcomes({ total: 2, successes: 3, failures: 1 }, { total: 1, successes: 1, failures: 0 }),
    );
    expect(node).toEqual({
      type: 'group',
      value: 3,
      items: [
        {
          value: 3,
          kept: true,
          node: expect.objectContaining({ type: 'operation', operator: '+', value: 3 }),
        },
      ],
      successes: 4,
    });
  });
});

// Evaluates a plan's expression exactly (docs/language.md, "Arithmetic and groups") and builds
// the response's `expression`: each node with its value. Dice terms are leaves whose outcomes
// the caller supplies (the roller: each DieGroup's total), so this module never rolls; with no
// dice it gives the value of a constant expression the checks must know (src/formula/expression.ts).

import type {
  ExpressionNode as ExpressionResult,
  GroupItem as GroupItemResult,
} from '@fairdice/client/types';
import type { FunctionName } from './ast.js';
import { meets } from './compare.js';
import {
  type ExpressionPlan,
  type GroupExpressionPlan,
  KeepRule,
  type PoolExpressionPlan,
  unhandledKind,
} from './plan.js';
import { Rational } from './rational.js';

/** What a rolled dice term contributes: its DieGroup's total and counts. */
export interface DiceOutcome {
  total: number;
  successes?: number | undefined;
  failures?: number | undefined;
}

/** Supplies the outcome of the dice term planned at `group` (never called for a tree without dice). */
export type DiceLookup = (group: number) => DiceOutcome;

export interface Evaluated {
  value: Rational;
  node: ExpressionResult;
}

export function evaluate(node: ExpressionPlan, dice: DiceLookup): Evaluated {
  switch (node.kind) {
    case 'dice': {
      const total = dice(node.group).total;
      return { value: Rational.of(total), node: { type: 'dice', group: node.group, value: total } };
    }
    case 'number':
      return { value: Rational.of(node.value), node: { type: 'number', value: node.value } };
    case 'sum': {
      const operands = node.terms.map((term) => evaluate(term, dice));
      let value = Rational.of(0);
      for (const operand of operands) value = value.add(operand.value);
      return { value, node: operation('+', value, operands) };
    }
    case 'negate': {
      const operand = evaluate(node.operand, dice);
      const value = operand.value.neg();
      return { value, node: operation('-', value, [operand]) };
    }
    case 'product': {
      const left = evaluate(node.left, dice);
      const right = evaluate(node.right, dice);
      const value =
        node.operator === '*'
          ? left.value.mul(right.value)
          : node.operator === '/'
            ? left.value.div(right.value)
            : left.value.mod(right.value);
      return { value, node: operation(node.operator, value, [left, right]) };
    }
    case 'power': {
      const base = evaluate(node.base, dice);
      const exponent = evaluate(node.exponent, dice);
      const value = base.value.pow(exponent.value.toNumber());
      return { value, node: operation('^', value, [base, exponent]) };
    }
    case 'call': {
      const args = node.arguments.map((argument) => evaluate(argument, dice));
      const value = apply(
        node.name,
        args.map((a) => a.value),
      );
      return {
        value,
        node: value.isInteger()
          ? { type: 'function', name: node.name, value: value.toNumber(), arguments: args.map((a) => a.node) }
          : {
              type: 'function',
              name: node.name,
              value: value.toNumber(),
              exact: value.toString(),
              arguments: args.map((a) => a.node),
            },
      };
    }
    case 'group':
      return evaluateGroup(node, dice);
    case 'pool':
      return evaluatePool(node, dice);
    default:
      return unhandledKind(node);
  }
}

function apply(name: FunctionName, args: readonly Rational[]): Rational {
  const first = args[0]!;
  switch (name) {
    case 'floor':
      return first.floor();
    case 'ceil':
      return first.ceil();
    case 'round':
      return first.round();
    case 'abs':
      return first.abs();
    case 'min':
      return args.reduce((a, b) => (b.compare(a) < 0 ? b : a));
    case 'max':
      return args.reduce((a, b) => (b.compare(a) > 0 ? b : a));
  }
}

// A value is written as a JSON number, and `exact` ("n/d") when it is not an integer. Each node
// is one object literal of its keys in order: spreading a `{ value, exact }` into it costs more
// than the rest of a small group's evaluation.

function operation(
  operator: '+' | '-' | '*' | '/' | '%' | '^',
  value: Rational,
  operands: readonly Evaluated[],
): ExpressionResult {
  const nodes = operands.map((o) => o.node);
  return value.isInteger()
    ? { type: 'operation', operator, value: value.toNumber(), operands: nodes }
    : { type: 'operation', operator, value: value.toNumber(), exact: value.toString(), operands: nodes };
}

/** A group: its keep/drop and counting act on the item totals. */
function evaluateGroup(node: GroupExpressionPlan, dice: DiceLookup): Evaluated {
  const items = node.items.map((item) => evaluate(item, dice));
  const kept = items.map(() => true);
  if (node.keep !== undefined) markKept(items, kept, node.keep.rule, node.keep.amount);
  let value = Rational.of(0);
  let successes: number | undefined;
  let failures: number | undefined;
  const { success, failure } = node;
  if (success !== undefined) {
    successes = 0;
    failures = 0;
    items.forEach((item, i) => {
      if (!kept[i]) return;
      if (meets(item.value, success)) successes!++;
      if (failure !== undefined && meets(item.value, failure)) failures!++;
    });
    value = Rational.of(successes - failures);
  } else {
    items.forEach((item, i) => {
      if (kept[i]) value = value.add(item.value);
    });
  }
  return groupResult(value, items, kept, successes, failure === undefined ? undefined : failures, node.label);
}

/**
 * A pool group: the roller already selected and counted its dice, so its value is its item's
 * (the sum of its DieGroups' totals) and its counts are theirs.
 */
function evaluatePool(node: PoolExpressionPlan, dice: DiceLookup): Evaluated {
  const item = evaluate(node.item, dice);
  let successes: number | undefined;
  let failures: number | undefined;
  if (node.counting) {
    successes = 0;
    failures = 0;
    for (let group = node.first; group < node.first + node.size; group++) {
      const outcome = dice(group);
      successes += outcome.successes ?? 0;
      failures += outcome.failures ?? 0;
    }
  }
  return groupResult(item.value, [item], [true], successes, node.failures ? failures : undefined, node.label);
}

function groupResult(
  value: Rational,
  items: readonly Evaluated[],
  kept: readonly boolean[],
  successes: number | undefined,
  failures: number | undefined,
  label: string | undefined,
): Evaluated {
  const itemResults: GroupItemResult[] = items.map((item, i) =>
    item.value.isInteger()
      ? { value: item.value.toNumber(), kept: kept[i]!, node: item.node }
      : { value: item.value.toNumber(), exact: item.value.toString(), kept: kept[i]!, node: item.node },
  );
  const result: ExpressionResult = value.isInteger()
    ? { type: 'group', value: value.toNumber(), items: itemResults }
    : { type: 'group', value: value.toNumber(), exact: value.toString(), items: itemResults };
  if (successes !== undefined) result.successes = successes;
  if (failures !== undefined) result.failures = failures;
  if (label !== undefined) result.label = label;
  return { value, node: result };
}

/**
 * Marks the kept items: ranked by value, of equal values the earlier first (kept first by a
 * keep, dropped first by a drop), as dice are.
 */
function markKept(items: readonly Evaluated[], kept: boolean[], rule: KeepRule, amount: number) {
  const keeping = rule === KeepRule.KeepHighest || rule === KeepRule.KeepLowest;
  const highest = rule === KeepRule.KeepHighest || rule === KeepRule.DropHighest;
  const ranked = items
    .map((item, position) => ({ value: item.value, position }))
    .sort(
      (a, b) => (highest ? b.value.compare(a.value) : a.value.compare(b.value)) || a.position - b.position,
    );
  const chosen = new Set(ranked.slice(0, amount).map((item) => item.position));
  for (let i = 0; i < kept.length; i++) kept[i] = chosen.has(i) === keeping;
}

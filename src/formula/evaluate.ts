// Evaluates a checked formula tree exactly (docs/language.md, "Arithmetic and groups") and
// builds the response's `expression`: each node with its value. Dice terms are leaves whose
// values the caller supplies (the roller: each DieGroup's total), so this module never rolls;
// with no dice it evaluates the constant divisors the parser must check.

import type { ExpressionResult, GroupItemResult } from '../roll/types.js';
import type { CompareOperator, DiceNode, ExpressionNode, FunctionName, GroupNode, SumNode } from './ast.js';
import { Rational } from './rational.js';

/** What a rolled dice term contributes: its DieGroup's index, total and counts. */
export interface DiceOutcome {
  group: number;
  total: number;
  successes?: number | undefined;
  failures?: number | undefined;
}

/** Supplies the outcome of each dice term (never called for a tree without dice). */
export type DiceLookup = (dice: DiceNode) => DiceOutcome;

export interface Evaluated {
  value: Rational;
  node: ExpressionResult;
}

const NO_DICE: DiceLookup = () => {
  throw new Error('a constant expression has no dice');
};

/** The exact value of a tree without dice (a divisor), or of any tree given its dice. */
export function constantValue(node: ExpressionNode, dice: DiceLookup = NO_DICE): Rational {
  return evaluate(node, dice).value;
}

/** A sum of terms: one term stands for itself; several make one `+` node. */
export function evaluateTerms(terms: readonly ExpressionNode[], dice: DiceLookup): Evaluated {
  if (terms.length === 1) return evaluate(terms[0]!, dice);
  const operands = terms.map((term) => evaluate(term, dice));
  let value = Rational.of(0);
  for (const operand of operands) value = value.add(operand.value);
  return { value, node: operation('+', value, operands) };
}

export function evaluate(node: ExpressionNode, dice: DiceLookup): Evaluated {
  switch (node.kind) {
    case 'dice': {
      const outcome = dice(node);
      return {
        value: Rational.of(outcome.total),
        node: { type: 'dice', group: outcome.group, value: outcome.total },
      };
    }
    case 'flat': {
      const value = node.sign * node.value || 0;
      return { value: Rational.of(value), node: { type: 'number', value } };
    }
    case 'sum':
      return evaluateTerms(node.terms, dice);
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
      const result: ExpressionResult = {
        type: 'function',
        name: node.name,
        ...numbers(value),
        arguments: [],
      };
      result.arguments = args.map((a) => a.node);
      return { value, node: result };
    }
    case 'group':
      return evaluateGroup(node, dice);
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

/** A value as the response writes it: a JSON number, and `exact` when it is not an integer. */
function numbers(value: Rational): { value: number; exact?: string } {
  return value.isInteger()
    ? { value: value.toNumber() }
    : { value: value.toNumber(), exact: value.toString() };
}

function operation(
  operator: '+' | '-' | '*' | '/' | '%' | '^',
  value: Rational,
  operands: readonly Evaluated[],
): ExpressionResult {
  return { type: 'operation', operator, ...numbers(value), operands: operands.map((o) => o.node) };
}

/** Whether `value` meets a compare point (exactly, for fractional item totals). */
export function meets(value: Rational, operator: CompareOperator, point: number): boolean {
  const c = value.compare(Rational.of(point));
  switch (operator) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    case '<>':
      return c !== 0;
    default:
      return c === 0;
  }
}

/**
 * A group: with two or more items (or no modifiers), keep/drop and counting act on the item
 * totals; a one-item group with modifiers is a pool whose dice the roller already selected and
 * counted, so its value is its item's (the sum of its DieGroups' totals).
 */
function evaluateGroup(node: GroupNode, dice: DiceLookup): Evaluated {
  const items = node.items.map((item) => evaluate(item, dice));
  const pool = node.items.length === 1 && node.modifiers.length > 0;
  const kept = items.map(() => true);
  let successPoint: { operator: CompareOperator; value: number } | undefined;
  let failurePoint: { operator: CompareOperator; value: number } | undefined;
  for (const modifier of node.modifiers) {
    if (modifier.kind === 'success') successPoint = modifier.compare;
    else if (modifier.kind === 'failure') failurePoint = modifier.compare;
    else if (!pool)
      markKept(items, kept, modifier.kind === 'keep', modifier.mode === 'highest', modifier.amount);
  }
  let value = Rational.of(0);
  let successes: number | undefined;
  let failures: number | undefined;
  if (pool) {
    value = items[0]!.value;
    if (successPoint !== undefined) {
      successes = 0;
      failures = 0;
      for (const term of poolTerms(node.items[0]!)) {
        const outcome = dice(term);
        successes += outcome.successes ?? 0;
        failures += outcome.failures ?? 0;
      }
    }
  } else if (successPoint !== undefined) {
    successes = 0;
    failures = 0;
    items.forEach((item, i) => {
      if (!kept[i]) return;
      if (meets(item.value, successPoint.operator, successPoint.value)) successes!++;
      if (failurePoint !== undefined && meets(item.value, failurePoint.operator, failurePoint.value))
        failures!++;
    });
    value = Rational.of(successes - failures);
  } else {
    items.forEach((item, i) => {
      if (kept[i]) value = value.add(item.value);
    });
  }
  const itemResults: GroupItemResult[] = items.map((item, i) => ({
    ...numbers(item.value),
    kept: kept[i]!,
    node: item.node,
  }));
  const result: ExpressionResult = { type: 'group', ...numbers(value), items: itemResults };
  if (successes !== undefined) result.successes = successes;
  if (failures !== undefined && failurePoint !== undefined) result.failures = failures;
  if (node.label !== undefined) result.label = node.label.text;
  return { value, node: result };
}

/** The dice terms of a pool group's item (the parser allows nothing else there). */
export function poolTerms(item: SumNode): DiceNode[] {
  return item.terms.filter((term): term is DiceNode => term.kind === 'dice');
}

/**
 * Marks the kept items: ranked by value, of equal values the earlier first (kept first by a
 * keep, dropped first by a drop), as dice are.
 */
function markKept(
  items: readonly Evaluated[],
  kept: boolean[],
  keeping: boolean,
  highest: boolean,
  amount: number,
) {
  const ranked = items
    .map((item, position) => ({ value: item.value, position }))
    .sort(
      (a, b) => (highest ? b.value.compare(a.value) : a.value.compare(b.value)) || a.position - b.position,
    );
  const chosen = new Set(ranked.slice(0, amount).map((item) => item.position));
  for (let i = 0; i < kept.length; i++) kept[i] = chosen.has(i) === keeping;
}

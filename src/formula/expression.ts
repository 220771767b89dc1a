// A checked syntax tree's arithmetic as the plan's expression (src/formula/plan.ts): each node
// of docs/language.md "Arithmetic and groups" as an ExpressionPlan, each dice term as the index
// of its plan in `groups`, given out in written order. The plan compiler (src/formula/compile.ts)
// compiles a roll's trees this way; the checks compile a dice-free expression to know its value.

import type { ComparePoint, DiceNode, DropModifier, ExpressionNode, GroupNode, KeepModifier } from './ast.js';
import { evaluate } from './evaluate.js';
import { type ExpressionPlan, type KeepPlan, KeepRule } from './plan.js';
import type { Rational } from './rational.js';
import { isPool, poolTerms } from './walk.js';

/** Where the dice terms of a tree get their plans, in written order. */
export interface DiceSlots {
  /** Plans a dice term outside any pool group; returns its index in `groups`. */
  dice(term: DiceNode): number;
  /** Plans every dice term of a pool group, in written order; returns the first one's index. */
  pool(group: GroupNode): number;
}

/** A sum of terms: one term stands for itself; several make one `sum` node. */
export function compileTerms(terms: readonly ExpressionNode[], slots: DiceSlots): ExpressionPlan {
  if (terms.length === 1) return compileNode(terms[0]!, slots);
  return { kind: 'sum', terms: terms.map((term) => compileNode(term, slots)) };
}

function compileNode(node: ExpressionNode, slots: DiceSlots): ExpressionPlan {
  switch (node.kind) {
    case 'dice':
      return { kind: 'dice', group: slots.dice(node) };
    case 'flat':
      // `|| 0` keeps a written -0 from surfacing as a negative zero.
      return { kind: 'number', value: node.sign * node.value || 0 };
    case 'sum':
      return compileTerms(node.terms, slots);
    case 'negate':
      return { kind: 'negate', operand: compileNode(node.operand, slots) };
    case 'product': {
      const left = compileNode(node.left, slots);
      return { kind: 'product', operator: node.operator, left, right: compileNode(node.right, slots) };
    }
    case 'power': {
      const base = compileNode(node.base, slots);
      return { kind: 'power', base, exponent: compileNode(node.exponent, slots) };
    }
    case 'call':
      return {
        kind: 'call',
        name: node.name,
        arguments: node.arguments.map((argument) => compileTerms(argument.terms, slots)),
      };
    case 'group':
      return isPool(node) ? compilePool(node, slots) : compileGroup(node, slots);
  }
}

function compileGroup(node: GroupNode, slots: DiceSlots): ExpressionPlan {
  const items = node.items.map((item) => compileTerms(item.terms, slots));
  let keep: KeepPlan | undefined;
  let success: ComparePoint | undefined;
  let failure: ComparePoint | undefined;
  for (const modifier of node.modifiers) {
    switch (modifier.kind) {
      case 'keep':
      case 'drop':
        keep = keepPlan(modifier);
        break;
      case 'success':
        success = modifier.compare;
        break;
      case 'failure':
        failure = modifier.compare;
        break;
    }
  }
  return { kind: 'group', items, keep, success, failure, label: node.label?.text };
}

/** A pool group: its dice terms are planned together; its item refers to them in order. */
function compilePool(node: GroupNode, slots: DiceSlots): ExpressionPlan {
  const first = slots.pool(node);
  let next = first;
  const item = compileTerms(node.items[0]!.terms, {
    dice: () => next++,
    pool: () => {
      throw new Error('a pool group holds dice terms only');
    },
  });
  return {
    kind: 'pool',
    item,
    first,
    size: poolTerms(node.items[0]!).length,
    counting: node.modifiers.some((m) => m.kind === 'success'),
    failures: node.modifiers.some((m) => m.kind === 'failure'),
    label: node.label?.text,
  };
}

/** A keep or drop modifier (of a dice term or a group) as the plan's rule. */
export function keepPlan(modifier: KeepModifier | DropModifier): KeepPlan {
  const highest = modifier.mode === 'highest';
  const rule =
    modifier.kind === 'keep'
      ? highest
        ? KeepRule.KeepHighest
        : KeepRule.KeepLowest
      : highest
        ? KeepRule.DropHighest
        : KeepRule.DropLowest;
  return { kind: 'keep', rule, amount: modifier.amount };
}

const NO_DICE: DiceSlots = {
  dice: () => {
    throw new Error('a constant expression has no dice');
  },
  pool: () => {
    throw new Error('a constant expression has no dice');
  },
};

/** The exact value of an expression without dice (a divisor, an exponent, a computed count). */
export function constantValue(node: ExpressionNode): Rational {
  return evaluate(compileNode(node, NO_DICE), () => {
    throw new Error('a constant expression has no dice');
  }).value;
}

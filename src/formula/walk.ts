// Walks over the syntax tree (src/formula/ast.ts): its dice terms in written order, the pool
// groups that own some of them, and the questions the checks and the plan compiler ask of a
// tree (does it roll dice, does it use arithmetic). Read-only: nothing here changes a node.

import type { DiceNode, ExpressionNode, FormulaNode, GroupNode, SumNode } from './ast.js';

/**
 * Calls `visit` for every dice term in written order, with the pool group it belongs to (a
 * one-item group with modifiers, whose modifiers select and count its dice), if any.
 */
export function forEachDice(
  terms: readonly ExpressionNode[],
  visit: (dice: DiceNode, pool: GroupNode | undefined) => void,
): void {
  for (const term of terms) walkDice(term, visit, undefined);
}

function walkDice(
  node: ExpressionNode,
  visit: (dice: DiceNode, pool: GroupNode | undefined) => void,
  pool: GroupNode | undefined,
): void {
  switch (node.kind) {
    case 'dice':
      visit(node, pool);
      return;
    case 'flat':
      return;
    case 'sum':
      for (const term of node.terms) walkDice(term, visit, pool);
      return;
    case 'negate':
      walkDice(node.operand, visit, pool);
      return;
    case 'power':
      walkDice(node.base, visit, pool);
      walkDice(node.exponent, visit, pool);
      return;
    case 'product':
      walkDice(node.left, visit, pool);
      walkDice(node.right, visit, pool);
      return;
    case 'call':
      for (const argument of node.arguments) walkDice(argument, visit, pool);
      return;
    case 'group':
      for (const item of node.items) walkDice(item, visit, isPool(node) ? node : pool);
      return;
  }
}

/** Whether an expression holds a dice term anywhere. */
export function hasDiceIn(node: ExpressionNode): boolean {
  let found = false;
  walkDice(
    node,
    () => {
      found = true;
    },
    undefined,
  );
  return found;
}

/** Whether a formula or fragment rolls at least one die (the no-dice rule of a formula). */
export function hasDice(node: FormulaNode): boolean {
  for (const term of node.terms) if (term.kind === 'dice') return true;
  return usesArithmetic(node) && node.terms.some(hasDiceIn);
}

/** Every dice term of a parsed formula or fragment, in written order. */
export function diceTermsOf(node: FormulaNode): DiceNode[] {
  const dice: DiceNode[] = [];
  forEachDice(node.terms, (term) => dice.push(term));
  return dice;
}

/** A one-item group with modifiers: its modifiers act on every die inside, as one pool. */
export function isPool(group: GroupNode): boolean {
  return group.items.length === 1 && group.modifiers.length > 0;
}

/** The dice terms of a pool group's item (the checks allow nothing else there), in written order. */
export function poolTerms(item: SumNode): DiceNode[] {
  return item.terms.filter((term): term is DiceNode => term.kind === 'dice');
}

/** Dice a pool group throws: the counts of its item's terms. */
export function poolDice(group: GroupNode): number {
  let n = 0;
  for (const term of group.items[0]!.terms) if (term.kind === 'dice') n += term.count;
  return n;
}

/**
 * Whether a formula or fragment uses arithmetic (parentheses, *, /, %, ^, a function, a group):
 * then the response carries an `expression` and rounds its total down (docs/language.md,
 * "Arithmetic and groups"). A plain sum of dice terms and numbers does not.
 */
export function usesArithmetic(node: FormulaNode): boolean {
  return node.terms.some((term) => term.kind !== 'dice' && term.kind !== 'flat');
}

/**
 * The same array when `map` returns every element unchanged, else a new array of the results:
 * how a check that resolves a value builds a new tree without copying what did not change.
 */
export function mapSame<T>(items: T[], map: (item: T) => T): T[] {
  let result: T[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const mapped = map(item);
    if (result === undefined && mapped !== item) result = items.slice(0, i);
    result?.push(mapped);
  }
  return result ?? items;
}

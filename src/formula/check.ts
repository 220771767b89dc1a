// The rules of docs/language.md that the grammar leaves open: ranges and limits, one modifier of
// each kind, conflicts, conditions every face meets, nesting, divisors that may be zero,
// exponents, pool groups. The checks never change the tree they are given: a computed count or
// number of sides (`(4-2)d10`, `3d(2*6)`) gives a new dice node with its value, and the nodes
// above it are new too; everything else is returned as it came.

import { FormulaError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { DiceModifier, DiceNode, ExpressionNode, FormulaNode, GroupNode, SumNode } from './ast.js';
import { bounds } from './bounds.js';
import { everyValueMeets, explodePoint, faceBounds } from './compare.js';
import { constantValue } from './expression.js';
import { formatInteger } from './messages.js';
import { Rational } from './rational.js';
import { diceTermsOf, hasDiceIn, isPool, mapSame, poolDice, usesArithmetic } from './walk.js';

type Fail = (message: string, column: number | undefined) => never;

/**
 * Checks a parsed formula or fragment against every rule (`what` names the text in messages)
 * and returns it checked: the same tree, or a new one where a computed count or number of
 * sides was resolved. Throws FormulaError on the first rule broken, in written order.
 */
export function checkTerms(node: FormulaNode, item: string, what: 'formula' | 'bonus'): FormulaNode {
  if (!usesArithmetic(node)) return checkSum(node, item, what);
  let advantageTerms = 0;
  let terms = 0;
  const fail: Fail = (message, column) => {
    throw new FormulaError(message, item, column);
  };
  const leaf = (column: number) => {
    if (++terms > LIMITS.termsMax)
      fail(`A ${what} has at most ${LIMITS.termsMax} terms (dice terms and numbers).`, column);
  };
  const nest = (depth: number, column: number) => {
    if (depth > LIMITS.nestingMax) {
      fail(`Brackets nest at most ${LIMITS.nestingMax} deep (parentheses, groups and functions).`, column);
    }
  };
  const visitSum = (sum: SumNode, depth: number, pool: boolean): SumNode => {
    const checked = mapSame(sum.terms, (term) => visit(term, depth, pool));
    return checked === sum.terms ? sum : { ...sum, terms: checked };
  };
  /** `pool`: inside a pool group's item. */
  const visit = (node: ExpressionNode, depth: number, pool: boolean): ExpressionNode => {
    switch (node.kind) {
      case 'flat':
        leaf(node.column);
        if (node.value > LIMITS.flatMaxAbs) {
          fail(
            `A number in a ${what} is at most ${formatInteger(LIMITS.flatMaxAbs)} in absolute value.`,
            node.column,
          );
        }
        return node;
      case 'dice': {
        leaf(node.column);
        const dice = checkDice(node, item);
        const advantage = dice.modifiers.find((m) => m.kind === 'advantage');
        if (advantage !== undefined && ++advantageTerms > 1) {
          fail(`A ${what} may have only one adv or dis term.`, advantage.column);
        }
        if (pool) {
          const own = dice.modifiers.find(
            (m) =>
              m.kind === 'keep' ||
              m.kind === 'drop' ||
              m.kind === 'advantage' ||
              m.kind === 'success' ||
              m.kind === 'failure',
          );
          if (own !== undefined) {
            fail(
              "A dice term inside a pool group is kept and counted by the group's modifiers, not its own.",
              own.column,
            );
          }
        }
        return dice;
      }
      case 'sum':
        nest(depth + 1, node.column);
        return visitSum(node, depth + 1, false);
      case 'negate': {
        const operand = visit(node.operand, depth, false);
        return operand === node.operand ? node : { ...node, operand };
      }
      case 'product': {
        const left = visit(node.left, depth, false);
        const right = visit(node.right, depth, false);
        if (node.operator !== '*') checkDivisor(right, fail);
        return left === node.left && right === node.right ? node : { ...node, left, right };
      }
      case 'power': {
        const base = visit(node.base, depth, false);
        const exponent = visit(node.exponent, depth, false);
        const power = base === node.base && exponent === node.exponent ? node : { ...node, base, exponent };
        if (hasDiceIn(exponent)) {
          fail(
            `An exponent is a number without dice, a whole number from 0 to ${LIMITS.exponentMax} (write 1d6^2, not 2^1d6).`,
            exponent.column,
          );
        }
        const value = constantValue(exponent);
        if (
          !value.isInteger() ||
          value.compare(Rational.of(0)) < 0 ||
          value.compare(Rational.of(LIMITS.exponentMax)) > 0
        ) {
          fail(`An exponent is a whole number from 0 to ${LIMITS.exponentMax}.`, exponent.column);
        }
        const [low, high] = bounds(power);
        if (!(Math.max(Math.abs(low), Math.abs(high)) <= LIMITS.powerMaxAbs)) {
          fail('A power may reach at most 10^100 in absolute value.', node.column);
        }
        return power;
      }
      case 'call': {
        nest(depth + 1, node.column);
        const one = node.name !== 'min' && node.name !== 'max';
        if (one && node.arguments.length !== 1)
          fail(`${node.name} takes exactly one argument.`, node.arguments[1]!.column);
        if (!one && node.arguments.length < 2) fail(`${node.name} takes two or more arguments.`, node.column);
        const args = mapSame(node.arguments, (argument) => visitSum(argument, depth + 1, false));
        return args === node.arguments ? node : { ...node, arguments: args };
      }
      case 'group': {
        nest(depth + 1, node.column);
        if (node.items.length > LIMITS.groupItemsMax) {
          fail(
            `A group has at most ${LIMITS.groupItemsMax} items.`,
            node.items[LIMITS.groupItemsMax]!.column,
          );
        }
        checkGroupModifiers(node, fail);
        const poolGroup = isPool(node);
        if (poolGroup) {
          const stranger = node.items[0]!.terms.find((term) => term.kind !== 'dice' || term.sign !== 1);
          if (stranger !== undefined) {
            fail(
              'A one-item group with modifiers is a pool of dice: its item only adds dice terms ({4d6+3d8}kh3); for item totals, list two or more items.',
              stranger.column,
            );
          }
        }
        const items = mapSame(node.items, (groupItem) => visitSum(groupItem, depth + 1, poolGroup));
        const group: GroupNode = items === node.items ? node : { ...node, items };
        // With the computed counts of its terms resolved.
        if (poolGroup && poolDice(group) > LIMITS.diceCountMax) {
          fail(
            `A pool group throws at most ${formatInteger(LIMITS.diceCountMax)} dice, as one dice term does.`,
            node.column,
          );
        }
        return group;
      }
    }
  };
  const checked = mapSame(node.terms, (term) => visit(term, 0, false));
  return checked === node.terms ? node : { ...node, terms: checked };
}

/** checkTerms for a plain sum (dice terms and numbers only), without the tree walk. */
function checkSum(node: FormulaNode, item: string, what: 'formula' | 'bonus'): FormulaNode {
  let advantageTerms = 0;
  const terms = mapSame(node.terms, (term) => {
    if (term.kind === 'flat') {
      if (term.value > LIMITS.flatMaxAbs) {
        throw new FormulaError(
          `A number in a ${what} is at most ${formatInteger(LIMITS.flatMaxAbs)} in absolute value.`,
          item,
          term.column,
        );
      }
      return term;
    }
    if (term.kind !== 'dice') return term;
    const dice = checkDice(term, item);
    const advantage = dice.modifiers.find((m) => m.kind === 'advantage');
    if (advantage !== undefined && ++advantageTerms > 1) {
      throw new FormulaError(`A ${what} may have only one adv or dis term.`, item, advantage.column);
    }
    return dice;
  });
  if (node.terms.length > LIMITS.termsMax) {
    throw new FormulaError(
      `A ${what} has at most ${LIMITS.termsMax} terms (dice terms and numbers).`,
      item,
      node.terms[LIMITS.termsMax]!.column,
    );
  }
  return terms === node.terms ? node : { ...node, terms };
}

/**
 * A divisor (of `/` or `%`) is never zero: without dice its value, known now, is not zero; with
 * dice, the interval of its smallest and largest values must not hold zero.
 */
function checkDivisor(divisor: ExpressionNode, fail: Fail): void {
  if (!hasDiceIn(divisor)) {
    if (constantValue(divisor).isZero()) fail('A divisor must not be zero.', divisor.column);
    return;
  }
  const [low, high] = bounds(divisor);
  if (!(low > 0 || high < 0)) {
    fail(
      `A divisor with dice must never be zero: its values may range from ${formatBound(low)} to ${formatBound(high)}, which holds 0 (write (2d6+3)/2, or a divisor like 1d6+1).`,
      divisor.column,
    );
  }
}

function formatBound(value: number): string {
  if (!Number.isFinite(value)) return value < 0 ? '-infinity' : 'infinity';
  return Number.isInteger(value) ? formatInteger(value) : String(Math.round(value * 1000) / 1000);
}

function checkGroupModifiers(group: GroupNode, fail: Fail): void {
  const seen = new Set<string>();
  for (const modifier of group.modifiers) {
    const slot = modifier.kind === 'drop' ? 'keep' : modifier.kind;
    if (seen.has(slot)) {
      const what = {
        keep: 'one keep or drop',
        success: 'one success point',
        failure: 'one failure point (f)',
      }[slot];
      fail(`A group takes at most ${what}.`, modifier.column);
    }
    seen.add(slot);
    if (modifier.kind === 'keep' && modifier.amount < 1)
      fail('A keep must keep at least one item or die.', modifier.column);
    if (modifier.kind === 'failure' && !seen.has('success')) {
      fail(
        'f counts failures and needs a success point on the same group ({3d6, 3d6}>=10f3).',
        modifier.column,
      );
    }
  }
}

type ModifierSlot =
  | 'keep highest'
  | 'keep lowest'
  | 'drop highest'
  | 'drop lowest'
  | 'advantage'
  | 'unique'
  | 'match'
  | 'explode'
  | 'reroll'
  | 'multiply'
  | 'min'
  | 'max'
  | 'success'
  | 'failure'
  | 'critical success'
  | 'critical failure';

function slotOf(modifier: DiceModifier): ModifierSlot {
  switch (modifier.kind) {
    case 'keep':
    case 'drop':
      return `${modifier.kind} ${modifier.mode}`;
    case 'clamp':
      return modifier.bound;
    case 'critical':
      return modifier.range === 'success' ? 'critical success' : 'critical failure';
    default:
      return modifier.kind;
  }
}

const DUPLICATE_MESSAGE: Record<ModifierSlot, string> = {
  'keep highest': 'A dice term takes at most one keep highest (kh or k).',
  'keep lowest': 'A dice term takes at most one keep lowest (kl).',
  'drop highest': 'A dice term takes at most one drop highest (dh).',
  'drop lowest': 'A dice term takes at most one drop lowest (dl or d).',
  advantage: 'A dice term takes at most one adv or dis.',
  unique: 'A dice term takes at most one unique (u or uo).',
  match: 'A dice term takes at most one matching set (m or mt).',
  explode: 'A dice term explodes (!, !p, !! or !!p) at most once.',
  reroll:
    'A dice term takes at most one reroll (r or ro), on one compare point: rerolls on several values such as r8r1 cannot be combined; one point may cover a range (r>=7 rerolls every 7 or more).',
  multiply: 'A dice term takes at most one multiplier (x).',
  min: 'A dice term takes at most one min.',
  max: 'A dice term takes at most one max.',
  success:
    'A dice term takes at most one success point (a compare point standing on its own; one written right after r, ro, !, !p, !!, f, cs or cf belongs to that modifier).',
  failure: 'A dice term takes at most one failure point (f).',
  'critical success': 'A dice term takes at most one critical success range (cs).',
  'critical failure': 'A dice term takes at most one critical failure range (cf).',
};

const FOUNDRY_RR_MESSAGE =
  'A dice term takes at most one reroll: r already rerolls until the condition fails, so write r, not rr (ro rerolls once).';

/**
 * A computed count or number of sides (`(4-2)d10`, `3d(2*6)`): a sum without dice whose value
 * is a whole number; returns it (the range is checked with the written numbers').
 */
function computedNumber(expression: SumNode, item: string, which: 'count' | 'sides'): number {
  const what = which === 'count' ? 'A computed count of dice' : 'A computed number of sides';
  const fragment: FormulaNode = { kind: 'formula', terms: expression.terms, tag: null };
  if (diceTermsOf(fragment).length > 0) {
    throw new FormulaError(
      `${what} is an expression without dice (write (4-2)d10 or 3d(2*6)).`,
      item,
      expression.column,
    );
  }
  checkTerms(fragment, item, 'formula');
  const value = constantValue(expression);
  if (!value.isInteger()) {
    throw new FormulaError(
      `${what} must be a whole number; this one is ${value.toString()}.`,
      item,
      expression.column,
    );
  }
  return value.toNumber();
}

/** A dice term's rules; returns the term, or a new one with its computed count and sides. */
function checkDice(written: DiceNode, item: string): DiceNode {
  let dice = written;
  if (written.countExpression !== undefined || written.sidesExpression !== undefined) {
    const count =
      written.countExpression === undefined
        ? written.count
        : computedNumber(written.countExpression, item, 'count');
    const sides =
      written.sidesExpression === undefined
        ? written.sides
        : computedNumber(written.sidesExpression, item, 'sides');
    dice = { ...written, count, sides };
  }
  if (dice.count < 1 || dice.count > LIMITS.diceCountMax) {
    throw new FormulaError(
      `A dice term throws 1 to ${formatInteger(LIMITS.diceCountMax)} dice; this one asks for ${formatInteger(dice.count)}.`,
      item,
      dice.column,
    );
  }
  if (dice.faces !== undefined) {
    if (dice.faces.length > LIMITS.facesMax) {
      throw new FormulaError(`A custom die lists 1 to ${LIMITS.facesMax} faces.`, item, dice.sidesColumn);
    }
    if (dice.faces.some((face) => Math.abs(face) > LIMITS.faceMaxAbs)) {
      throw new FormulaError(
        `A face of a custom die is at most ${formatInteger(LIMITS.faceMaxAbs)} in absolute value.`,
        item,
        dice.sidesColumn,
      );
    }
  } else if (dice.sides < 1 || dice.sides > LIMITS.sidesMax) {
    throw new FormulaError(`A die has 1 to ${formatInteger(LIMITS.sidesMax)} sides.`, item, dice.sidesColumn);
  }
  const seen = new Map<ModifierSlot, DiceModifier>();
  for (const modifier of dice.modifiers) {
    const slot = slotOf(modifier);
    const earlier = seen.get(slot);
    if (earlier !== undefined) {
      // Foundry's rr (reroll until the condition fails) reads as r, then r again.
      const foundry =
        slot === 'reroll' &&
        earlier.kind === 'reroll' &&
        !earlier.once &&
        earlier.column + 1 === modifier.column;
      throw new FormulaError(foundry ? FOUNDRY_RR_MESSAGE : DUPLICATE_MESSAGE[slot], item, modifier.column);
    }
    const selects = (m: DiceModifier) => m.kind === 'keep' || m.kind === 'drop';
    if (
      (modifier.kind === 'advantage' && dice.modifiers.some(selects)) ||
      (selects(modifier) && seen.has('advantage'))
    ) {
      throw new FormulaError(
        'adv and dis cannot be combined with a keep or drop on the same term.',
        item,
        modifier.column,
      );
    }
    seen.set(slot, modifier);
  }
  const unique = seen.get('unique');
  if (unique !== undefined && seen.has('explode')) {
    throw new FormulaError(
      'u (unique) cannot be combined with !, !p, !! or !!p on the same term: an extra throw is never unique.',
      item,
      Math.max(unique.column, seen.get('explode')!.column),
    );
  }
  const match = seen.get('match');
  if (match?.kind === 'match') {
    if (match.amount < 2 || match.amount > LIMITS.diceCountMax) {
      throw new FormulaError(
        `A matching set has 2 to ${formatInteger(LIMITS.diceCountMax)} dice (m, m3, mt, mt3).`,
        item,
        match.column,
      );
    }
    if (match.total && seen.has('success')) {
      throw new FormulaError(
        'mt makes the number of matching sets the total, so it cannot be combined with a success point (write m to list the sets).',
        item,
        match.column,
      );
    }
  }
  const [lowest, highest] = faceBounds(dice);
  const die = () => (dice.faces === undefined ? `a d${dice.sides}` : 'this die');
  for (const modifier of dice.modifiers) {
    switch (modifier.kind) {
      case 'keep':
        if (modifier.amount < 1) {
          throw new FormulaError('A keep must keep at least one die.', item, modifier.column);
        }
        break;
      case 'multiply':
        if (modifier.factor < 1 || modifier.factor > LIMITS.multiplierMax) {
          throw new FormulaError(
            `A multiplier is 1 to ${formatInteger(LIMITS.multiplierMax)}.`,
            item,
            modifier.column,
          );
        }
        break;
      case 'clamp':
        if (modifier.value < lowest || modifier.value > highest) {
          throw new FormulaError(
            `${modifier.bound} must lie from the smallest face to the largest (${lowest} to ${highest}).`,
            item,
            modifier.column,
          );
        }
        if (modifier.bound === 'max') {
          const min = seen.get('min');
          if (min?.kind === 'clamp' && min.value > modifier.value) {
            throw new FormulaError('min cannot be above max.', item, Math.max(min.column, modifier.column));
          }
        }
        break;
      case 'explode':
        if (everyValueMeets(dice, explodePoint(dice, modifier))) {
          const message =
            dice.faces === undefined && dice.sides === 1
              ? 'A one-sided die always shows its maximum, so it cannot explode.'
              : `Every face of ${die()} meets this condition (after min and max), so it would explode forever: write a condition some face misses, such as !>${highest - 1}.`;
          throw new FormulaError(message, item, modifier.column);
        }
        break;
      case 'reroll':
        if (everyValueMeets(dice, modifier.compare)) {
          const message =
            dice.faces === undefined && !seen.has('min') && !seen.has('max')
              ? `Every face of a d${dice.sides} meets this reroll condition, so the die would never settle.`
              : `Every value of ${die()} (after min and max) meets this reroll condition, so the die would never settle.`;
          throw new FormulaError(message, item, modifier.column);
        }
        break;
      case 'failure':
        if (!seen.has('success')) {
          throw new FormulaError(
            'f counts failures and needs a success point in the same term (6d10>=8f1).',
            item,
            modifier.column,
          );
        }
        break;
      default:
        break;
    }
  }
  return dice;
}

// Formula text -> checked AST. The generated peggy parser says what can be written; this module
// adds every rule of docs/language.md the grammar leaves open (ranges, one modifier of each kind,
// conflicts, conditions every face meets, the no-dice rule, tags) and turns parser failures into
// FormulaErrors whose messages are safe to put on a web page.

import { FormulaError } from '../errors.js';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import type {
  ComparePoint,
  DiceModifier,
  DiceNode,
  ExplodeModifier,
  ExpressionNode,
  FormulaNode,
  GroupNode,
  SumNode,
} from './ast.js';
import { constantValue, evaluateTerms } from './evaluate.js';
import type { Expectation } from './generated/parser.js';
import { SyntaxError as GeneratedSyntaxError, parse as generatedParse } from './generated/parser.js';
import { Rational } from './rational.js';
import { scanFormula } from './scan.js';

export interface ParseFormulaOptions {
  /** The trailing words the formula may end with (default: none). */
  tags?: readonly string[] | undefined;
  /** Which item of the request this is, for error messages (default `formula`). */
  item?: string | undefined;
}

export interface ParseFragmentOptions {
  /** Which item of the request this is, for error messages (e.g. `bonuses[1]`). */
  item?: string | undefined;
}

const NO_TAGS: readonly string[] = [];

/**
 * Parses and checks a whole formula (terms, then an optional trailing tag listed in `tags`).
 * Throws FormulaError, and nothing else, for any input string.
 */
export function parseFormula(text: string, options?: ParseFormulaOptions): FormulaNode {
  const item = options?.item ?? 'formula';
  if (text.length > LIMITS.formulaMaxLength) {
    throw new FormulaError(
      `A formula is at most ${LIMITS.formulaMaxLength} characters long.`,
      item,
      undefined,
    );
  }
  const node = runParser(text, 'Formula', item);
  checkTerms(node, item, 'formula');
  if (!hasDice(node)) {
    throw new FormulaError('A formula must roll at least one die.', item, undefined);
  }
  if (node.tag !== null) {
    const tags = options?.tags ?? NO_TAGS;
    if (!TAG_PATTERN.test(node.tag.word)) {
      throw new FormulaError(
        `The trailing word "${excerpt(node.tag.word)}" is not a tag: a tag is lowercase letters only, and a dice term has no spaces inside.`,
        item,
        node.tag.column,
      );
    }
    if (!tags.includes(node.tag.word)) {
      const which = tags.length === 0 ? 'this roll allows no tags' : "it is not one of this roll's tags";
      throw new FormulaError(
        `The trailing word "${excerpt(node.tag.word)}" is not an allowed tag: ${which}.`,
        item,
        node.tag.column,
      );
    }
  }
  return node;
}

/**
 * Parses and checks a bonus fragment: terms only, no tag, a leading `+` implied. A fragment may
 * be flat only (`"-2"`). Throws FormulaError, and nothing else, for any input string.
 */
export function parseFragment(text: string, options?: ParseFragmentOptions): FormulaNode {
  const item = options?.item ?? 'bonus';
  if (text.length > LIMITS.bonusMaxLength) {
    throw new FormulaError(`A bonus is at most ${LIMITS.bonusMaxLength} characters long.`, item, undefined);
  }
  const node = runParser(text, 'Fragment', item);
  checkTerms(node, item, 'bonus');
  return node;
}

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

function hasDice(node: FormulaNode): boolean {
  for (const term of node.terms) if (term.kind === 'dice') return true;
  return usesArithmetic(node) && diceTermsOf(node).length > 0;
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

/**
 * Whether a formula or fragment uses the second edition's arithmetic (parentheses, *, /, a
 * function, a group): then the response carries an `expression` and rounds its total down.
 */
export function usesArithmetic(node: FormulaNode): boolean {
  return node.terms.some((term) => term.kind !== 'dice' && term.kind !== 'flat');
}

function runParser(text: string, startRule: 'Formula' | 'Fragment', item: string): FormulaNode {
  // The plain first-edition forms take a fast path that returns the parser's own tree; anything
  // it does not know, errors included, goes to the parser (src/formula/scan.ts).
  const scanned = scanFormula(text, startRule);
  if (scanned !== undefined) return scanned;
  try {
    return generatedParse(text, { startRule });
  } catch (error) {
    if (error instanceof GeneratedSyntaxError) {
      // Only a formula that does not parse can hold another tool's notation.
      const expected = readableExpectations(error.expected);
      refuseForeignNotation(text, item, error.location.start.offset, expected);
      const what = startRule === 'Formula' ? 'formula' : 'bonus';
      const detail = `Expected ${joinOr(expected)}, but ${describeFound(error.found, what)}.`;
      throw new FormulaError(detail, item, error.location.start.offset + 1, expected);
    }
    // Anything else is a fault of fairdice, not of the formula: it propagates (a 500 upstream).
    throw error;
  }
}

/**
 * Notations of other dice tools that fairdice deliberately refuses, with why and what to write
 * instead (docs/language.md, "Coming from ..."). `offset` is where the parser failed: a notation
 * is recognised only where it made the parse fail, so no other failure is misread as one.
 */
function refuseForeignNotation(text: string, item: string, offset: number, expected: string[]): void {
  // At the parser's failure, the error keeps what the parser expected there.
  const fail = (message: string, at: number): never => {
    throw new FormulaError(message, item, at + 1, at === offset ? expected : []);
  };
  const comment = text.search(/#|\/\//);
  if (comment !== -1) {
    fail(
      'A formula has no comments: to name a roll, use a label [note] after a term, or a tag word at the end.',
      comment,
    );
  }
  const inline = text.indexOf('[[');
  if (inline !== -1) {
    fail(
      'A formula is one roll, not text with embedded rolls: send the formula inside [[...]] on its own.',
      inline,
    );
  }
  const before = text.slice(0, offset);
  const rest = text.slice(offset);
  const call = /^([a-z_]\w*)\s*\(/i.exec(rest);
  if (call !== null && !/\w$/.test(before)) {
    const name = call[1]!.toLowerCase();
    if (name === 'pow') fail('Powers are written with ^ (or **) here: write 1d6^2, not pow(1d6,2).', offset);
    fail(
      NOT_RATIONAL.has(name)
        ? `${name} is refused: a formula's value stays exact (a rational number) and ${name}'s results are not. The functions are floor, ceil, round, abs, min and max.`
        : `${name} is not a function here: the functions are floor, ceil, round, abs, min and max.`,
      offset,
    );
  }
  const fate = /(\d*)d[fF]$/.exec(before);
  if (fate !== null && rest.startsWith('.')) {
    const count = fate[1]!;
    const variant = /^\.(\d*)/.exec(rest)![1];
    fail(
      variant === '2'
        ? `dF.2 is the usual Fate die, written dF here: write ${count}dF.`
        : variant === '1'
          ? `dF.1 (one minus face, four blank faces, one plus face) is a custom die here: write ${count}d{-1,0,0,0,0,1}.`
          : 'A Fate die is dF (faces -1, 0 and +1); list other faces as a custom die, such as d{-1,0,0,0,0,1}.',
      offset,
    );
  }
  for (const decimal of text.matchAll(/(\d*)\.(\d+)/g)) {
    const at = decimal.index;
    if (offset < at || offset > at + decimal[0].length) continue;
    const digits = decimal[2]!;
    const value = Rational.of(BigInt(`${decimal[1]!}${digits}`), 10n ** BigInt(digits.length));
    const written =
      value.denominator === 1n
        ? `${value.numerator}`
        : `a fraction, (${value.numerator}/${value.denominator})`;
    fail(`Numbers are whole numbers here: write ${decimal[0]} as ${written}.`, at);
  }
  if (rest.startsWith('[')) {
    const open = before.endsWith(')') ? openingBracket(before) : -1;
    if (open !== -1) {
      const label = /^\[[^\]]*\]/.exec(rest)?.[0] ?? '[...]';
      fail(
        /\w$/.test(before.slice(0, open))
          ? 'A label follows a dice term or a group, not a function call: put it on a dice term inside, or leave it out.'
          : `A label follows a dice term or a group, not parentheses: write braces, {${before.slice(open + 1, -1)}}${label}.`,
        offset,
      );
    }
    if (/(^|[^\w}\]%])\d+$/.test(before)) {
      fail('A label names a dice term, not a number: move it after a dice term, or leave it out.', offset);
    }
  }
  if (DICE_TERM_BEFORE.test(before)) {
    if (/^s[ad]?(?![a-z])/i.test(rest)) {
      fail(
        'Sorting (s, sa, sd) is not a modifier here: the total does not depend on the order, and results stay in rolling order for a display to sort; leave it out.',
        offset,
      );
    }
  }
  if (/x$/i.test(before) && DICE_TERM_BEFORE.test(before.slice(0, -1))) {
    fail(
      /^o/i.test(rest)
        ? 'x multiplies here (1d6x10 is ten times 1d6): explode with ! (1d6!); an explosion that stops after one extra throw has no spelling here.'
        : 'x multiplies here and takes a number (1d6x10 is ten times 1d6): to explode, write ! (1d6!, or 1d6!>=5 on a compare point).',
      offset,
    );
  }
}

/** Where the parenthesis closed at the end of `text` opens, or -1. */
function openingBracket(text: string): number {
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(' && --depth === 0) return i;
  }
  return -1;
}

/** Functions of other tools whose results are not rational numbers (refused, not unknown). */
const NOT_RATIONAL = new Set([
  'sqrt',
  'cbrt',
  'exp',
  'log',
  'log2',
  'log10',
  'ln',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'hypot',
]);

/** The text before a failure ends inside a dice term: count, d, sides, then modifier characters. */
const DICE_TERM_BEFORE = /\d*d(?:\d+|%|f|\{[^{}]*\}|\([^()]*\))[a-z0-9<>=!]*$/i;

/** Range, limit and combination rules for the whole tree; `what` names the text in messages. */
function checkTerms(node: FormulaNode, item: string, what: 'formula' | 'bonus'): void {
  if (!usesArithmetic(node)) {
    checkSum(node, item, what);
    return;
  }
  let advantageTerms = 0;
  let terms = 0;
  const fail = (message: string, column: number | undefined): never => {
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
  /** `divisor`: inside the right side of a `/`; `pool`: inside a pool group's item. */
  const visit = (node: ExpressionNode, depth: number, divisor: boolean, pool: boolean): void => {
    switch (node.kind) {
      case 'flat':
        leaf(node.column);
        if (node.value > LIMITS.flatMaxAbs) {
          fail(
            `A number in a ${what} is at most ${formatInteger(LIMITS.flatMaxAbs)} in absolute value.`,
            node.column,
          );
        }
        return;
      case 'dice': {
        leaf(node.column);
        checkDice(node, item);
        const advantage = node.modifiers.find((m) => m.kind === 'advantage');
        if (advantage !== undefined && ++advantageTerms > 1) {
          fail(`A ${what} may have only one adv or dis term.`, advantage.column);
        }
        if (pool) {
          const own = node.modifiers.find(
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
        return;
      }
      case 'sum':
        nest(depth + 1, node.column);
        for (const term of node.terms) visit(term, depth + 1, divisor, false);
        return;
      case 'negate':
        visit(node.operand, depth, divisor, false);
        return;
      case 'product':
        visit(node.left, depth, divisor, false);
        visit(node.right, depth, divisor || node.operator !== '*', false);
        if (node.operator !== '*') checkDivisor(node.right, fail);
        return;
      case 'power': {
        visit(node.base, depth, divisor, false);
        visit(node.exponent, depth, divisor, false);
        if (hasDiceIn(node.exponent)) {
          fail(
            `An exponent is a number without dice, a whole number from 0 to ${LIMITS.exponentMax} (write 1d6^2, not 2^1d6).`,
            node.exponent.column,
          );
        }
        const exponent = constantValue(node.exponent);
        if (
          !exponent.isInteger() ||
          exponent.compare(Rational.of(0)) < 0 ||
          exponent.compare(Rational.of(LIMITS.exponentMax)) > 0
        ) {
          fail(`An exponent is a whole number from 0 to ${LIMITS.exponentMax}.`, node.exponent.column);
        }
        const [low, high] = bounds(node);
        if (!(Math.max(Math.abs(low), Math.abs(high)) <= LIMITS.powerMaxAbs)) {
          fail('A power may reach at most 10^100 in absolute value.', node.column);
        }
        return;
      }
      case 'call': {
        nest(depth + 1, node.column);
        const one = node.name !== 'min' && node.name !== 'max';
        if (one && node.arguments.length !== 1)
          fail(`${node.name} takes exactly one argument.`, node.arguments[1]!.column);
        if (!one && node.arguments.length < 2) fail(`${node.name} takes two or more arguments.`, node.column);
        for (const argument of node.arguments)
          for (const term of argument.terms) visit(term, depth + 1, divisor, false);
        return;
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
        for (const groupItem of node.items)
          for (const term of groupItem.terms) visit(term, depth + 1, divisor, poolGroup);
        // After the visit, which computed any computed counts.
        if (poolGroup && poolDice(node) > LIMITS.diceCountMax) {
          fail(
            `A pool group throws at most ${formatInteger(LIMITS.diceCountMax)} dice, as one dice term does.`,
            node.column,
          );
        }
        return;
      }
    }
  };
  for (const term of node.terms) visit(term, 0, false, false);
}

/**
 * A divisor (of `/` or `%`) is never zero: without dice its value, known now, is not zero; with
 * dice, the interval of its smallest and largest values must not hold zero.
 */
function checkDivisor(divisor: ExpressionNode, fail: (message: string, column: number) => never): void {
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

function hasDiceIn(node: ExpressionNode): boolean {
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

type Interval = [number, number];

/**
 * The smallest and largest value an expression can take, by interval arithmetic over each dice
 * term's smallest and largest total (wider than the truth where terms are not independent, never
 * narrower). Only called on trees whose divisors and exponents were checked.
 */
export function bounds(node: ExpressionNode): Interval {
  switch (node.kind) {
    case 'flat':
      return [node.sign * node.value, node.sign * node.value];
    case 'dice':
      return diceBounds(node);
    case 'sum': {
      let low = 0;
      let high = 0;
      for (const term of node.terms) {
        const [l, h] = bounds(term);
        low += l;
        high += h;
      }
      return [low, high];
    }
    case 'negate': {
      const [l, h] = bounds(node.operand);
      return [-h, -l];
    }
    case 'product': {
      const [a, b] = bounds(node.left);
      const [c, d] = bounds(node.right);
      if (node.operator === '*') return span([a * c, a * d, b * c, b * d]);
      if (c <= 0 && d >= 0) return [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
      if (node.operator === '/') return span([a / c, a / d, b / c, b / d]);
      // A remainder is smaller than the divisor and than the left side, with the left side's sign.
      const limit = Math.max(Math.abs(c), Math.abs(d));
      return [a < 0 ? -Math.min(limit, -a) : 0, b > 0 ? Math.min(limit, b) : 0];
    }
    case 'power': {
      const [a, b] = bounds(node.base);
      const e = constantValue(node.exponent).toNumber();
      if (e === 0) return [1, 1];
      if (e % 2 === 1 || a >= 0) return [a ** e, b ** e];
      if (b <= 0) return [b ** e, a ** e];
      return [0, Math.max(a ** e, b ** e)];
    }
    case 'call': {
      const args = node.arguments.map(bounds);
      const [a, b] = args[0]!;
      switch (node.name) {
        case 'floor':
          return [Math.floor(a), Math.floor(b)];
        case 'ceil':
          return [Math.ceil(a), Math.ceil(b)];
        case 'round':
          return [Math.floor(a), Math.ceil(b)];
        case 'abs':
          return a >= 0 ? [a, b] : b <= 0 ? [-b, -a] : [0, Math.max(-a, b)];
        case 'min':
          return [Math.min(...args.map((x) => x[0])), Math.min(...args.map((x) => x[1]))];
        case 'max':
          return [Math.max(...args.map((x) => x[0])), Math.max(...args.map((x) => x[1]))];
      }
      return [a, b];
    }
    case 'group': {
      const items = node.items.map(bounds);
      const counting = node.modifiers.some((m) => m.kind === 'success');
      if (counting) {
        let n = items.length;
        if (isPool(node)) n = poolDice(node);
        return [-n, n];
      }
      const selecting = node.modifiers.some((m) => m.kind === 'keep' || m.kind === 'drop');
      let low = 0;
      let high = 0;
      for (const [l, h] of items) {
        // A kept subset's sum lies between the sum of the negative lows and of the positive highs.
        low += selecting ? Math.min(0, l) : l;
        high += selecting ? Math.max(0, h) : h;
      }
      return [low, high];
    }
  }
}

function poolDice(group: GroupNode): number {
  let n = 0;
  for (const term of group.items[0]!.terms) if (term.kind === 'dice') n += term.count;
  return n;
}

function span(values: number[]): Interval {
  return [Math.min(...values), Math.max(...values)];
}

/** A dice term's smallest and largest total (sign, multiplier, keep/drop, counting included). */
function diceBounds(dice: DiceNode): Interval {
  let [a, b] = clampBounds(dice);
  const explode = dice.modifiers.find((m): m is ExplodeModifier => m.kind === 'explode');
  if (explode !== undefined) {
    const penalty = explode.penetrate ? 1 : 0;
    a += LIMITS.explodeCap * Math.min(0, a - penalty);
    b += LIMITS.explodeCap * Math.max(0, b - penalty);
  }
  let n = dice.count;
  let selecting = false;
  let counting = false;
  let matchTotal = false;
  let multiplier = 1;
  for (const modifier of dice.modifiers) {
    if (modifier.kind === 'advantage') n = Math.max(n, 2);
    if (modifier.kind === 'keep' || modifier.kind === 'drop' || modifier.kind === 'advantage')
      selecting = true;
    if (modifier.kind === 'success') counting = true;
    if (modifier.kind === 'match' && modifier.total) matchTotal = true;
    if (modifier.kind === 'multiply') multiplier = modifier.factor;
  }
  let low: number;
  let high: number;
  if (counting) [low, high] = [-n, n];
  else if (matchTotal) [low, high] = [0, n];
  else if (selecting) [low, high] = [Math.min(0, n * a), Math.max(0, n * b)];
  else [low, high] = [n * a, n * b];
  low *= multiplier;
  high *= multiplier;
  return dice.sign === 1 ? [low, high] : [-high, -low];
}

/** checkTerms for a first-edition sum (dice terms and numbers only), without the tree walk. */
function checkSum(node: FormulaNode, item: string, what: 'formula' | 'bonus'): void {
  let advantageTerms = 0;
  for (const term of node.terms) {
    if (term.kind === 'flat') {
      if (term.value > LIMITS.flatMaxAbs) {
        throw new FormulaError(
          `A number in a ${what} is at most ${formatInteger(LIMITS.flatMaxAbs)} in absolute value.`,
          item,
          term.column,
        );
      }
      continue;
    }
    if (term.kind !== 'dice') continue;
    checkDice(term, item);
    const advantage = term.modifiers.find((m) => m.kind === 'advantage');
    if (advantage !== undefined && ++advantageTerms > 1) {
      throw new FormulaError(`A ${what} may have only one adv or dis term.`, item, advantage.column);
    }
  }
  if (node.terms.length > LIMITS.termsMax) {
    throw new FormulaError(
      `A ${what} has at most ${LIMITS.termsMax} terms (dice terms and numbers).`,
      item,
      node.terms[LIMITS.termsMax]!.column,
    );
  }
}

function checkGroupModifiers(group: GroupNode, fail: (message: string, column: number) => never): void {
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
    'A dice term takes at most one reroll (r or ro), on one compare point: rerolls on several values such as r8r1 cannot be combined; one point may cover a range (r<3, r>=7).',
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

/** The smallest and largest face of a die. */
export function faceBounds(dice: Pick<DiceNode, 'sides' | 'faces'>): [number, number] {
  if (dice.faces === undefined) return [1, dice.sides];
  let low = dice.faces[0]!;
  let high = low;
  for (const face of dice.faces) {
    if (face < low) low = face;
    if (face > high) high = face;
  }
  return [low, high];
}

/**
 * The values meeting a compare point, as an inclusive range [low, high] of integers (infinite
 * on an open side). One range covers every compare point, so the roller tests a value with two
 * comparisons and no branching on the operator.
 */
export function compareBounds(compare: ComparePoint): [number, number] {
  const { operator, value } = compare;
  switch (operator) {
    case '<':
      return [Number.NEGATIVE_INFINITY, value - 1];
    case '<=':
      return [Number.NEGATIVE_INFINITY, value];
    case '>':
      return [value + 1, Number.POSITIVE_INFINITY];
    case '>=':
      return [value, Number.POSITIVE_INFINITY];
    case '<>':
      // Inverted: every value except `value` (see `within`).
      return [value + 1, value - 1];
    default:
      return [value, value];
  }
}

/**
 * Whether `value` meets a range from compareBounds: `low <= value <= high`, or for an inverted
 * range (low > high, a not-equal point) `value >= low || value <= high`. The range
 * [+infinity, -infinity] meets nothing either way.
 */
export function within(value: number, low: number, high: number): boolean {
  return low <= high ? value >= low && value <= high : value >= low || value <= high;
}

/** The term's min and max clamp values (the face bounds when not written). */
export function clampBounds(dice: DiceNode): [number, number] {
  let [low, high] = faceBounds(dice);
  for (const modifier of dice.modifiers) {
    if (modifier.kind !== 'clamp') continue;
    if (modifier.bound === 'min') low = modifier.value;
    else high = modifier.value;
  }
  return [low, high];
}

/** Whether every value a die of this term can record (after min/max) meets the compare point. */
function everyValueMeets(dice: DiceNode, compare: ComparePoint): boolean {
  const [low, high] = compareBounds(compare);
  const [clampLow, clampHigh] = clampBounds(dice);
  if (dice.faces === undefined) {
    // Not equal: every value meets it when the excluded value lies outside the die's values.
    if (low > high) return high + 1 < clampLow || high + 1 > clampHigh;
    return low <= clampLow && clampHigh <= high;
  }
  return dice.faces.every((face) => within(Math.min(Math.max(face, clampLow), clampHigh), low, high));
}

/** The explode point of a term: the one written, else the die's largest face. */
export function explodePoint(dice: DiceNode, modifier: ExplodeModifier): ComparePoint {
  return modifier.compare ?? { operator: '=', value: faceBounds(dice)[1] };
}

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
  const value = evaluateTerms(expression.terms, () => {
    throw new Error('no dice');
  }).value;
  if (!value.isInteger()) {
    throw new FormulaError(
      `${what} must be a whole number; this one is ${value.toString()}.`,
      item,
      expression.column,
    );
  }
  return value.toNumber();
}

function checkDice(dice: DiceNode, item: string): void {
  if (dice.countExpression !== undefined) dice.count = computedNumber(dice.countExpression, item, 'count');
  if (dice.sidesExpression !== undefined) dice.sides = computedNumber(dice.sidesExpression, item, 'sides');
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
}

// --- error text -------------------------------------------------------------------------------

/** Preferred order of expectations in a message, most specific first. */
const EXPECTATION_ORDER = [
  'a term (dice like 2d6, or a number)',
  'a number of sides',
  'a face value',
  'a number to compare with',
  'a compare point for cs or cf',
  'a compare point for f',
  'a number for min or max',
  'a multiplier',
  "label text (1 to 32 letters, digits, spaces, _ ' -)",
  'the end of the label',
  'a comma or }',
  'a number',
  'a dice modifier',
  'a group modifier',
  'a comparison',
  'a label',
  'an operator (* / % ^)',
  'a comma',
  'a closing parenthesis',
  'a closing brace (})',
  'the letter d',
  'a sign (+ or -)',
  'a tag word',
  'the end of the formula',
];

const TERM_STARTS = [
  'a number',
  'the letter d',
  'an opening parenthesis',
  'a function (floor, ceil, round, abs, min, max)',
  'a group ({...})',
];

function readableExpectations(expected: readonly Expectation[] | null): string[] {
  const names = new Set<string>();
  for (const expectation of expected ?? []) {
    switch (expectation.type) {
      case 'other':
        names.add(expectation.description);
        break;
      case 'end':
        names.add('the end of the formula');
        break;
      default:
        // Literals and classes all sit inside named rules; describe any that escape generically.
        names.add('another character');
        break;
    }
  }
  if (names.has('a number') && names.has('the letter d')) {
    // Where a term may start: one name for dice, numbers, brackets and functions.
    for (const start of TERM_STARTS) names.delete(start);
    names.add('a term (dice like 2d6, or a number)');
  }
  if (names.size > 1) names.delete('whitespace');
  return [...names].sort((a, b) => rank(a) - rank(b));
}

function rank(name: string): number {
  const index = EXPECTATION_ORDER.indexOf(name);
  return index === -1 ? EXPECTATION_ORDER.length : index;
}

function joinOr(names: readonly string[]): string {
  if (names.length === 0) return 'something else';
  if (names.length === 1) return names[0]!;
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

const CHARACTER_NAMES: Record<string, string> = {
  ' ': 'a space',
  '\t': 'a tab',
  '<': 'a less-than sign',
  '>': 'a greater-than sign',
};

/**
 * Describes the character found where the parser stopped. Letters, digits and the operator
 * characters `+ - % ! = [ ] { } , ( ) * /` are quoted; every other character is named or only described, so a
 * message never carries markup or control characters.
 */
function describeFound(found: string | null | undefined, what: string): string {
  if (found === null || found === undefined || found === '') return `the ${what} ends there`;
  const named = CHARACTER_NAMES[found];
  if (named !== undefined) return `found ${named}`;
  if (isQuotable(found)) return `found "${found}"`;
  return `found a character that a ${what} cannot contain`;
}

function isQuotable(char: string): boolean {
  if (char.length !== 1) return false;
  const code = char.charCodeAt(0);
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    char === '+' ||
    char === '-' ||
    char === '%' ||
    char === '!' ||
    char === '=' ||
    char === '[' ||
    char === ']' ||
    char === '{' ||
    char === '}' ||
    char === ',' ||
    char === '(' ||
    char === ')' ||
    char === '*' ||
    char === '/'
  );
}

/** At most a short excerpt of a word from the formula (letters and digits only, by the grammar). */
function excerpt(word: string): string {
  return word.length <= 16 ? word : `${word.slice(0, 16)}...`;
}

/** 1000000 -> "1,000,000": limits read better with separators. */
export function formatInteger(value: number): string {
  return value.toLocaleString('en-US');
}

// Formula text -> checked AST. The generated peggy parser says what can be written; this module
// adds every rule of docs/language.md the grammar leaves open (ranges, one modifier of each kind,
// conflicts, conditions every face meets, the no-dice rule, tags) and turns parser failures into
// FormulaErrors whose messages are safe to put on a web page.

import { FormulaError } from '../errors.js';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import type { DiceModifier, DiceNode, FormulaNode } from './ast.js';
import type { Expectation } from './generated/parser.js';
import { SyntaxError as GeneratedSyntaxError, parse as generatedParse } from './generated/parser.js';

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
  if (!node.terms.some((term) => term.kind === 'dice')) {
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

function runParser(text: string, startRule: 'Formula' | 'Fragment', item: string): FormulaNode {
  try {
    return generatedParse(text, { startRule });
  } catch (error) {
    if (error instanceof GeneratedSyntaxError) {
      const expected = readableExpectations(error.expected);
      const what = startRule === 'Formula' ? 'formula' : 'bonus';
      const detail = `Expected ${joinOr(expected)}, but ${describeFound(error.found, what)}.`;
      throw new FormulaError(detail, item, error.location.start.offset + 1, expected);
    }
    // A stack overflow or similar on input the length check let through is still a bad formula.
    throw new FormulaError('This formula cannot be read.', item, undefined);
  }
}

/** Range and combination rules for every term; `what` names the text in messages. */
function checkTerms(node: FormulaNode, item: string, what: 'formula' | 'bonus'): void {
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
    checkDice(term, item);
    const advantage = term.modifiers.find((m) => m.kind === 'advantage');
    if (advantage !== undefined && ++advantageTerms > 1) {
      throw new FormulaError(`A ${what} may have only one adv or dis term.`, item, advantage.column);
    }
  }
}

type ModifierSlot = 'keep' | 'explode' | 'reroll' | 'multiply';

const SLOT_OF: Record<DiceModifier['kind'], ModifierSlot> = {
  keep: 'keep',
  drop: 'keep',
  advantage: 'keep',
  explode: 'explode',
  reroll: 'reroll',
  multiply: 'multiply',
};

const DUPLICATE_MESSAGE: Record<ModifierSlot, string> = {
  keep: 'A dice term takes at most one keep, drop, adv or dis.',
  explode: 'A dice term explodes (! or !p) at most once.',
  reroll: 'A dice term takes at most one reroll (r or ro).',
  multiply: 'A dice term takes at most one multiplier (x).',
};

function checkDice(dice: DiceNode, item: string): void {
  if (dice.count < 1 || dice.count > LIMITS.diceCountMax) {
    throw new FormulaError(
      `A dice term throws 1 to ${formatInteger(LIMITS.diceCountMax)} dice; this one asks for ${formatInteger(dice.count)}.`,
      item,
      dice.column,
    );
  }
  if (dice.sides < 1 || dice.sides > LIMITS.sidesMax) {
    throw new FormulaError(`A die has 1 to ${formatInteger(LIMITS.sidesMax)} sides.`, item, dice.sidesColumn);
  }
  const seen = new Map<ModifierSlot, DiceModifier>();
  for (const modifier of dice.modifiers) {
    const slot = SLOT_OF[modifier.kind];
    const earlier = seen.get(slot);
    if (earlier !== undefined) {
      const conflict = slot === 'keep' && (earlier.kind === 'advantage') !== (modifier.kind === 'advantage');
      const message = conflict
        ? 'adv and dis cannot be combined with a keep or drop on the same term.'
        : DUPLICATE_MESSAGE[slot];
      throw new FormulaError(message, item, modifier.column);
    }
    seen.set(slot, modifier);
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
      case 'explode':
        if (dice.sides === 1) {
          throw new FormulaError(
            'A one-sided die always shows its maximum, so it cannot explode.',
            item,
            modifier.column,
          );
        }
        break;
      case 'reroll': {
        const [low, high] = rerollFaces(modifier.compare.operator, modifier.compare.value, dice.sides);
        if (low <= 1 && high >= dice.sides) {
          throw new FormulaError(
            `Every face of a d${dice.sides} meets this reroll condition, so the die would never settle.`,
            item,
            modifier.column,
          );
        }
        break;
      }
      default:
        break;
    }
  }
}

/**
 * The faces of a die with `sides` faces that meet a reroll compare point, as an inclusive range
 * [low, high] (empty when low > high). One range covers every compare point, so the roller
 * tests a throw with two comparisons and no branching on the operator.
 */
export function rerollFaces(operator: string, value: number, sides: number): [number, number] {
  switch (operator) {
    case '<':
      return [1, Math.min(value - 1, sides)];
    case '<=':
      return [1, Math.min(value, sides)];
    case '>':
      return [Math.max(value + 1, 1), sides];
    case '>=':
      return [Math.max(value, 1), sides];
    default:
      return [value, value];
  }
}

// --- error text -------------------------------------------------------------------------------

/** Preferred order of expectations in a message, most specific first. */
const EXPECTATION_ORDER = [
  'a term (dice like 2d6, or a number)',
  'a number of sides',
  'a number to compare with',
  'a multiplier',
  'a number',
  'a comparison',
  'a dice modifier',
  'the letter d',
  'a sign (+ or -)',
  'a tag word',
  'the end of the formula',
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
    names.delete('a number');
    names.delete('the letter d');
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
 * characters `+ - % ! =` are quoted; every other character is named or only described, so a
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
    char === '='
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

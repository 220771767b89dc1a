// Formula text -> checked syntax tree: the driver of the generated peggy parser (grammar/dice.peggy,
// with the fast path of src/formula/scan.ts in front), then the rules the grammar leaves open
// (src/formula/check.ts), the no-dice rule and tags. A parser failure becomes a FormulaError
// whose message is safe to put on a web page (src/formula/messages.ts), or the refusal of another
// tool's notation with what to write instead (src/formula/notation.ts).

import { FormulaError } from '../errors.js';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import type { ExpressionNode, FormulaNode } from './ast.js';
import { checkTerms } from './check.js';
import { SyntaxError as GeneratedSyntaxError, parse as generatedParse } from './generated/parser.js';
import { describeFound, excerpt, joinOr, readableExpectations } from './messages.js';
import { refuseForeignNotation } from './notation.js';
import { scanFormula } from './scan.js';
import { hasDice } from './walk.js';

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
  const node = checkTerms(runParser(text, 'Formula', item), item, 'formula');
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
  return checkTerms(runParser(text, 'Fragment', item), item, 'bonus');
}

function runParser(text: string, startRule: 'Formula' | 'Fragment', item: string): FormulaNode {
  // The plain forms take a fast path that returns the parser's own tree; anything it does not
  // know, errors included, goes to the parser (src/formula/scan.ts).
  const scanned = scanFormula(text, startRule);
  if (scanned !== undefined) return scanned;
  try {
    return generatedParse(text, { startRule });
  } catch (error) {
    if (error instanceof GeneratedSyntaxError) {
      // Only a formula that does not parse can hold another tool's notation.
      const offset = error.location.start.offset;
      const expected = readableExpectations(error.expected);
      refuseForeignNotation(text, item, offset, expected);
      if (startRule === 'Formula' && expected.length === 1 && expected[0] === 'the end of the formula') {
        refuseTrailingWords(text, item, offset);
      }
      const what = startRule === 'Formula' ? 'formula' : 'bonus';
      const detail = `Expected ${joinOr(expected)}, but ${describeFound(error.found, what)}.`;
      throw new FormulaError(detail, item, offset + 1, expected);
    }
    // Anything else is a fault of fairdice, not of the formula: it propagates (a 500 upstream).
    throw error;
  }
}

/**
 * A formula that only the end could follow stopped after its tag word: several trailing words
 * (`d20+5 to hit`). Says where the formula ended and that what follows must be one tag.
 */
function refuseTrailingWords(text: string, item: string, offset: number): void {
  const read = /^([ \t]*)(\S.*?)[ \t]+[A-Za-z0-9]+[ \t]+$/s.exec(text.slice(0, offset));
  if (read === null) return;
  const formula = read[2]!;
  const after = read[1]!.length + formula.length;
  const start = after + /^[ \t]*/.exec(text.slice(after))![0].length;
  const words = text.slice(start).trimEnd();
  const quoted =
    words.length <= 32 && /^[A-Za-z0-9]+(?:[ \t]+[A-Za-z0-9]+)*$/.test(words)
      ? `"${words.replace(/[ \t]+/g, ' ')}"`
      : undefined;
  const end = lastTerm(formula);
  const where =
    end !== undefined
      ? `The formula ends at "${end}", so ${quoted ?? 'the words after it'} must be a tag`
      : quoted !== undefined
        ? `The formula ends before ${quoted}, so those words must be a tag`
        : 'The formula ends before the words here, so they must be a tag';
  throw new FormulaError(
    `${where}, and a tag is one lowercase word listed in the request's tags.`,
    item,
    start + 1,
  );
}

/** The last term of a formula's text with its sign (`+5` of `d20+5`), when it is short and quotable. */
function lastTerm(formula: string): string | undefined {
  let node: FormulaNode;
  try {
    node = generatedParse(formula, { startRule: 'Fragment' });
  } catch {
    return undefined;
  }
  const last = node.terms[node.terms.length - 1]!;
  let from = startColumn(last) - 1;
  // A term after a sign: the sign, and any spaces between, belong to it.
  const sign = /[+-][ \t]*$/.exec(formula.slice(0, from));
  if (sign !== null) from = sign.index;
  const term = formula.slice(from).replace(/[ \t]+/g, ' ');
  return term.length <= 24 && /^[A-Za-z0-9 +\-*/%^(){}[\],!=]+$/.test(term) ? term : undefined;
}

/** The column where an expression's text starts (a product's or a power's is its left side's). */
function startColumn(node: ExpressionNode): number {
  switch (node.kind) {
    case 'product':
      return startColumn(node.left);
    case 'power':
      return startColumn(node.base);
    default:
      return node.column;
  }
}

// The prose of a formula that does not parse: what the parser expected where it stopped, in
// readable names and a fixed order, and what it found there, quoted only when the character is
// one a formula may contain, so a message is always safe to put on a web page (src/errors.ts).

import type { Expectation } from './generated/parser.js';

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

/** The parser's expectations as readable names, deduplicated, most specific first. */
export function readableExpectations(expected: readonly Expectation[] | null): string[] {
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

/** "a, b or c". */
export function joinOr(names: readonly string[]): string {
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
export function describeFound(found: string | null | undefined, what: string): string {
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
export function excerpt(word: string): string {
  return word.length <= 16 ? word : `${word.slice(0, 16)}...`;
}

/** 1000000 -> "1,000,000": limits read better with separators. */
export function formatInteger(value: number): string {
  return value.toLocaleString('en-US');
}

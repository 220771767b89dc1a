// A fast path in front of the generated parser for the plain sums: a signed sum
// of dice terms (`NdS`, `dS`, `Nd%`, with kh/kl/k/dh/dl, adv/dis, !, !p, r/ro with a compare
// point, xK) and integers, with the whitespace the grammar allows between them, and a trailing
// tag word. For such a text it returns exactly the tree the parser built from grammar/dice.peggy
// returns (same nodes, fields, key order and columns); for anything else (every error, every
// form beyond these, anything doubtful) it returns undefined and the parser decides, so the
// grammar stays the one definition of the language and every error message stays the parser's.
// Tests hold the two to the same trees over generated formulas (test/formula/scan.test.ts); why
// this exists is in docs/performance.md#the-scanner-for-plain-sums.
//
// It reads the text with charCodeAt and one cursor (`at`, module state: scanning is synchronous
// and calls nothing outside this file, so no two scans ever interleave).

import type { DiceModifier, DiceNode, FlatNode, FormulaNode, TermNode } from './ast.js';

const TAB = 9;
const SPACE = 32;
const BANG = 33; // !
const PERCENT = 37; // %
const PLUS = 43;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const LESS = 60; // <
const EQUALS = 61; // =
const GREATER = 62; // >

let text = '';
let at = 0;

/**
 * The parser's tree for `source` read from `startRule` (a whole formula, or a bonus fragment
 * without a tag), or undefined when the text is not a plain sum the scanner knows.
 */
export function scanFormula(source: string, startRule: 'Formula' | 'Fragment'): FormulaNode | undefined {
  text = source;
  at = 0;
  try {
    return scan(startRule === 'Formula');
  } finally {
    text = '';
  }
}

function scan(allowTag: boolean): FormulaNode | undefined {
  const length = text.length;
  skipWhitespace();
  // The first term may carry a sign; every later one has one.
  let code = text.charCodeAt(at);
  let negative = false;
  if (code === PLUS || code === MINUS) {
    negative = code === MINUS;
    at++;
    skipWhitespace();
  }
  const first = term();
  if (first === undefined) return undefined;
  if (negative) first.sign = -1;
  const terms: TermNode[] = [first];
  for (;;) {
    const end = at;
    skipWhitespace();
    if (at === length) return { kind: 'formula', terms, tag: null };
    code = text.charCodeAt(at);
    if (code === PLUS || code === MINUS) {
      at++;
      skipWhitespace();
      const next = term();
      if (next === undefined) return undefined;
      if (code === MINUS) next.sign = -1;
      terms.push(next);
      continue;
    }
    // A tag: a word after whitespace, then only whitespace. Anything else is the parser's.
    if (!allowTag || at === end || !isWordCharacter(code)) return undefined;
    const start = at;
    while (at < length && isWordCharacter(text.charCodeAt(at))) at++;
    const word = text.slice(start, at);
    skipWhitespace();
    if (at !== length) return undefined;
    return { kind: 'formula', terms, tag: { word, column: start + 1 } };
  }
}

function skipWhitespace(): void {
  let code = text.charCodeAt(at);
  while (code === SPACE || code === TAB) code = text.charCodeAt(++at);
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/** [a-zA-Z0-9], the grammar's tag word. */
function isWordCharacter(code: number): boolean {
  return isDigit(code) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
}

/** Lower-cases an ASCII letter's code (and leaves other codes out of the letter range). */
function lower(code: number): number {
  return code | 0x20;
}

/** The digits at the cursor as the grammar's `Number(digits)`, or -1 when there is no digit. */
function digits(): number {
  const start = at;
  let value = 0;
  let code = text.charCodeAt(at);
  while (isDigit(code)) {
    value = value * 10 + (code - ZERO);
    code = text.charCodeAt(++at);
  }
  if (at === start) return -1;
  // Past 15 digits the sum above may round differently from Number(): take the grammar's own.
  return at - start > 15 ? Number(text.slice(start, at)) : value;
}

/** A dice term or an integer, sign 1 (the caller sets a sign), or undefined. */
function term(): DiceNode | FlatNode | undefined {
  const column = at + 1;
  const count = digits();
  const letter = lower(text.charCodeAt(at));
  if (letter !== 100 /* d */) {
    if (count === -1) return undefined;
    return { kind: 'flat', sign: 1, value: count, column };
  }
  at++;
  const sidesColumn = at + 1;
  let sides: number;
  let percentile = false;
  if (text.charCodeAt(at) === PERCENT) {
    at++;
    sides = 100;
    percentile = true;
  } else {
    sides = digits();
    if (sides === -1) return undefined;
  }
  const modifiers: DiceModifier[] = [];
  for (;;) {
    const code = text.charCodeAt(at);
    // The end of the term: whitespace, a sign or the end; anything else goes to the caller,
    // which declines what it does not know (a label, an operator, another modifier).
    if (code === SPACE || code === TAB || code === PLUS || code === MINUS || at === text.length) break;
    const modifier = diceModifier(code);
    if (modifier === undefined) return undefined;
    modifiers.push(modifier);
  }
  return {
    kind: 'dice',
    sign: 1,
    count: count === -1 ? 1 : count,
    countWritten: count !== -1,
    sides,
    percentile,
    modifiers,
    column,
    sidesColumn,
  };
}

/** One modifier of a plain sum starting with `code` at the cursor, or undefined. */
function diceModifier(code: number): DiceModifier | undefined {
  const column = at + 1;
  if (code === BANG) {
    const next = text.charCodeAt(at + 1);
    // `!!` (compounding) is the parser's.
    if (next === BANG) return undefined;
    const penetrate = lower(next) === 112; /* p */
    at += penetrate ? 2 : 1;
    // So is a compare point after ! or !p.
    const after = text.charCodeAt(at);
    if (isDigit(after) || after === LESS || after === EQUALS || after === GREATER) return undefined;
    return { kind: 'explode', penetrate, compound: false, compare: null, column };
  }
  switch (lower(code)) {
    case 107 /* k */:
      {
        const next = lower(text.charCodeAt(at + 1));
        const lowest = next === 108; /* l */
        at += next === 104 /* h */ || lowest ? 2 : 1;
        const amount = digits();
        return {
          kind: 'keep',
          mode: lowest ? 'lowest' : 'highest',
          amount: amount === -1 ? 1 : amount,
          column,
        };
      }
    case 100 /* d */:
      {
        const next = lower(text.charCodeAt(at + 1));
        if (next === 104 /* h */ || next === 108 /* l */) {
          at += 2;
          const amount = digits();
          return {
            kind: 'drop',
            mode: next === 108 ? 'lowest' : 'highest',
            amount: amount === -1 ? 1 : amount,
            column,
          };
        }
        if (next === 105 /* i */ && lower(text.charCodeAt(at + 2)) === 115 /* s */) {
          at += 3;
          return { kind: 'advantage', mode: 'disadvantage', column };
        }
        // `d` and a digit (a bare drop) is the parser's.
        return undefined;
      }
    case 97 /* a */:
      if (lower(text.charCodeAt(at + 1)) !== 100 /* d */ || lower(text.charCodeAt(at + 2)) !== 118 /* v */)
        return undefined;
      at += 3;
      return { kind: 'advantage', mode: 'advantage', column };
    case 114 /* r */:
      {
        const once = lower(text.charCodeAt(at + 1)) === 111; /* o */
        at += once ? 2 : 1;
        const compare = comparePoint();
        if (compare === undefined) return undefined;
        return { kind: 'reroll', once, compare: compare ?? { operator: '=', value: 1 }, column };
      }
    case 120 /* x */:
      {
        at++;
        const factor = digits();
        if (factor === -1) return undefined;
        return { kind: 'multiply', factor, column };
      }
    default:
      return undefined;
  }
}

/**
 * The compare point after r or ro in a plain sum: `N`, `=N`, `<N`, `<=N`, `>N`, `>=N`; null
 * when none is written; undefined for anything the scanner leaves to the parser (`<>`, a minus,
 * an operator without its number).
 */
function comparePoint(): { operator: '=' | '<' | '<=' | '>' | '>='; value: number } | null | undefined {
  const code = text.charCodeAt(at);
  if (isDigit(code)) return { operator: '=', value: digits() };
  let operator: '=' | '<' | '<=' | '>' | '>=';
  if (code === EQUALS) {
    operator = '=';
    at++;
  } else if (code === LESS || code === GREATER) {
    const equals = text.charCodeAt(at + 1) === EQUALS;
    if (!equals && text.charCodeAt(at + 1) === GREATER) return undefined;
    operator = code === LESS ? (equals ? '<=' : '<') : equals ? '>=' : '>';
    at += equals ? 2 : 1;
  } else {
    return null;
  }
  const value = digits();
  return value === -1 ? undefined : { operator, value };
}

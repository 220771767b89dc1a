// Notations of other dice tools (Roll20, Foundry, rpg-dice-roller, ...) that fairdice
// deliberately refuses, each with why and what to write instead (docs/language.md,
// "Coming from Roll20 / Foundry / rpg-dice-roller"). Asked only about a formula that did not
// parse, at the place it failed, so no other failure is misread as one.

import { FormulaError } from '../errors.js';
import { Rational } from './rational.js';

/**
 * Notations of other dice tools that fairdice deliberately refuses, with why and what to write
 * instead (docs/language.md, "Coming from ..."). `offset` is where the parser failed: a notation
 * is recognised only where it made the parse fail, so no other failure is misread as one.
 */
export function refuseForeignNotation(text: string, item: string, offset: number, expected: string[]): void {
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

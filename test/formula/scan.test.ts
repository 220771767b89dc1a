// The scanner (src/formula/scan.ts) is a fast path in front of the generated parser: for any text
// it must return exactly the parser's tree or decline. These tests hold it to the grammar over
// generated plain sums, their mutations and random strings; check that it does take
// the forms the speed figures are measured on (docs/performance.md#http-engine-and-random-source); and that it leaves every
// other form to the parser.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENGINE_FORMULAS } from '../../scripts/bench/workloads.js';
import { PLAIN_SUM_FORMULAS } from '../../scripts/bench-engine-vs.js';
import type { FormulaNode } from '../../src/formula/ast.js';
import { parse } from '../../src/formula/generated/parser.js';
import { parseFormula, parseFragment } from '../../src/formula/parse.js';
import { scanFormula } from '../../src/formula/scan.js';

type StartRule = 'Formula' | 'Fragment';

/** The generated parser's tree as JSON (key order included), or undefined when it refuses the text. */
function parserTree(text: string, startRule: StartRule): string | undefined {
  try {
    return JSON.stringify(parse(text, { startRule }));
  } catch (error) {
    if (error instanceof Error && error.name === 'SyntaxError') return undefined;
    throw error;
  }
}

let accepted = 0;

/** The property itself: the scanner declines, or returns the parser's tree to the key. */
function agrees(text: string, startRule: StartRule): boolean {
  const scanned = scanFormula(text, startRule);
  if (scanned === undefined) return true;
  accepted++;
  return JSON.stringify(scanned) === parserTree(text, startRule);
}

function expectAgreement(text: string): void {
  for (const startRule of ['Formula', 'Fragment'] as const) {
    if (!agrees(text, startRule)) {
      expect(JSON.stringify(scanFormula(text, startRule)), `${startRule} ${JSON.stringify(text)}`).toBe(
        parserTree(text, startRule),
      );
    }
  }
}

// --- generators of plain sums -----------------------------------------------------------------

/** `word` with each letter in either case. */
const anyCase = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** Integers as written: small, large, with leading zeros, past 2^32 and past 2^53. */
const number = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 30 }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 100_000 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0',
      '007',
      '1000',
      '1001',
      '4294967295',
      '4294967296',
      '4294967297',
      '9007199254740993',
      '123456789012345678901234567890',
      '0000000000000000000001',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,25}$/) },
);

const sides = fc.oneof({ weight: 1, arbitrary: fc.constant('%') }, { weight: 5, arbitrary: number });

const optionalNumber = fc.option(number, { nil: '' });

const comparePoint = fc.oneof(
  fc.constant(''),
  number,
  fc.tuple(fc.constantFrom('=', '<', '<=', '>', '>='), number).map(([operator, value]) => operator + value),
);

const modifier = fc.oneof(
  fc
    .tuple(fc.constantFrom('kh', 'kl', 'k', 'dh', 'dl').chain(anyCase), optionalNumber)
    .map(([head, amount]) => head + amount),
  fc.constantFrom('adv', 'dis').chain(anyCase),
  fc.constantFrom('!', '!p', '!P'),
  fc.tuple(fc.constantFrom('r', 'ro').chain(anyCase), comparePoint).map(([head, compare]) => head + compare),
  fc.tuple(anyCase('x'), number).map(([head, factor]) => head + factor),
);

const dice = fc
  .tuple(optionalNumber, fc.constantFrom('d', 'D'), sides, fc.array(modifier, { maxLength: 4 }))
  .map(([count, letter, side, modifiers]) => count + letter + side + modifiers.join(''));

const term = fc.oneof({ weight: 3, arbitrary: dice }, { weight: 1, arbitrary: number });

/** Whitespace where the grammar allows it: mostly none, sometimes spaces and tabs. */
const space = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom(' ', '  ', '\t', ' \t ') },
);

const sign = fc.constantFrom('+', '-');

const tag = fc.oneof(
  fc.constantFrom('fire', 'cold', 'x', 'FIRE', 'Fire', 'f1', '5', 'adv', 'kh3', 'd6', '2d6'),
  fc.stringMatching(/^[a-z]{1,12}$/),
);

const plainSum = fc
  .tuple(
    space,
    fc.option(fc.tuple(sign, space), { nil: undefined }),
    term,
    fc.array(fc.tuple(space, sign, space, term), { maxLength: 5 }),
    fc.option(fc.tuple(fc.constantFrom(' ', '\t', '  '), tag), { nil: undefined }),
    space,
  )
  .map(
    ([lead, first, head, tail, trailing, end]) =>
      lead +
      (first === undefined ? '' : first.join('')) +
      head +
      tail.map((part) => part.join('')).join('') +
      (trailing === undefined ? '' : trailing.join('')) +
      end,
  );

/** Characters the formulas are made of, and a few the language has no use for. */
const ALPHABET = [...'0123456789dDkKhHlLaAvViIsSrRoOxXpP!%<>=+- \t[]{}()*/^,fFmMuUcCtTnN#\n_'];

const character = fc.constantFrom(...ALPHABET);

/** A formula with a few characters inserted, deleted or replaced anywhere (spaces inside terms too). */
const mutated = fc
  .tuple(
    plainSum,
    fc.array(fc.tuple(fc.constantFrom('insert', 'delete', 'replace'), fc.nat(), character), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([text, edits]) => {
    let result = text;
    for (const [edit, position, char] of edits) {
      const at = result.length === 0 ? 0 : position % (result.length + (edit === 'insert' ? 1 : 0));
      if (edit === 'insert') result = result.slice(0, at) + char + result.slice(at);
      else if (edit === 'delete') result = result.slice(0, at) + result.slice(at + 1);
      else result = result.slice(0, at) + char + result.slice(at + 1);
    }
    return result;
  });

const randomText = fc.string({ unit: character, maxLength: 24 });

// --- the properties ---------------------------------------------------------------------------

describe('scanFormula agrees with the generated parser', () => {
  it('takes every generated plain sum the parser takes, with the same tree', () => {
    let parsed = 0;
    fc.assert(
      fc.property(plainSum, (text) => {
        expectAgreement(text);
        for (const startRule of ['Formula', 'Fragment'] as const) {
          // `!!` is compounding, not two explode modifiers written back to back.
          if (parserTree(text, startRule) !== undefined && !text.includes('!!')) {
            parsed++;
            expect(scanFormula(text, startRule), `${startRule} ${JSON.stringify(text)}`).toBeDefined();
          }
        }
      }),
      { numRuns: 10_000 },
    );
    // The generator is not vacuous: most of its formulas parse (the rest have a bad tag spacing
    // for a fragment, or a duplicate modifier the checks refuse later, which still parses).
    expect(parsed).toBeGreaterThan(10_000);
  });

  it('declines or agrees on mutated formulas (spaces inside terms, stray characters)', () => {
    accepted = 0;
    fc.assert(
      fc.property(mutated, (text) => {
        expectAgreement(text);
      }),
      { numRuns: 10_000 },
    );
    expect(accepted).toBeGreaterThan(1_000);
  });

  it('declines or agrees on random strings over the formula alphabet', () => {
    fc.assert(
      fc.property(randomText, (text) => {
        expectAgreement(text);
      }),
      { numRuns: 10_000 },
    );
  });

  it('agrees on hand-picked edge cases', () => {
    const cases = [
      '',
      ' ',
      '+',
      '-',
      'd',
      '1d',
      'd%',
      '1d%5',
      '1D20',
      ' -d%!pR>=3X2dl2 fire',
      '2d6r-1',
      '2d6ro-1',
      '2d6r<-1',
      '2d6r<',
      '2d6r<>3',
      '2d6r=>3',
      '2d6x',
      '2d6x-2',
      '8d6!-1',
      '8d6!p+1',
      '8d6!5',
      '8d6!!',
      '8d6!!p',
      '4d6k',
      '4d6kh',
      '4d6KL',
      '4d6DH',
      '4d6Dl',
      '4d6d1',
      '4d6d',
      '4d6di',
      '4d6DiS',
      '4d6ad',
      '4d6aDV',
      '1d20 5',
      '1d20 d6',
      '1d20 fire ',
      '1d20 fire +2',
      '1d20fire',
      '5fire',
      '5 fire',
      '1d20\tfire',
      '1d20 +\t5',
      '1d20+-5',
      '--1d20',
      '+1d20',
      '-5',
      '1d6 + 2 ',
      '1d6\n',
      '1d6 # note',
      '999999999999999999999d6',
      '1d99999999999999999999999',
      '1d6+123456789012345678',
    ];
    for (const text of cases) expectAgreement(text);
  });
});

describe('scanFormula takes the formulas the speed figures are measured on', () => {
  it('every plain sum of bench:engine-vs, with the parser tree', () => {
    for (const formula of PLAIN_SUM_FORMULAS) {
      const scanned = scanFormula(formula, 'Formula');
      expect(scanned, formula).toBeDefined();
      expect(JSON.stringify(scanned)).toBe(parserTree(formula, 'Formula'));
    }
  });

  it("the engine bench's plain sums", () => {
    const names = ['1d20', '4d6kh3', '999d6', '10d10p'];
    for (const name of names) {
      const entry = ENGINE_FORMULAS.find((e) => e.name === name);
      expect(entry, name).toBeDefined();
      expect(scanFormula(entry!.formula, 'Formula'), entry!.formula).toBeDefined();
    }
  });

  it('what parseFormula and parseFragment return for them is the scanned tree', () => {
    const tree: FormulaNode = parseFormula('1d%+10 fire', { tags: ['fire'] });
    expect(JSON.stringify(tree)).toBe(JSON.stringify(scanFormula('1d%+10 fire', 'Formula')));
    expect(JSON.stringify(parseFragment('-2+1d4'))).toBe(parserTree('-2+1d4', 'Fragment'));
  });
});

describe('scanFormula leaves every other form to the parser', () => {
  // Each parses (the parser takes it) and is declined by the scanner.
  const otherForms = [
    '3d6!!',
    '3d6!!p',
    '1d10!>=9',
    '1d10!9',
    '1d10!p>8',
    '2d6min3',
    '2d6max5',
    '4dF',
    '4df',
    'd{1,1,2,3,5,8}',
    '1d20cs>=19',
    '1d20cf<=2',
    '2d6[fire]+1d4[cold]',
    '6d10>=8',
    '6d10>=8f1',
    '6d10=10',
    '(1d8+4)*2',
    '(4-2)d10',
    '3d(2*6)',
    '1d6*2',
    '2d10/d20',
    '1d6%4',
    '1d6^2',
    '1d6**2',
    '{1d8!,1d6!}kh1',
    '{4d6+3d8}kh3',
    'floor(1d6/2)',
    'max(1d6,1d8)',
    '2d6r<>3',
    '1d6r<-1',
    '4d6u',
    '4d6uo',
    '20d6m',
    '20d6mt',
    '4d6d1',
    '-(1d6)',
  ];

  it.each(otherForms)('%s', (text) => {
    expect(parserTree(text, 'Formula'), 'the parser takes it').toBeDefined();
    expect(scanFormula(text, 'Formula')).toBeUndefined();
    expect(scanFormula(text, 'Fragment')).toBeUndefined();
  });

  it('errors stay the parser’s: a text the parser refuses is always declined', () => {
    for (const text of ['1d6+', '1d6 # note', '[[1d20]]', '20*', '1d6kh3 kh 2', '1d']) {
      expect(parserTree(text, 'Formula')).toBeUndefined();
      expect(scanFormula(text, 'Formula')).toBeUndefined();
    }
    expect(() => parseFormula('1d6 # note')).toThrow(/no comments/);
    expect(() => parseFormula('1d')).toThrow(/Expected a number of sides/);
  });
});

// The parser: the AST it builds, the errors it gives (located, readable, web-safe), and
// totality: every string parses or throws a FormulaError.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormulaError, LIMITS, parseFormula, parseFragment, roll } from '../../src/index.js';
import { minSource } from '../support/sources.js';

function parseError(text: string, options?: Parameters<typeof parseFormula>[1]): FormulaError {
  try {
    parseFormula(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(FormulaError);
    return error as FormulaError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('AST', () => {
  it('builds plain nodes with columns', () => {
    expect(parseFormula('4d6kh3+2')).toEqual({
      kind: 'formula',
      terms: [
        {
          kind: 'dice',
          sign: 1,
          count: 4,
          countWritten: true,
          sides: 6,
          percentile: false,
          modifiers: [{ kind: 'keep', mode: 'highest', amount: 3, column: 4 }],
          column: 1,
          sidesColumn: 3,
        },
        { kind: 'flat', sign: 1, value: 2, column: 8 },
      ],
      tag: null,
    });
  });

  it('records every modifier in written order', () => {
    const ast = parseFormula(' -d%!pR>=3X2dl2 fire', { tags: ['fire'] });
    const dice = ast.terms[0];
    expect(dice).toMatchObject({ kind: 'dice', sign: -1, count: 1, countWritten: false, sides: 100 });
    expect(dice?.kind === 'dice' && dice.modifiers.map((m) => m.kind)).toEqual([
      'explode',
      'reroll',
      'multiply',
      'drop',
    ]);
    expect(ast.tag).toEqual({ word: 'fire', column: 17 });
  });

  it('reads compare points and defaults', () => {
    const compares = ['r', 'r3', 'r=3', 'r<3', 'r<=3', 'r>3', 'r>=3', 'ro'].map((m) => {
      const dice = parseFormula(`1d6${m}`).terms[0];
      return dice?.kind === 'dice' && dice.modifiers[0]?.kind === 'reroll' ? dice.modifiers[0].compare : null;
    });
    expect(compares).toEqual([
      { operator: '=', value: 1 },
      { operator: '=', value: 3 },
      { operator: '=', value: 3 },
      { operator: '<', value: 3 },
      { operator: '<=', value: 3 },
      { operator: '>', value: 3 },
      { operator: '>=', value: 3 },
      { operator: '=', value: 1 },
    ]);
  });

  it('a fragment takes a leading sign and no tag, and may have no dice', () => {
    expect(parseFragment('-2').terms).toEqual([{ kind: 'flat', sign: -1, value: 2, column: 2 }]);
    expect(parseFragment('+1d4').terms[0]).toMatchObject({ kind: 'dice', sign: 1, sides: 4 });
    expect(() => parseFragment('1d4 fire')).toThrow(FormulaError);
  });
});

describe('errors', () => {
  it.each([
    ['4d', 3, ['a number of sides']],
    ['1d6x', 5, ['a multiplier']],
    ['1d6r<', 6, ['a number to compare with']],
    ['', 1, ['a term (dice like 2d6, or a number)', 'a sign (+ or -)']],
    ['1d20+', 6, ['a term (dice like 2d6, or a number)']],
    ['4x', 2, ['an operator (* / % ^)', 'the letter d', 'a sign (+ or -)', 'the end of the formula']],
  ] as const)('%j fails at column %i expecting %j', (text, column, expected) => {
    const error = parseError(text);
    expect(error.column).toBe(column);
    expect(error.expected).toEqual(expected);
    expect(error.item).toBe('formula');
    expect(error.code).toBe('invalid_formula');
  });

  it('only syntax errors and rule violations are invalid_formula: any other fault propagates', () => {
    // A number where text belongs makes the generated parser itself fail: a bug of the caller,
    // which must surface as such (a 500 upstream), not as a 400 about the formula.
    const notText = 42 as unknown as string;
    expect(() => parseFormula(notText)).toThrow(TypeError);
    expect(() => parseFormula(notText)).not.toThrow(FormulaError);
    expect(() => parseFragment(notText)).toThrow(TypeError);
  });

  it('names the item it was given', () => {
    expect(parseError('1d', { item: 'rolls[3].formula' }).message).toMatch(
      /^rolls\[3\]\.formula, column 3: /,
    );
    expect(() => parseFragment('x', { item: 'bonuses[2]' })).toThrow(/^bonuses\[2\], column 1: /);
  });

  it('describes characters a formula cannot contain instead of quoting them', () => {
    // After a dice term `<` starts a success point (2d6<3), so the markup follows a sign here.
    const error = parseError('2d6+<script>alert(1)</script>');
    expect(error.column).toBe(5);
    expect(error.message).not.toMatch(/[<>]/);
    expect(error.message).toContain('a less-than sign');
    expect(parseError('1d6"').message).toContain('a character that a formula cannot contain');
    expect(parseError('1d6"').message).not.toContain('"');
    expect(parseError('1d6\u0000').message).not.toContain('\u0000');
    expect(parseError('1d6&').message).not.toContain('&');
  });

  it('several trailing words: where the formula ended, and that what follows must be one tag', () => {
    const tags = "and a tag is one lowercase word listed in the request's tags.";
    const toHit = parseError('d20+5 to hit');
    expect(toHit.message).toBe(
      `formula, column 7: The formula ends at "+5", so "to hit" must be a tag, ${tags}`,
    );
    expect([toHit.item, toHit.column, toHit.expected]).toEqual(['formula', 7, []]);
    // Listed tags or not, a formula ends with one.
    expect(parseError('2d6  fire   ice ', { tags: ['fire', 'ice'] }).message).toBe(
      `formula, column 6: The formula ends at "2d6", so "fire ice" must be a tag, ${tags}`,
    );
    expect(parseError('(1d8+4)*2 to hit').message).toBe(
      `formula, column 11: The formula ends at "(1d8+4)*2", so "to hit" must be a tag, ${tags}`,
    );
    expect(parseError('1d20 + 5 to hit').message).toContain('The formula ends at "+ 5", so "to hit"');
    // What cannot be quoted is not: a compare point's < or >, markup, long text.
    expect(parseError('6d10>=8 counts hits').message).toBe(
      `formula, column 9: The formula ends before "counts hits", so those words must be a tag, ${tags}`,
    );
    expect(parseError('1d20 fire +2').message).toBe(
      `formula, column 6: The formula ends at "1d20", so the words after it must be a tag, ${tags}`,
    );
    const markup = parseError('1d6<3 to <b>hit</b>');
    expect(markup.message).toBe(
      `formula, column 7: The formula ends before the words here, so they must be a tag, ${tags}`,
    );
    // One trailing word keeps its own message.
    expect(parseError('d20+5 fire').message).toBe(
      'formula, column 7: The trailing word "fire" is not an allowed tag: this roll allows no tags.',
    );
  });

  it('quotes only a short excerpt of a bad trailing word', () => {
    const error = parseError(`1d6 ${'a'.repeat(150)}`);
    expect(error.message.length).toBeLessThan(150);
  });

  it('refuses a formula longer than the limit before parsing it', () => {
    const long = `1d6${'+1'.repeat(LIMITS.formulaMaxLength)}`;
    const error = parseError(long);
    expect(error.column).toBeUndefined();
    expect(error.message).toContain(String(LIMITS.formulaMaxLength));
    expect(() => parseFragment('1'.repeat(LIMITS.bonusMaxLength + 1))).toThrow(FormulaError);
    expect(
      parseFormula(`1d6${'+1'.repeat(Math.floor((LIMITS.formulaMaxLength - 3) / 2))}`).terms.length,
    ).toBeGreaterThan(90);
  });
});

/** Characters a formula is made of, plus markup and whitespace, to reach deep into the grammar. */
const FORMULA_CHARS = [
  ...'0123456789dD%+-khlKLadvisrRoO!pPxX<>= \tfire',
  '<script>',
  '20',
  '6',
  // Brackets, operators, functions, groups, custom faces, labels and the other modifiers.
  ...'()*/{},[]F',
  '!!',
  'min',
  'max',
  'floor(',
  'round(',
  'abs(',
  'cs',
  'cf',
  "[fire ' x]",
  '{1,2}',
  '>=',
  '((((((((',
];

function checkTotal(text: string, tags?: readonly string[]): void {
  try {
    const ast = parseFormula(text, { tags });
    expect(ast.kind).toBe('formula');
    expect(JSON.stringify(ast)).toMatch(/"kind":"dice"/);
  } catch (error) {
    if (!(error instanceof FormulaError)) throw error;
    expect(error.message).not.toContain('<');
    expect(error.code).toBe('invalid_formula');
    if (error.column !== undefined) {
      expect(error.column).toBeGreaterThanOrEqual(1);
      expect(error.column).toBeLessThanOrEqual(text.length + 1);
    }
  }
}

describe('totality', () => {
  it('any string up to 200 characters parses or throws FormulaError without "<"', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (text) => checkTotal(text)),
      { numRuns: 3000 },
    );
  });

  it('... also for strings made of formula characters and markup', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200, unit: fc.constantFrom(...FORMULA_CHARS) }).map((s) => s.slice(0, 200)),
        (text) => checkTotal(text, ['fire']),
      ),
      { numRuns: 5000 },
    );
  });

  it('... also for control characters and odd unicode next to valid formulas', () => {
    const odd = fc.constantFrom(
      '\u0000',
      '\u0007',
      '\n',
      '\r',
      '\u00a0',
      '\u200b',
      '\ud800',
      '😀',
      '\u202e',
      '<',
    );
    fc.assert(
      fc.property(
        fc.constantFrom(
          '1d20+7',
          '4d6kh3',
          '2d20adv',
          '2d6 fire',
          '(1d8+4)*2',
          '{1d8!,1d6!}kh1',
          '6d10>=8f1',
        ),
        fc.nat(10),
        odd,
        (formula, at, char) => checkTotal(formula.slice(0, at) + char + formula.slice(at), ['fire']),
      ),
      { numRuns: 1000 },
    );
  });
});

describe('totality of brackets, operators, functions and groups', () => {
  it('deeply nested or long bracket strings parse or throw FormulaError, never anything else', () => {
    for (const open of ['(', '{', 'floor(', 'max(1,']) {
      for (const depth of [16, 17, 40, 100]) {
        const text = `${open.repeat(depth)}1d6`.slice(0, LIMITS.formulaMaxLength);
        checkTotal(text);
        checkTotal(`${text}${')'.repeat(depth)}`.slice(0, LIMITS.formulaMaxLength));
      }
    }
  });

  it('random well-nested strings of the new syntax parse or throw FormulaError', () => {
    const atom = fc.constantFrom('1d6', '2', 'dF', 'd{1,2}', '4d6kh3', '6d10>=8f1', '3d6!!', '2d6min3[x]');
    const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
      e: fc.oneof(
        { depthSize: 'small' },
        atom,
        fc
          .tuple(tie('e'), fc.constantFrom('+', '-', '*', '/', ' + '), tie('e'))
          .map(([a, op, b]) => `${a}${op}${b}`),
        tie('e').map((e) => `(${e})`),
        fc
          .tuple(
            fc.constantFrom('floor', 'abs', 'max', 'min'),
            fc.array(tie('e'), { minLength: 1, maxLength: 3 }),
          )
          .map(([f, args]) => `${f}(${args.join(', ')})`),
        fc
          .tuple(
            fc.array(tie('e'), { minLength: 1, maxLength: 3 }),
            fc.constantFrom('', 'kh1', '>=3', 'dl1f1'),
          )
          .map(([items, mod]) => `{${items.join(',')}}${mod}`),
      ),
    })).e;
    fc.assert(
      fc.property(expr, (text) => checkTotal(text.slice(0, LIMITS.formulaMaxLength))),
      { numRuns: 2000 },
    );
  });
});

describe('totality over not-equal points, !!p, u, m and powers', () => {
  const chars = [...'0123456789dD%+-*/^()<>=!pPuUoOmMtTkKhHlL{},[] ', '**', '<>', '!!p', 'mt'];
  it('every string of these characters parses or throws FormulaError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: fc.constantFrom(...chars) }), (text) => {
        try {
          const ast = parseFormula(text);
          expect(ast.kind).toBe('formula');
          roll({ formula: text }, { random: minSource() });
        } catch (error) {
          if (!(error instanceof FormulaError)) throw error;
          expect(error.code).toBe('invalid_formula');
        }
      }),
      { numRuns: 3000 },
    );
  });
});

// The description of a roll (packages/client/src/describe.ts): every example form of
// docs/language.md and generated formulas, rolled by the real service, give a text form whose
// numbers add up to the total (read by test/support/roll-text.ts, which knows only the documented
// marks); terms are named as written; each die carries the marks its response implies.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DiceTerm,
  describeRoll,
  type Mark,
  type RollDescription,
  rollText,
} from '../../packages/client/src/describe.js';
import type { RollResponse } from '../../packages/client/src/types.js';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { DiceError, type RollRequest, roll } from '../../src/index.js';
import { tableColumn } from '../support/markdown.js';
import { readRollText } from '../support/roll-text.js';
import { scripted } from '../support/sources.js';

/** The backticked spans of the `example` column of every table of docs/language.md. */
const languageExamples = (): string[] =>
  tableColumn(readFileSync(new URL('../../docs/language.md', import.meta.url), 'utf8'), 'example');

/** Every claim the text form makes holds: its numbers give the total, its counts match its marks. */
function expectReadable(description: RollDescription, text = description.text): void {
  const read = readRollText(text);
  expect(read.stated, text).toBe(description.total);
  expect(read.rounded, text).toBe(description.total);
  for (const term of read.terms) {
    if (term.stated !== undefined) expect(term.marks, `${text}: ${term.notation}`).toEqual(term.stated);
  }
  if (description.counting !== undefined) {
    expect(read.statedCounts, text).toEqual(description.counting);
    expect(text).toMatch(/\d+ success/);
  }
}

/** Each die's marks follow from its group in the response. */
function expectMarks(response: RollResponse, description: RollDescription): void {
  response.dice.forEach((group, index) => {
    const term = description.terms[index] as DiceTerm;
    expect(term.group).toBe(index);
    const all = (mark: Mark) =>
      term.dice.flatMap((die) => [die, ...die.throws]).filter((item) => item.marks.includes(mark)).length;
    // Every recorded value appears once, in order; the throws, when recorded, all.
    const recorded = term.dice.flatMap((die) =>
      group.compounded ? [die.value] : die.throws.map((thrown) => thrown.value),
    );
    expect(recorded).toEqual(group.results);
    expect(term.dice.filter((die) => die.kept).length).toBe(
      group.compounded || group.throws === undefined
        ? group.keptFlags.filter(Boolean).length
        : new Set(group.throws.filter((_, i) => group.keptFlags[i]).map((t) => t.die)).size,
    );
    if (term.marked && group.successes !== undefined) {
      expect(all('success')).toBe(group.successes);
      expect(all('failure')).toBe(group.failures ?? 0);
    }
    expect(all('extra')).toBe(group.throws?.filter((t) => t.kind === 'explode').length ?? 0);
    expect(all('rerolled')).toBe(
      group.throws?.filter(
        (t, i) => group.throws?.[i + 1]?.die === t.die && group.throws[i + 1]?.kind === 'reroll',
      ).length ?? 0,
    );
  });
}

describe('the description of every example form of docs/language.md, rolled by the service', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 100_000 }));
  });
  afterAll(async () => {
    await app.close();
  });

  const examples = languageExamples();
  it('finds the examples (not vacuous)', () => {
    expect(examples.length).toBeGreaterThan(100);
  });

  it.each(examples)('%s', async (formula) => {
    for (let round = 0; round < 5; round++) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        payload: { formula, tags: ['fire'] },
      });
      expect(response.statusCode, response.body).toBe(200);
      const answer = response.json() as RollResponse;
      const description = describeRoll(answer);
      expectReadable(description);
      expectMarks(answer, description);
      // Every term of the formula is named as written.
      for (const term of description.terms) {
        expect(term.written).toBe(true);
        expect(formula.replace(/ /g, '')).toContain(term.notation);
      }
      // A line of at most 3 dice per term still adds up (the rest is summed up for the reader).
      expectReadable(description, rollText(description, { maxDice: 3 }));
    }
  });
});

describe('the text form, exactly', () => {
  const text = (request: RollRequest, faces: number[]) => {
    const source = scripted(faces);
    const response = roll(request, { random: source });
    expect(source.remaining).toBe(0);
    const description = describeRoll(response, request);
    expectReadable(description);
    return description.text;
  };

  it('marks dropped, rerolled, exploded, compounded, counted and clamped dice', () => {
    expect(text({ formula: '4d6kh3+2' }, [6, 5, 3, 1])).toBe('4d6kh3 [6 5 3 (1)] + 2 = 16');
    expect(text({ formula: '1d20+5' }, [13])).toBe('1d20 [13] + 5 = 18');
    expect(text({ formula: '1d20+5', advantage: 'advantage' }, [4, 20])).toBe(
      '1d20 [(4) 20 crit] + 5 = 25 with advantage',
    );
    expect(text({ formula: '(1d8+4)*2', bonuses: [2, '1d4'] }, [5, 3])).toBe(
      '(1d8 [5] + 4) * 2 + 2 + 1d4 [3] = 23',
    );
    expect(text({ formula: '8d10>=8!>=10' }, [10, 9, 8, 3, 1, 2, 7, 4, 5])).toBe(
      '8d10>=8!>=10 [10✓!+9✓ 8✓ 3 1 2 7 4 5] = 3 successes',
    );
    expect(text({ formula: '6d10>=8f1' }, [9, 8, 1, 5, 3, 2])).toBe(
      '6d10>=8f1 [9✓ 8✓ 1✗ 5 3 2] = 2 successes - 1 failure = 1',
    );
    expect(text({ formula: '{1d8!,1d6!}kh1+2' }, [3, 6, 4])).toBe(
      '{1d8! [3] dropped, 1d6! [6!+4]}kh1 + 2 = 12',
    );
    expect(text({ formula: '4dF+2' }, [1, 2, 3, 3])).toBe('4dF [- 0 + +] + 2 = 3');
    expect(text({ formula: '4d6r1kh3' }, [1, 4, 6, 2, 5])).toBe('4d6r1kh3 [1→4 6 (2) 5] = 15');
    expect(text({ formula: '3d6!!' }, [6, 6, 2, 3, 5])).toBe('3d6!! [6!+6!+2=14 3 5] = 22');
    expect(text({ formula: '2d6!p' }, [6, 6, 1, 2])).toBe('2d6!p [6!+6↓5!+1↓0 2] = 13');
    expect(text({ formula: '2d6min3r6' }, [1, 6, 4])).toBe('2d6min3r6 [1↑3 6→4] = 7');
    expect(text({ formula: '6d10>=8x2+1' }, [9, 1, 2, 3, 4, 5])).toBe(
      '6d10>=8x2 [9✓ 1 2 3 4 5] (1 success) ×2 + 1 = 3',
    );
    expect(text({ formula: '(2d6+3)/2' }, [3, 5])).toBe('(2d6 [3 5] + 3) / 2 = 5 (11/2 rounded down)');
    expect(text({ formula: '10-1d4' }, [3])).toBe('10 - 1d4 [3] = 7');
    expect(text({ formula: '1d8+3 fire', tags: ['fire'] }, [5])).toBe('1d8 [5] + 3 = 8 fire');
    expect(text({ formula: '{3d6, 3d6}>=10f3' }, [6, 5, 1, 1, 1, 1])).toBe(
      '{3d6 [6 5 1] ✓, 3d6 [1 1 1] ✗}>=10f3 = 1 success - 1 failure = 0',
    );
    expect(text({ formula: '{2d10+2d6}>=6' }, [7, 3, 6, 2])).toBe(
      '{2d10 [7✓ 3] (1 success) + 2d6 [6✓ 2] (1 success)}>=6 = 2 successes',
    );
    expect(text({ formula: '20d6mt' }, [1, 1, 3, 3, 3, 2, 4, 5, 6, 6, 1, 2, 3, 4, 5, 6, 2, 3, 4, 5])).toMatch(
      /^20d6mt \[[^\]]+\] \(6 sets: 1, 2, 3, 4, 5, 6\) = 6$/,
    );
  });

  it('names a string bonus as written when given the request, and from its dice otherwise', () => {
    const request = { formula: '1d6', bonuses: ['2d4kh1+1', 3] } satisfies RollRequest;
    const response = roll(request, { random: scripted([5, 1, 4]) });
    expect(describeRoll(response, request).text).toBe('1d6 [5] + 2d4kh1 [(1) 4] + 1 + 3 = 13');
    const alone = describeRoll(response);
    expect(alone.terms[1]).toMatchObject({ notation: '2d4', written: false });
    expect(alone.text).toBe('1d6 [5] + 2d4 [(1) 4] + 1 + 3 = 13');
  });

  it('says when the advantage asked for found no plain d20', () => {
    const request = { formula: '2d20kh1+5', advantage: 'advantage' } satisfies RollRequest;
    const description = describeRoll(roll(request, { random: scripted([4, 17]) }), request);
    expect(description).toMatchObject({ advantage: 'normal', advantageAsked: 'advantage' });
    expect(description.terms[0]?.advantage).toBeUndefined();
  });
});

describe('docs/client.md', () => {
  it('every line of its text form example adds up', () => {
    const markdown = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8');
    const block = /### The text form[\s\S]*?```text\n([\s\S]*?)```/.exec(markdown)?.[1] ?? '';
    const lines = block.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (const line of lines) {
      const read = readRollText(line);
      expect(read.rounded, line).toBe(read.stated);
    }
  });
});

/** Dice terms that stand alone, from the language's tables: the building blocks of generated formulas. */
const TERMS = [
  '1d20',
  '4d6kh3',
  '3d6!',
  '2d6!p',
  '3d6!!',
  '2d6!!p',
  '4d6r1kh3',
  '1d20ro1',
  '6d10>=8',
  '6d10>=8f1',
  '8d10>=8!>=10',
  '4dF',
  '4dF>=1',
  '2d20kh1',
  '2d6min3',
  '1d20max15',
  '20d6mt',
  '8d6m3',
  '6d6mtx2',
  '1d6x10',
  'd{1,1,2,3,5,8}',
  '2d{-1, 0, 5}',
  '4d6u',
  '6d10u>5',
  '1d20cs>=19',
  '1d20cf<=2',
  '(4-2)d10',
  '3d(2*6)',
  '2d6[fire]',
  '5d10!>=9',
  '4d10dh1dl2',
  'd%',
  '2d6!<>4',
  '1d6!!p>4',
  '3d10>=8f<=2',
  '4dF=-1',
  '2d6r<3',
];
const POOLS = ['{4d6+3d8}kh3', '{2d10+2d6}>=6', '{3d6+2d8}dl2', '{4d6}>=4'];

const formulaArbitrary = fc.letrec<{ expr: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TERMS) },
    { weight: 1, arbitrary: fc.constantFrom(...POOLS) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 20 }).map(String) },
  ),
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: tie('atom') },
    fc
      .tuple(tie('expr'), fc.constantFrom(' + ', '-', '*', ' * '), tie('expr'))
      .map(([a, op, b]) => `${a}${op}${b}`),
    fc.tuple(tie('expr'), fc.constantFrom('2', '3', '(1d6+1)', 'd20')).map(([a, d]) => `(${a})/${d}`),
    tie('expr').map((a) => `(${a})`),
    tie('expr').map((a) => `-(${a})`),
    fc.tuple(fc.constantFrom('floor', 'ceil', 'round', 'abs'), tie('expr')).map(([f, a]) => `${f}(${a})`),
    fc.tuple(fc.constantFrom('min', 'max'), tie('expr'), tie('expr')).map(([f, a, b]) => `${f}(${a}, ${b})`),
    fc
      .tuple(
        fc.array(tie('expr'), { minLength: 2, maxLength: 3 }),
        fc.constantFrom('', 'kh1', 'kl1', '>=10', '>=10f3', 'dl1'),
      )
      .map(([items, mods]) => `{${items.join(', ')}}${mods}`),
    tie('atom').map((a) => `${a}^2`),
  ),
}));

describe('generated formulas', () => {
  it('give text forms whose numbers evaluate to the total', () => {
    let rolled = 0;
    fc.assert(
      fc.property(
        formulaArbitrary.expr,
        fc.constantFrom('normal', 'advantage', 'disadvantage'),
        fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(...TERMS.slice(0, 8), '1d4+1')), {
          maxLength: 2,
        }),
        (formula, advantage, bonuses) => {
          const request = { formula, advantage, bonuses } as RollRequest;
          let response: RollResponse;
          try {
            response = roll(request) as RollResponse;
          } catch (error) {
            if (error instanceof DiceError) return; // a combination the language refuses
            throw error;
          }
          rolled++;
          for (const description of [describeRoll(response, request), describeRoll(response)]) {
            expectReadable(description);
            expectMarks(response, description);
          }
          const named = describeRoll(response, request);
          expect(named.terms.every((term) => term.written)).toBe(true);
        },
      ),
      { numRuns: 600 },
    );
    // Most generated formulas are accepted: the property is not vacuous.
    expect(rolled).toBeGreaterThan(300);
  });
});

// The parse cache (src/formula/cache.ts): a hit is the parse it stands for, the bound holds and
// evicts the least recently used, a shared node cannot be changed by any roll, and failures are
// never cached (so a tag allowed for one request is not allowed for the next by mistake).

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cryptoRandom,
  DiceError,
  FormulaError,
  type FormulaNode,
  ParseCache,
  parseCache,
  parseFormula,
  parseFragment,
  prepareRoll,
  RequestError,
  roll,
} from '../../src/index.js';

function errorOf(run: () => unknown): FormulaError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FormulaError);
    return error as FormulaError;
  }
  throw new Error('expected a FormulaError');
}

function expectDeepFrozen(value: unknown, path = 'node'): void {
  if (typeof value !== 'object' || value === null) return;
  expect(Object.isFrozen(value), path).toBe(true);
  for (const [key, child] of Object.entries(value)) expectDeepFrozen(child, `${path}.${key}`);
}

describe('ParseCache hits', () => {
  it('returns the same node as the parser, and the same object on a hit', () => {
    const cache = new ParseCache();
    const first = cache.formula('4d6kh3+2');
    expect(first).toEqual(parseFormula('4d6kh3+2'));
    expect(cache.formula('4d6kh3+2')).toBe(first);
    expect(cache.size).toBe(1);
    const bonus = cache.fragment('1d4');
    expect(bonus).toEqual(parseFragment('1d4'));
    expect(cache.fragment('1d4')).toBe(bonus);
    expect(cache.size).toBe(2);
  });

  it('gives prepareRoll the same plan as parsing every time', () => {
    const never = new ParseCache({ maxEntries: 0 });
    const cache = new ParseCache();
    const requests = [
      { formula: '1d20+5' },
      { formula: '1d20+5', advantage: 'advantage' as const },
      { formula: '4d6kh3+2 fire', bonuses: [2, '1d4', '-1'], tags: ['fire', 'cold'] },
      { formula: '2d20adv' },
      { formula: '10d10!p' },
      { formula: '3d6r<2x2' },
    ];
    for (let pass = 0; pass < 3; pass++) {
      for (const request of requests) {
        expect(prepareRoll(request, { parseCache: cache })).toEqual(
          prepareRoll(request, { parseCache: never }),
        );
      }
    }
    expect(cache.size).toBe(7); // five formula texts and two string bonuses
  });

  it('shares one frozen plan per cached formula rolled as written, and only then', () => {
    const cache = new ParseCache();
    const never = new ParseCache({ maxEntries: 0 });
    const plan = prepareRoll({ formula: '3d6r1!x2+2d8' }, { parseCache: cache });
    expect(prepareRoll({ formula: '3d6r1!x2+2d8' }, { parseCache: cache })).toBe(plan);
    expectDeepFrozen(plan, 'plan');
    expect(plan).toEqual(prepareRoll({ formula: '3d6r1!x2+2d8' }, { parseCache: never }));
    // Parsed every time: a plan of its own each time, never frozen.
    const fresh = prepareRoll({ formula: '3d6r1!x2+2d8' }, { parseCache: never });
    expect(fresh).not.toBe(prepareRoll({ formula: '3d6r1!x2+2d8' }, { parseCache: never }));
    expect(Object.isFrozen(fresh)).toBe(false);
    // Bonuses and the request's advantage change the plan: built per request.
    const withBonus = prepareRoll({ formula: '1d20+5', bonuses: [2] }, { parseCache: cache });
    expect(prepareRoll({ formula: '1d20+5', bonuses: [2] }, { parseCache: cache })).not.toBe(withBonus);
    expect(withBonus.modifier).toBe(7);
    const advantaged = prepareRoll({ formula: '1d20+5', advantage: 'advantage' }, { parseCache: cache });
    expect(advantaged.groups[0]!.count).toBe(2);
    const asWritten = prepareRoll({ formula: '1d20+5' }, { parseCache: cache });
    expect(asWritten.groups[0]!.count).toBe(1);
    expect(asWritten.modifier).toBe(5);
    expect(prepareRoll({ formula: '1d20+5' }, { parseCache: cache })).toBe(asWritten);
  });

  it('checks the dice limit of every request against a shared plan', () => {
    const cache = new ParseCache();
    expect(prepareRoll({ formula: '10d6' }, { parseCache: cache }).diceCount).toBe(10);
    expect(prepareRoll({ formula: '10d6' }, { parseCache: cache, dicePerRoll: 10 }).diceCount).toBe(10);
    const error = errorOf(() => prepareRoll({ formula: '10d6' }, { parseCache: cache, dicePerRoll: 9 }));
    expect(error.message).toBe('formula: This roll asks for 10 dice; a roll may throw at most 9.');
  });

  it('behaves as the parser for any text, called twice', () => {
    const cache = new ParseCache({ maxEntries: 50 });
    const outcome = (run: () => FormulaNode) => {
      try {
        return { node: run() };
      } catch (error) {
        return { error: (error as FormulaError).message };
      }
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.stringMatching(/^[0-9]{0,3}d[0-9]{1,3}([+-][0-9])?( fire)?$/),
        ),
        fc.boolean(),
        (text, withTags) => {
          const options = withTags ? { tags: ['fire'] } : undefined;
          const expected = outcome(() => parseFormula(text, options));
          expect(outcome(() => cache.formula(text, options))).toEqual(expected);
          expect(outcome(() => cache.formula(text, options))).toEqual(expected);
          expect(outcome(() => cache.fragment(text))).toEqual(outcome(() => parseFragment(text)));
        },
      ),
      { numRuns: 300 },
    );
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThanOrEqual(50);
  });
});

describe('ParseCache bounds', () => {
  it('holds at most maxEntries and evicts the least recently used', () => {
    const cache = new ParseCache({ maxEntries: 3 });
    const a = cache.formula('1d4');
    const b = cache.formula('1d6');
    cache.formula('1d8');
    expect(cache.formula('1d4')).toBe(a); // a is now the most recently used; b the least
    cache.formula('1d10'); // evicts b
    expect(cache.size).toBe(3);
    expect(cache.formula('1d4')).toBe(a);
    const b2 = cache.formula('1d6'); // parsed again: a new object, and it evicts 1d8
    expect(b2).not.toBe(b);
    expect(b2).toEqual(b);
    for (let sides = 1; sides <= 100; sides++) cache.formula(`1d${sides}`);
    expect(cache.size).toBe(3);
  });

  it('keeps an entry for at least maxEntries / 2 lookups of other texts after its last use', () => {
    // A hit moves its key to the end only when the key was not stored or moved recently: a
    // repeated formula costs no Map writes, and recent use still protects it from eviction.
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 12 })
          .chain((bound) =>
            fc.tuple(
              fc.constant(bound),
              fc.array(fc.integer({ min: 1, max: bound + 3 }), { minLength: 1, maxLength: 120, size: 'max' }),
            ),
          ),
        ([maxEntries, sides]) => {
          const cache = new ParseCache({ maxEntries });
          const lastUse = new Map<string, number>();
          const nodes = new Map<string, FormulaNode>();
          sides.forEach((side, lookup) => {
            const text = `1d${side}`;
            const node = cache.formula(text);
            const before = nodes.get(text);
            if (before !== undefined && node !== before) {
              // Evicted since its last use: enough lookups of other texts happened meanwhile.
              expect(lookup - lastUse.get(text)! - 1).toBeGreaterThanOrEqual(Math.ceil(maxEntries / 2));
            }
            nodes.set(text, node);
            lastUse.set(text, lookup);
            expect(cache.size).toBeLessThanOrEqual(maxEntries);
          });
        },
      ),
    );
  });

  it('never stores a text longer than maxTextLength', () => {
    const cache = new ParseCache({ maxTextLength: 8 });
    const long = '1d20+1d4+1';
    const first = cache.formula(long);
    expect(cache.formula(long)).not.toBe(first);
    expect(cache.formula(long)).toEqual(first);
    expect(cache.size).toBe(0);
    cache.formula('1d20+1');
    expect(cache.size).toBe(1);
  });

  it('stores nothing when maxEntries is 0', () => {
    const cache = new ParseCache({ maxEntries: 0 });
    const first = cache.formula('1d20');
    expect(cache.formula('1d20')).not.toBe(first);
    expect(cache.size).toBe(0);
    expect(Object.isFrozen(first)).toBe(false);
  });

  it('refuses a bound that is not a non-negative integer', () => {
    expect(() => new ParseCache({ maxEntries: -1 })).toThrow(RangeError);
    expect(() => new ParseCache({ maxTextLength: 1.5 })).toThrow(RangeError);
  });

  it('clear() empties it', () => {
    const cache = new ParseCache();
    cache.formula('1d20');
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe('a cached node is shared safely', () => {
  it('is deep-frozen, so writing to it throws instead of changing later rolls', () => {
    const cache = new ParseCache();
    const node = cache.formula('4d6kh3r1!+2 fire', { tags: ['fire'] });
    expectDeepFrozen(node);
    const dice = node.terms[0]!;
    expect(() => {
      (dice as { count: number }).count = 1000;
    }).toThrow(TypeError);
    expect(() => node.terms.push(node.terms[1]!)).toThrow(TypeError);
  });

  it('is unchanged after every kind of roll that reads it', () => {
    const cache = new ParseCache();
    const formulas = ['1d20+5', '2d20adv', '1d20dis', '4d6kh3+2', '4d6dl1', '3d6!p', '5d10r<3x2', '10d4ro1'];
    const requests = formulas.flatMap((formula) => [
      { formula },
      { formula, advantage: 'advantage' as const },
      { formula, advantage: 'disadvantage' as const },
      { formula, bonuses: ['1d20', 3] },
    ]);
    for (let pass = 0; pass < 20; pass++) {
      for (const request of requests) {
        try {
          roll(request, { random: cryptoRandom, parseCache: cache });
        } catch (error) {
          // An adv/dis term with the advantage field is refused by rule; a frozen node written to
          // would throw a TypeError instead, and fail here.
          expect(error).toBeInstanceOf(RequestError);
        }
      }
    }
    for (const formula of formulas) {
      const cached = cache.formula(formula);
      expect(cached).toEqual(parseFormula(formula));
      expectDeepFrozen(cached);
    }
    expect(cache.fragment('1d20')).toEqual(parseFragment('1d20'));
  });
  it('is unchanged after rolling every formula docs/language.md shows', () => {
    // Every backticked text of the language reference that parses: new forms are covered as
    // soon as they are documented.
    const language = readFileSync(new URL('../../docs/language.md', import.meta.url), 'utf8');
    const formulas = [...new Set([...language.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!))].filter((text) => {
      try {
        parseFormula(text, { tags: ['fire'] });
        return true;
      } catch {
        return false;
      }
    });
    expect(formulas.length).toBeGreaterThanOrEqual(25);
    const cache = new ParseCache();
    for (let pass = 0; pass < 3; pass++) {
      for (const formula of formulas) {
        for (const advantage of ['normal', 'advantage'] as const) {
          try {
            roll({ formula, advantage, tags: ['fire'] }, { random: cryptoRandom, parseCache: cache });
          } catch (error) {
            // A rule of the roll (advantage with an adv term, say); a write to a frozen node
            // would be a TypeError.
            expect(error).toBeInstanceOf(DiceError);
          }
        }
      }
    }
    for (const formula of formulas) {
      expect(cache.formula(formula, { tags: ['fire'] })).toEqual(parseFormula(formula, { tags: ['fire'] }));
    }
  });
});

describe('failures are not cached', () => {
  it('checks the tags of every request: a tag allowed once is not allowed for the next', () => {
    const cache = new ParseCache();
    expect(cache.formula('1d20 fire', { tags: ['fire'] }).tag?.word).toBe('fire');
    expect(errorOf(() => cache.formula('1d20 fire')).message).toBe(
      errorOf(() => parseFormula('1d20 fire')).message,
    );
    expect(errorOf(() => cache.formula('1d20 fire', { tags: ['cold'] })).message).toMatch(
      /not one of this roll's tags/,
    );
    expect(cache.formula('1d20 fire', { tags: ['cold', 'fire'] }).tag?.word).toBe('fire');
    expect(cache.size).toBe(2);
  });

  it('parses a failing text every time, with each request its own error and item', () => {
    const cache = new ParseCache();
    const first = errorOf(() => cache.fragment('2d', { item: 'bonuses[0]' }));
    const second = errorOf(() => cache.fragment('2d', { item: 'bonuses[3]' }));
    expect(first).not.toBe(second);
    expect(first.item).toBe('bonuses[0]');
    expect(second.item).toBe('bonuses[3]');
    expect(cache.size).toBe(0);
  });

  it('keeps formulas and bonuses apart: a flat bonus is not a formula', () => {
    const cache = new ParseCache();
    expect(cache.fragment('-2').terms).toHaveLength(1);
    expect(errorOf(() => cache.formula('-2')).detail).toBe('A formula must roll at least one die.');
  });

  it('never answers a text with another key: texts that look like internal keys are refused', () => {
    const cache = new ParseCache();
    const bonus = cache.fragment('1d4');
    const tagged = cache.formula('1d4 fire', { tags: ['fire'] });
    // Keys other than a plain text start with NUL; such texts are formulas that do not parse.
    for (const text of ['\0B1d4', '\0Ffire|1d4 fire', '\0F|1d4', '\u00011d4']) {
      expect(() => cache.formula(text)).toThrow(FormulaError);
      expect(() => cache.formula(text, { tags: ['fire'] })).toThrow(FormulaError);
    }
    expect(cache.formula('1d4')).not.toBe(bonus);
    expect(cache.fragment('1d4')).toBe(bonus);
    expect(cache.formula('1d4 fire', { tags: ['fire'] })).toBe(tagged);
    expect(() => cache.formula('1d4 fire')).toThrow(FormulaError);
  });

  it('does not store a formula whose tags a library caller did not check', () => {
    const cache = new ParseCache();
    expect(errorOf(() => cache.formula('1d20 fire', { tags: ['Fire|x'] })).detail).toMatch(/not one of/);
    expect(cache.formula('1d20', { tags: ['a|b'] }).terms).toHaveLength(1);
    expect(cache.size).toBe(0);
  });
});

describe('the shared cache', () => {
  it('is what roll() uses by default', () => {
    parseCache.clear();
    roll({ formula: '7d7+7' });
    expect(parseCache.size).toBe(1);
    expect(parseCache.formula('7d7+7')).toEqual(parseFormula('7d7+7'));
  });
});

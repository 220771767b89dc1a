// Keep/drop ordering takes two paths (insertion sort up to 16 dice, a typed-array sort above):
// both must pick exactly the dice docs/language.md names, ties going to the earlier die.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roll } from '../../src/index.js';
import { scripted } from '../support/sources.js';

type Rule = 'kh' | 'kl' | 'dh' | 'dl';

/** The dice a rule keeps, from the definition: rank by value, earlier first among equals. */
function expectedFlags(faces: readonly number[], rule: Rule, amount: number): boolean[] {
  const highestFirst = rule === 'kh' || rule === 'dh';
  const ranked = faces
    .map((value, position) => ({ value, position }))
    .sort((a, b) => (highestFirst ? b.value - a.value : a.value - b.value) || a.position - b.position);
  const chosen = new Set(ranked.slice(0, amount).map((die) => die.position));
  const keeping = rule === 'kh' || rule === 'kl';
  return faces.map((_, position) => chosen.has(position) === keeping);
}

describe('keep and drop order', () => {
  it('matches the definition for small and large groups, ties included', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 40 })
          .chain((count) =>
            fc.tuple(
              fc.array(fc.integer({ min: 1, max: 4 }), { minLength: count, maxLength: count }),
              fc.constantFrom<Rule>('kh', 'kl', 'dh', 'dl'),
              fc.integer({ min: 1, max: count - 1 }),
            ),
          ),
        ([faces, rule, amount]) => {
          const result = roll({ formula: `${faces.length}d4${rule}${amount}` }, { random: scripted(faces) });
          expect(result.dice[0]!.keptFlags).toEqual(expectedFlags(faces, rule, amount));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps the first of equal dice on both sides of the small-group bound', () => {
    for (const count of [16, 17]) {
      const faces = new Array<number>(count).fill(3);
      const flags = roll({ formula: `${count}d6kh2` }, { random: scripted(faces) }).dice[0]!.keptFlags;
      expect(flags.slice(0, 3)).toEqual([true, true, false]);
      expect(flags.filter(Boolean)).toHaveLength(2);
    }
  });
});

// Properties of generated dice terms with success points, compounding, clamps, custom and Fate
// faces (docs/language.md): the total invariant
// extended to success counting; `throws` consistent with `results`, `keptFlags` and each die's
// value; clamped values within their bounds.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DieGroup, FormulaError, parseFormula, type RandomSource, roll } from '../../src/index.js';
import { maxSource, minSource } from '../support/sources.js';

const compareArb = fc
  .tuple(fc.constantFrom('=', '<', '<=', '>', '>='), fc.integer({ min: -2, max: 12 }))
  .map(([op, value]) => `${op}${value}`);

interface TermSpec {
  text: string;
  faces: number[];
  clampLow: number;
  clampHigh: number;
}

const dieArb = fc.oneof(
  fc.constantFrom(2, 4, 6, 10, 20).map((sides) => ({
    text: `d${sides}`,
    faces: Array.from({ length: sides }, (_, i) => i + 1),
  })),
  fc.constant({ text: 'dF', faces: [-1, 0, 1] as number[] }),
  fc
    .array(fc.integer({ min: -3, max: 9 }), { minLength: 1, maxLength: 6 })
    .map((faces) => ({ text: `d{${faces.join(',')}}`, faces })),
);

const termArb: fc.Arbitrary<TermSpec> = fc
  .record({
    count: fc.integer({ min: 1, max: 8 }),
    die: dieArb,
    min: fc.option(fc.nat(), { nil: null }),
    max: fc.option(fc.nat(), { nil: null }),
    reroll: fc.option(fc.tuple(fc.constantFrom('r', 'ro'), compareArb), { nil: null }),
    explode: fc.option(fc.tuple(fc.constantFrom('!', '!p', '!!'), fc.option(compareArb, { nil: '' })), {
      nil: null,
    }),
    keep: fc.option(fc.tuple(fc.constantFrom('kh', 'kl', 'dh', 'dl'), fc.integer({ min: 1, max: 9 })), {
      nil: null,
    }),
    success: fc.option(fc.tuple(compareArb, fc.option(compareArb, { nil: null })), { nil: null }),
    multiplier: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
    shift: fc.nat(),
  })
  .map((spec) => {
    const lowest = Math.min(...spec.die.faces);
    const highest = Math.max(...spec.die.faces);
    const span = highest - lowest + 1;
    const parts: string[] = [];
    let clampLow = lowest;
    let clampHigh = highest;
    if (spec.min !== null) {
      clampLow = lowest + (spec.min % span);
      parts.push(`min${clampLow}`);
    }
    if (spec.max !== null) {
      clampHigh = Math.max(clampLow, lowest + (spec.max % span));
      parts.push(`max${clampHigh}`);
    }
    if (spec.reroll) parts.push(spec.reroll.join(''));
    if (spec.explode) parts.push(spec.explode.join(''));
    if (spec.keep) parts.push(spec.keep.join(''));
    // A success point right after r/!/f would belong to it: success points go first.
    const head = spec.success ? `${spec.success[0]}${spec.success[1] ? `f${spec.success[1]}` : ''}` : '';
    if (spec.multiplier !== null) parts.push(`x${spec.multiplier}`);
    const shift = parts.length === 0 ? 0 : spec.shift % parts.length;
    const rotated = [...parts.slice(shift), ...parts.slice(0, shift)];
    return {
      text: `${spec.count}${spec.die.text}${head}${rotated.join('')}`,
      faces: spec.die.faces,
      clampLow,
      clampHigh,
    };
  });

function valid(text: string): boolean {
  try {
    parseFormula(text);
    return true;
  } catch (error) {
    if (error instanceof FormulaError) return false;
    throw error;
  }
}

function meets(compare: string | undefined, value: number): boolean {
  if (compare === undefined) return false;
  const match = /^(<=|>=|<|>|=)(-?\d+)$/.exec(compare)!;
  const n = Number(match[2]);
  switch (match[1]) {
    case '<':
      return value < n;
    case '<=':
      return value <= n;
    case '>':
      return value > n;
    case '>=':
      return value >= n;
    default:
      return value === n;
  }
}

/** Checks one group against the rules, reading only what the response recorded. */
function expectConsistent(group: DieGroup, spec: TermSpec): void {
  expect(group.keptFlags).toHaveLength(group.results.length);
  const kept = group.results.filter((_, i) => group.keptFlags[i]).sort((a, b) => b - a);
  expect(group.kept).toEqual(kept);
  const amount =
    group.successes === undefined ? kept.reduce((a, b) => a + b, 0) : group.successes - (group.failures ?? 0);
  expect(group.total).toBe(group.sign * group.multiplier * amount || 0);

  const throws = group.throws;
  if (throws === undefined) {
    // One throw per die: every recorded value is a clamped face.
    for (const value of group.results) {
      expect(value).toBeGreaterThanOrEqual(spec.clampLow);
      expect(value).toBeLessThanOrEqual(spec.clampHigh);
    }
    return;
  }
  // Dice appear in order, each starting with a roll; `face` only where it differs from `value`.
  let die = -1;
  for (const t of throws) {
    if (t.die !== die) {
      expect(t.die).toBe(die + 1);
      expect(t.kind).toBe('roll');
      die = t.die;
    }
    if (t.face !== undefined) expect(t.face).not.toBe(t.value);
    const face = t.face ?? t.value;
    expect(spec.faces).toContain(face);
    // A clamped value lies within min..max; a penetrating extra one lower.
    const penetrated = t.kind === 'explode' && /!p/.test(spec.text) ? 1 : 0;
    expect(t.value + penetrated).toBeGreaterThanOrEqual(spec.clampLow);
    expect(t.value + penetrated).toBeLessThanOrEqual(spec.clampHigh);
  }
  const dice = die + 1;
  if (group.compounded) {
    expect(group.results).toHaveLength(dice);
    for (let d = 0; d < dice; d++) {
      const own = throws.filter((t) => t.die === d);
      const final = own.findLastIndex((t) => t.kind !== 'explode');
      expect(group.results[d]).toBe(own.slice(final).reduce((a, t) => a + t.value, 0));
    }
    return;
  }
  expect(throws.map((t) => t.value)).toEqual(group.results);
  for (let i = 0; i < throws.length; i++) {
    const next = throws[i + 1];
    const replaced = next !== undefined && next.die === throws[i]!.die && next.kind === 'reroll';
    if (replaced) expect(group.keptFlags[i]).toBe(false);
    else if (throws[i]!.kind === 'explode') expect(group.keptFlags[i]).toBe(group.keptFlags[i - 1]);
  }
}

const sources: Array<() => RandomSource | undefined> = [() => undefined, minSource, maxSource];

describe('properties of generated dice terms with their modifiers', () => {
  it('totals, kept, throws and clamps are consistent under any source', () => {
    fc.assert(
      fc.property(termArb, fc.nat(2), (spec, which) => {
        fc.pre(valid(spec.text));
        const group = roll({ formula: spec.text }, { random: sources[which]!() }).dice[0]!;
        expectConsistent(group, spec);
        const success = /^\d+d(?:\d+|F|\{[^}]*\})((?:<=|>=|<|>|=)-?\d+)(?:f((?:<=|>=|<|>|=)-?\d+))?/.exec(
          spec.text,
        );
        if (success) {
          expect(group.successes).toBe(group.kept.filter((v) => meets(success[1], v)).length);
          if (success[2] !== undefined) {
            expect(group.failures).toBe(group.kept.filter((v) => meets(success[2], v)).length);
          }
        } else {
          expect(group).not.toHaveProperty('successes');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

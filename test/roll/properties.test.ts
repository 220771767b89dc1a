// Properties over generated plain sums (dice terms with kh, kl, dh, dl, adv, dis, !, !p, r, ro, x,
// and numbers): the total invariant, kept vs keptFlags, totals
// bounded by all-minimum and all-maximum sources, and countDice = the original dice thrown.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countDice, type RandomSource, type RollRequest, type RollResponse, roll } from '../../src/index.js';
import { maxSource, minSource } from '../support/sources.js';

type CompareOp = '' | '=' | '<' | '<=' | '>' | '>=';

interface DiceSpec {
  kind: 'dice';
  sign: 1 | -1;
  count: number | null;
  sides: number;
  keep: { op: 'kh' | 'k' | 'kl' | 'dh' | 'dl'; amount: number | null } | null;
  adv: 'adv' | 'dis' | null;
  explode: '!' | '!p' | null;
  reroll: { once: boolean; op: CompareOp; value: number | null } | null;
  multiplier: number | null;
  /** A permutation seed: modifiers may be written in any order. */
  order: number;
  upper: boolean;
}

interface FlatSpec {
  kind: 'flat';
  sign: 1 | -1;
  value: number;
}

type TermSpec = DiceSpec | FlatSpec;

/** The faces a reroll spec meets (independent of the engine's own computation). */
function meetsReroll(spec: DiceSpec, face: number): boolean {
  const r = spec.reroll;
  if (r === null) return false;
  const v = r.value ?? 1;
  switch (r.op) {
    case '<':
      return face < v;
    case '<=':
      return face <= v;
    case '>':
      return face > v;
    case '>=':
      return face >= v;
    default:
      return face === v;
  }
}

function rerollMeetsEveryFace(spec: DiceSpec): boolean {
  // Only the bounds matter for every compare point.
  for (const face of new Set([1, 2, spec.sides - 1, spec.sides])) {
    if (face >= 1 && face <= spec.sides && !meetsReroll(spec, face)) return false;
  }
  return spec.sides <= 4 ? [...Array(spec.sides)].every((_, i) => meetsReroll(spec, i + 1)) : true;
}

const sidesArb = fc.constantFrom(1, 2, 3, 4, 6, 8, 10, 12, 20, 100, 1000, 2 ** 32);

const diceArb: fc.Arbitrary<DiceSpec> = fc
  .record({
    kind: fc.constant('dice' as const),
    sign: fc.constantFrom(1 as const, -1 as const),
    count: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }),
    sides: sidesArb,
    keep: fc.option(
      fc.record({
        op: fc.constantFrom('kh' as const, 'k' as const, 'kl' as const, 'dh' as const, 'dl' as const),
        amount: fc.option(fc.integer({ min: 1, max: 14 }), { nil: null }),
      }),
      { nil: null },
    ),
    adv: fc.option(fc.constantFrom('adv' as const, 'dis' as const), { nil: null }),
    explode: fc.option(fc.constantFrom('!' as const, '!p' as const), { nil: null }),
    reroll: fc.option(
      fc.record({
        once: fc.boolean(),
        op: fc.constantFrom<CompareOp>('', '=', '<', '<=', '>', '>='),
        value: fc.option(fc.integer({ min: 0, max: 25 }), { nil: null }),
      }),
      { nil: null },
    ),
    multiplier: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
    order: fc.nat(),
    upper: fc.boolean(),
  })
  .map((spec) => {
    // Make the spec valid: adv excludes keep/drop; no explode or all-face reroll on a d1.
    const fixed = { ...spec };
    if (fixed.adv !== null) fixed.keep = null;
    if (fixed.explode !== null && fixed.sides === 1) fixed.explode = null;
    if (fixed.reroll !== null && fixed.reroll.op !== '' && fixed.reroll.value === null) {
      fixed.reroll = { ...fixed.reroll, value: 1 };
    }
    if (fixed.reroll !== null && rerollMeetsEveryFace(fixed)) fixed.reroll = null;
    return fixed;
  });

const flatArb: fc.Arbitrary<FlatSpec> = fc.record({
  kind: fc.constant('flat' as const),
  sign: fc.constantFrom(1 as const, -1 as const),
  value: fc.integer({ min: 0, max: 1000 }),
});

/** One to five terms, at least one dice term, at most one adv/dis term. */
const formulaArb = fc
  .tuple(diceArb, fc.array(fc.oneof(diceArb, flatArb), { maxLength: 4 }), fc.nat())
  .map(([first, rest, at]) => {
    const terms: TermSpec[] = [...rest];
    terms.splice(at % (rest.length + 1), 0, first);
    let seenAdv = false;
    return terms.map((term) => {
      if (term.kind !== 'dice' || term.adv === null) return term;
      if (seenAdv) return { ...term, adv: null };
      seenAdv = true;
      return term;
    });
  });

function writeDice(spec: DiceSpec): string {
  const parts: string[] = [];
  if (spec.keep) parts.push(`${spec.keep.op}${spec.keep.amount ?? ''}`);
  if (spec.adv) parts.push(spec.adv);
  if (spec.explode) parts.push(spec.explode);
  if (spec.reroll) parts.push(`${spec.reroll.once ? 'ro' : 'r'}${spec.reroll.op}${spec.reroll.value ?? ''}`);
  if (spec.multiplier !== null) parts.push(`x${spec.multiplier}`);
  // Rotate the written order; the meaning must not change.
  const shift = parts.length === 0 ? 0 : spec.order % parts.length;
  const ordered = [...parts.slice(shift), ...parts.slice(0, shift)].join('');
  const text = `${spec.count ?? ''}d${spec.sides === 100 && spec.order % 2 === 0 ? '%' : spec.sides}${ordered}`;
  return spec.upper ? text.toUpperCase() : text;
}

function writeFormula(terms: readonly TermSpec[]): string {
  return terms
    .map((term, i) => {
      const body = term.kind === 'dice' ? writeDice(term) : String(term.value);
      const sign = term.sign === -1 ? '-' : i === 0 ? '' : '+';
      return `${sign}${body}`;
    })
    .join(' ');
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function expectInvariants(response: RollResponse): void {
  for (const group of response.dice) {
    expect(group.keptFlags).toHaveLength(group.results.length);
    const kept = group.results.filter((_, i) => group.keptFlags[i]);
    expect([...group.kept].sort((a, b) => a - b)).toEqual(kept.sort((a, b) => a - b));
    for (let i = 1; i < group.kept.length; i++)
      expect(group.kept[i - 1]!).toBeGreaterThanOrEqual(group.kept[i]!);
    expect(group.total).toBe(group.sign * group.multiplier * sum(group.kept) || 0);
  }
  expect(response.modifier).toBe(sum(response.modifiers));
  expect(response.total).toBe(sum(response.dice.map((g) => g.total)) + response.modifier);
}

/** Replays each group's throws from the spec alone and counts the original dice. */
function originalDice(specs: readonly DiceSpec[], response: RollResponse): number {
  let dice = 0;
  response.dice.forEach((group, g) => {
    const spec = specs[g]!;
    const rerollLimit = spec.reroll === null ? 0 : spec.reroll.once ? 1 : 100;
    let i = 0;
    while (i < group.results.length) {
      for (let r = 0; r < rerollLimit && meetsReroll(spec, group.results[i]!); r++) i++;
      let raw = group.results[i++]!;
      dice++;
      if (spec.explode !== null) {
        for (let e = 0; e < 100 && raw === spec.sides; e++) {
          raw = group.results[i++]! + (spec.explode === '!p' ? 1 : 0);
        }
      }
    }
  });
  return dice;
}

const requestArb = fc
  .tuple(
    formulaArb,
    fc.constantFrom('normal', 'advantage', 'disadvantage') as fc.Arbitrary<RollRequest['advantage']>,
  )
  .map(([terms, advantage]) => {
    const hasAdvTerm = terms.some((t) => t.kind === 'dice' && t.adv !== null);
    const request: RollRequest = {
      formula: writeFormula(terms),
      advantage: hasAdvTerm ? 'normal' : advantage,
    };
    return { terms, request };
  });

describe('properties of generated valid formulas', () => {
  it('the total invariant and kept vs keptFlags hold', () => {
    fc.assert(
      fc.property(requestArb, ({ request }) => {
        expectInvariants(roll(request));
      }),
      { numRuns: 1500 },
    );
  });

  it('each group total lies between what all-minimum and all-maximum sources give', () => {
    fc.assert(
      fc.property(requestArb, ({ request }) => {
        const random = roll(request);
        const low = roll(request, { random: minSource() });
        const high = roll(request, { random: maxSource() });
        expectInvariants(low);
        expectInvariants(high);
        let lowest = random.modifier;
        let highest = random.modifier;
        random.dice.forEach((group, g) => {
          const a = low.dice[g]!.total;
          const b = high.dice[g]!.total;
          expect(group.total).toBeGreaterThanOrEqual(Math.min(a, b));
          expect(group.total).toBeLessThanOrEqual(Math.max(a, b));
          lowest += Math.min(a, b);
          highest += Math.max(a, b);
        });
        expect(random.total).toBeGreaterThanOrEqual(lowest);
        expect(random.total).toBeLessThanOrEqual(highest);
      }),
      { numRuns: 700 },
    );
  });

  it('countDice equals the number of original dice thrown', () => {
    const sources: Array<() => RandomSource | undefined> = [() => undefined, minSource, maxSource];
    fc.assert(
      fc.property(requestArb, fc.nat(2), ({ terms, request }, which) => {
        const response = roll(request, { random: sources[which]!() });
        const specs = terms.filter((t): t is DiceSpec => t.kind === 'dice');
        expect(response.dice).toHaveLength(specs.length);
        expect(countDice(request)).toBe(originalDice(specs, response));
      }),
      { numRuns: 1500 },
    );
  });

  it('the written order of modifiers does not change the roll', () => {
    fc.assert(
      fc.property(diceArb, fc.nat(), (spec, order) => {
        const a = roll({ formula: writeDice(spec) }, { random: maxSource() });
        const b = roll({ formula: writeDice({ ...spec, order }) }, { random: maxSource() });
        expect(b.dice).toEqual(a.dice);
      }),
      { numRuns: 500 },
    );
  });
});

// Random well-formed expressions (docs/language.md, "Arithmetic and groups") evaluated two ways: by the roller,
// and by an independent exact evaluator written here over the same recorded dice. They must
// agree on the total, and the response's tree must hold its own invariant.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RandomSource, type RollResponse, roll } from '../../src/index.js';
import { maxSource, minSource } from '../support/sources.js';

type Spec =
  | { k: 'dice'; count: number; sides: number }
  | { k: 'num'; n: number }
  | { k: 'add' | 'sub' | 'mul'; a: Spec; b: Spec }
  | { k: 'div'; a: Spec; d: number }
  | { k: 'fn1'; name: 'floor' | 'ceil' | 'round' | 'abs'; a: Spec }
  | { k: 'fn2'; name: 'min' | 'max'; a: Spec; b: Spec }
  | { k: 'group'; items: Spec[]; mod: '' | 'kh1' | 'kl1' | 'dl1' | '>=4' }
  | { k: 'neg'; a: Spec }
  | { k: 'pow'; a: Spec; e: number }
  | { k: 'mod'; a: Spec; d: number }
  | { k: 'ddiv' | 'dmod'; a: Spec; count: number; sides: number };

const leaf: fc.Arbitrary<Spec> = fc.oneof(
  fc.record({
    k: fc.constant('dice' as const),
    count: fc.integer({ min: 1, max: 4 }),
    sides: fc.constantFrom(2, 4, 6, 20),
  }),
  fc.record({ k: fc.constant('num' as const), n: fc.integer({ min: 0, max: 30 }) }),
);

const specArb: fc.Arbitrary<Spec> = fc.letrec<{ e: Spec }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      k: fc.constantFrom('add' as const, 'sub' as const, 'mul' as const),
      a: tie('e'),
      b: tie('e'),
    }),
    fc.record({
      k: fc.constant('div' as const),
      a: tie('e'),
      d: fc.integer({ min: -5, max: 7 }).filter((d) => d !== 0),
    }),
    fc.record({
      k: fc.constant('fn1' as const),
      name: fc.constantFrom('floor', 'ceil', 'round', 'abs'),
      a: tie('e'),
    }) as fc.Arbitrary<Spec>,
    fc.record({
      k: fc.constant('fn2' as const),
      name: fc.constantFrom('min', 'max'),
      a: tie('e'),
      b: tie('e'),
    }) as fc.Arbitrary<Spec>,
    fc.record({
      k: fc.constant('group' as const),
      items: fc.array(tie('e'), { minLength: 2, maxLength: 3 }),
      mod: fc.constantFrom('' as const, 'kh1' as const, 'kl1' as const, 'dl1' as const, '>=4' as const),
    }),
    fc.record({ k: fc.constant('neg' as const), a: tie('e') }),
    fc.record({ k: fc.constant('pow' as const), a: tie('e'), e: fc.integer({ min: 0, max: 3 }) }),
    fc.record({
      k: fc.constant('mod' as const),
      a: tie('e'),
      d: fc.integer({ min: -5, max: 7 }).filter((d) => d !== 0),
    }),
    // Dice in a divisor: standard dice never show 0, so the parser's interval excludes zero.
    fc.record({
      k: fc.constantFrom('ddiv' as const, 'dmod' as const),
      a: tie('e'),
      count: fc.integer({ min: 1, max: 3 }),
      sides: fc.constantFrom(2, 4, 6, 20),
    }),
  ),
})).e;

/** Writes a spec; every compound operand is parenthesised, so precedence never decides. */
function write(spec: Spec): string {
  const operand = (s: Spec) =>
    s.k === 'dice' || s.k === 'num' || s.k === 'fn1' || s.k === 'fn2' || s.k === 'group'
      ? write(s)
      : `(${write(s)})`;
  switch (spec.k) {
    case 'dice':
      return `${spec.count}d${spec.sides}`;
    case 'num':
      return String(spec.n);
    case 'add':
      return `${operand(spec.a)} + ${operand(spec.b)}`;
    case 'sub':
      return `${operand(spec.a)}-${operand(spec.b)}`;
    case 'mul':
      return `${operand(spec.a)}*${operand(spec.b)}`;
    case 'div':
      return `${operand(spec.a)}/${spec.d}`;
    case 'fn1':
      return `${spec.name}(${write(spec.a)})`;
    case 'fn2':
      return `${spec.name}(${write(spec.a)}, ${write(spec.b)})`;
    case 'group':
      return `{${spec.items.map(write).join(', ')}}${spec.mod}`;
    case 'neg':
      return `(-(${write(spec.a)}))`;
    case 'pow':
      return `${operand(spec.a)}^${spec.e}`;
    case 'mod':
      return `${operand(spec.a)}%${spec.d}`;
    case 'ddiv':
      return `${operand(spec.a)}/${spec.count}d${spec.sides}`;
    case 'dmod':
      return `${operand(spec.a)}%${spec.count}d${spec.sides}`;
  }
}

function hasDice(spec: Spec): boolean {
  switch (spec.k) {
    case 'dice':
      return true;
    case 'num':
      return false;
    case 'group':
      return spec.items.some(hasDice);
    case 'ddiv':
    case 'dmod':
      return true;
    case 'div':
    case 'fn1':
    case 'neg':
    case 'pow':
    case 'mod':
      return hasDice(spec.a);
    default:
      return hasDice(spec.a) || hasDice(spec.b);
  }
}

// --- an independent exact evaluator: fractions as [numerator, denominator] of BigInt ---------

type Q = readonly [bigint, bigint];
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
function q(n: bigint, d = 1n): Q {
  if (d < 0n) return q(-n, -d);
  const g = gcd(n, d) || 1n;
  return [n / g, d / g];
}
const add = (x: Q, y: Q) => q(x[0] * y[1] + y[0] * x[1], x[1] * y[1]);
const mul = (x: Q, y: Q) => q(x[0] * y[0], x[1] * y[1]);
const cmp = (x: Q, y: Q) => Math.sign(Number(x[0] * y[1] - y[0] * x[1]));
/** floor of n/d for d > 0. */
const floorQ = (x: Q): Q => {
  const t = x[0] / x[1];
  return q(x[0] < 0n && t * x[1] !== x[0] ? t - 1n : t);
};
const neg = (x: Q): Q => [-x[0], x[1]];
/** Remainder of truncating division: x - y * trunc(x / y). */
const modQ = (x: Q, y: Q): Q => {
  const quotient = mul(x, q(y[1], y[0]));
  const truncated = quotient[0] / quotient[1];
  return add(x, neg(mul(y, q(truncated))));
};
const powQ = (x: Q, e: number): Q => q(x[0] ** BigInt(e), x[1] ** BigInt(e));

/** Evaluates a spec, taking each dice term's value (the sum of its throws) from `dice` in order. */
function evaluate(spec: Spec, dice: number[]): Q {
  switch (spec.k) {
    case 'dice':
      return q(BigInt(dice.shift()!));
    case 'num':
      return q(BigInt(spec.n));
    case 'add':
      return add(evaluate(spec.a, dice), evaluate(spec.b, dice));
    case 'sub': {
      const a = evaluate(spec.a, dice);
      return add(a, neg(evaluate(spec.b, dice)));
    }
    case 'mul': {
      const a = evaluate(spec.a, dice);
      return mul(a, evaluate(spec.b, dice));
    }
    case 'div':
      return mul(evaluate(spec.a, dice), q(1n, BigInt(spec.d)));
    case 'neg':
      return neg(evaluate(spec.a, dice));
    case 'pow':
      return powQ(evaluate(spec.a, dice), spec.e);
    case 'mod':
      return modQ(evaluate(spec.a, dice), q(BigInt(spec.d)));
    case 'ddiv':
    case 'dmod': {
      const a = evaluate(spec.a, dice);
      const d = q(BigInt(dice.shift()!));
      return spec.k === 'ddiv' ? mul(a, q(d[1], d[0])) : modQ(a, d);
    }
    case 'fn1': {
      const a = evaluate(spec.a, dice);
      if (spec.name === 'floor') return floorQ(a);
      if (spec.name === 'ceil') return neg(floorQ(neg(a)));
      if (spec.name === 'abs') return a[0] < 0n ? neg(a) : a;
      const half = q(1n, 2n);
      return a[0] < 0n ? neg(floorQ(add(neg(a), half))) : floorQ(add(a, half));
    }
    case 'fn2': {
      const a = evaluate(spec.a, dice);
      const b = evaluate(spec.b, dice);
      return (spec.name === 'max' ? cmp(b, a) > 0 : cmp(b, a) < 0) ? b : a;
    }
    case 'group': {
      const values = spec.items.map((item) => evaluate(item, dice));
      const sorted = [...values].sort(cmp);
      if (spec.mod === 'kh1') return sorted[sorted.length - 1]!;
      if (spec.mod === 'kl1') return sorted[0]!;
      if (spec.mod === '>=4') return q(BigInt(values.filter((v) => cmp(v, q(4n)) >= 0).length));
      const kept = spec.mod === 'dl1' ? sorted.slice(1) : values;
      return kept.reduce(add, q(0n));
    }
  }
}

/** Each dice term's value, unsigned: the sum of its throws (plain dice keep every throw). */
const diceValues = (response: RollResponse) => response.dice.map((g) => g.results.reduce((a, b) => a + b, 0));

const sources: Array<() => RandomSource | undefined> = [
  () => undefined,
  () => undefined,
  minSource,
  maxSource,
];

describe('random expressions, evaluated two ways', () => {
  it('the roller and an independent exact evaluator agree over the same dice', () => {
    fc.assert(
      fc.property(specArb, fc.nat(3), (spec, which) => {
        const formula = write(spec);
        fc.pre(formula.length <= 200 && hasDice(spec));
        let response: RollResponse;
        try {
          response = roll({ formula }, { random: sources[which]!() });
        } catch (error) {
          // A power whose interval may pass 10^100 is refused; nothing else may be.
          expect(String(error)).toMatch(/A power may reach at most/);
          return;
        }
        const value = evaluate(spec, diceValues(response));
        expect(response.total).toBe(Number(floorQ(value)[0]));
        const root = response.expression ?? { value: response.total };
        const expected = Number(value[0]) / Number(value[1]);
        expect(root.value).toBeCloseTo(
          expected,
          Math.abs(expected) > 1e6 ? -Math.ceil(Math.log10(Math.abs(expected))) + 9 : 6,
        );
        if (value[1] !== 1n) expect(response.expression).toMatchObject({ exact: `${value[0]}/${value[1]}` });
      }),
      { numRuns: 1500 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { type ExpressionPlan, type ModifierPlan, prepareRoll } from '../../src/formula/index.js';
import type { StatsRequest } from '../../src/stats/distribution.js';
import { checkDistribution, distribution } from '../../src/stats/distribution.js';
import { expectExactAs } from './enumerate.js';

/** Engine and enumeration agree exactly: every total's count, the tail, nothing else listed. */
function expectExact(request: StatsRequest, depth = 2): { rolls: number } {
  return expectExactAs(request, depth, false);
}

describe('known tables', () => {
  it('4d6kh3 over 1296', () => {
    const d = distribution({ formula: '4d6kh3' });
    expect(d.denominator).toBe('1296');
    expect(d.outcomes.map((o) => o.count)).toEqual([
      '1',
      '4',
      '10',
      '21',
      '38',
      '62',
      '91',
      '122',
      '148',
      '167',
      '172',
      '160',
      '131',
      '94',
      '54',
      '21',
    ]);
    expect(d.outcomes.map((o) => o.total)).toEqual(Array.from({ length: 16 }, (_, i) => i + 3));
    expect(d.meanExact).toBe('15869/1296');
    expect(d.mean).toBe(15869 / 1296);
    expect(d.min).toBe(3);
    expect(d.max).toBe(18);
    expect(d.truncation).toBeNull();
    expect(d.outcomes[0]).toMatchObject({ total: 3, probability: 1 / 1296, atLeast: 1, atMost: 1 / 1296 });
    expect(d.percentiles).toEqual({ 5: 7, 25: 10, 50: 12, 75: 14, 95: 17 });
  });

  it('2d6 and 2d20adv+5 and the advantage field', () => {
    expect(distribution({ formula: '2d6' }).outcomes.map((o) => Number(o.count))).toEqual([
      1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1,
    ]);
    const adv = distribution({ formula: '2d20adv+5' });
    expect(adv.advantageState).toBe('advantage');
    expect(adv.outcomes.map((o) => Number(o.count))).toEqual(Array.from({ length: 20 }, (_, i) => 2 * i + 1));
    const field = distribution({ formula: '1d20+5', advantage: 'advantage' });
    expect(field.advantageState).toBe('advantage');
    expect(field.outcomes).toEqual(adv.outcomes);
    expect(distribution({ formula: '1d20+5', advantage: 'disadvantage' }).meanExact).toBe('487/40');
  });

  it('exploding d6: the tail is exact and below 1e-30, never folded into a value', () => {
    const d = distribution({ formula: '1d6!' });
    expect(d.truncation).not.toBeNull();
    expect(d.truncation!.tailProbability).toBeLessThan(1e-30);
    const [n, den] = d.truncation!.tailExact.split('/');
    expect(n).toBe('1');
    expect(BigInt(den!)).toBe(6n ** BigInt(d.truncation!.depth + 1));
    // 6 never shows: it always explodes.
    expect(d.outcomes.find((o) => o.total === 6)).toBeUndefined();
    expect(d.outcomes.find((o) => o.total === 7)!.probability).toBe(1 / 36);
  });

  it('a depth of 100 is the whole distribution (the cap ends every chain)', () => {
    const d = distribution({ formula: '1d2!', depth: 100 });
    expect(d.truncation).toBeNull();
    expect(d.max).toBe(2 + 100 * 2);
    expect(d.outcomes.at(-1)!.count).toBe('1');
    expect(d.denominator).toBe((2n ** 101n).toString());
  });

  it('a support too large to list gives the exact summary only', () => {
    const d = distribution({ formula: '1d4294967296' });
    expect(d.listing).toBe('summary');
    expect(d.outcomes).toEqual([]);
    expect(d.meanExact).toBe('4294967297/2');
    expect(d.varianceExact).toBe(
      `${2n ** 64n - 1n}/12`.replace(/^(\d+)\/12$/, (_, n) => reduced(BigInt(n), 12n)),
    );
    expect(d.min).toBe(1);
    expect(d.max).toBe(4294967296);
  });

  it('summary means match listed means where both exist', () => {
    for (const formula of ['3d6!', '2d6r1', '4d8ro<3x2-1d4!p+3']) {
      const listed = distribution({ formula, depth: 100 });
      expect(listed.truncation).toBeNull();
      const { summaryOf } = internals();
      expect(summaryOf(formula)).toEqual({
        meanExact: listed.meanExact,
        varianceExact: listed.varianceExact,
      });
    }
  });

  it('counts past 256 KB are omitted, the probabilities stay', () => {
    const d = distribution({ formula: '1000d6' });
    expect(d.listing).toBe('probabilities');
    expect(d.denominator).toBeNull();
    expect(d.outcomes).toHaveLength(5001);
    expect(d.outcomes[0]).not.toHaveProperty('count');
    expect(d.meanExact).toBe('3500/1');
    expect(d.varianceExact).toBe('8750/3');
    expect(d.outcomes[2500]!.total).toBe(3500);
  });
});

describe('refusals', () => {
  it('too_complex before the work starts', () => {
    expect(() => distribution({ formula: '1000d6!kh500' })).toThrow(
      expect.objectContaining({ code: 'too_complex' }),
    );
    // Sums too costly to list exactly in time, refused by the estimate alone.
    expect(() => distribution({ formula: '1000d20' })).toThrow(/units of work/);
    expect(() => distribution({ formula: '50d10!' })).toThrow(/units of work/);
    expect(() => distribution({ formula: '2d4294967296kh1' })).toThrow(
      expect.objectContaining({ code: 'too_complex' }),
    );
  });
  it.each([
    // The budget of work, for a sum and for arithmetic.
    ['1000d20', /would take about 1\.4e10 units of work; the limit is 2\.0e9/],
    ['(1000d20)*2', /would take about \d\.\de\d+ units of work; the limit is 2\.0e9/],
    // Too many totals to list, for a keep (no summary) and for exploding dice with no summary.
    ['1000d100kh500', /could have about 5\.0e4 totals, more than the 25000 that can be listed/],
    ['1000d6!kh500', /could have about 1\.3e5 totals, more than the 25000 that can be listed/],
    ['300d100!>=90', /could have about \d\.\de\d+ totals, more than the 25000 that can be listed/],
    ['(100d6)*(100d6)', /could have about \d\.\de\d+ totals, more than the 25000/],
    // The size of a die the general engine cannot take.
    ['1d4294967296!>=5', /This formula has dice of 4294967296 sides\./],
    ['{2d4294967296}kh1', /This formula has dice of 4294967296 sides\./],
  ])('every too_complex message carries its estimate: %s', (formula, estimate) => {
    // Refused by the check alone, on the event loop, before any work (the service's worker
    // never meets a refusal of its own).
    expect(() => checkDistribution({ formula })).toThrow(expect.objectContaining({ code: 'too_complex' }));
    expect(() => checkDistribution({ formula })).toThrow(estimate);
  });

  it('the roll rules stay: a bad formula, a bad depth', () => {
    expect(() => distribution({ formula: '2+5' })).toThrow(
      expect.objectContaining({ code: 'invalid_formula' }),
    );
    expect(() => distribution({ formula: '1d6!', depth: 101 })).toThrow(/depth/);
  });
});

function reduced(n: bigint, d: bigint): string {
  const g = (a: bigint, b: bigint): bigint => (b === 0n ? a : g(b, a % b));
  const k = g(n, d);
  return `${n / k}/${d / k}`;
}

// --- exhaustive ---------------------------------------------------------------------------------

/** Small formulas from every construct, crossed: dice, modifiers, signs, multipliers, bonuses. */
function generated(): Array<{ request: StatsRequest; depth: number }> {
  const out: Array<{ request: StatsRequest; depth: number }> = [];
  const keeps = ['', 'kh1', 'kh2', 'kl1', 'kl2', 'dh1', 'dl1', 'dl2', 'k'];
  const rerolls = ['', 'ro1', 'ro>2', 'ro<=2'];
  const explodes = ['', '!', '!p'];
  for (const sides of [2, 3, 4]) {
    for (const count of [1, 2, 3]) {
      for (const keep of keeps) {
        for (const reroll of rerolls) {
          for (const explode of explodes) {
            const formula = `${count}d${sides}${explode}${reroll}${keep}`;
            // A condition every face meets is refused by the roller too (ro<=2 on a d2).
            if (reroll === 'ro<=2' && sides === 2) continue;
            out.push({ request: { formula }, depth: count === 3 && explode !== '' ? 1 : 2 });
          }
        }
      }
    }
  }
  for (const formula of [
    '2d20adv',
    '3d4dis',
    '-2d3x3+1d4-2',
    '1d4x2-1d3x3+7',
    '2d3!kh1x2',
    '-1d3!p',
    '1d20+1',
    '2d3adv-1d2',
    'd%',
  ]) {
    out.push({ request: { formula }, depth: 2 });
  }
  out.push({ request: { formula: '1d20', advantage: 'advantage' }, depth: 1 });
  out.push({ request: { formula: '2d4+1d20-1', advantage: 'disadvantage' }, depth: 1 });
  out.push({ request: { formula: '1d4 fire', tags: ['fire'], bonuses: [3, '1d3', '-1d2!'] }, depth: 2 });
  return out;
}

describe('exhaustive enumeration through the real roller', () => {
  const cases = generated();
  it(`every generated formula (${cases.length}) matches count for count`, () => {
    let rolls = 0;
    for (const { request, depth } of cases) {
      try {
        rolls += expectExact(request, depth).rolls;
      } catch (error) {
        throw new Error(`${JSON.stringify(request)} depth ${depth}: ${(error as Error).message}`);
      }
    }
    expect(rolls).toBeGreaterThan(10_000);
  });

  it('the caps: 100 rerolls and 100 explosions', () => {
    expectExact({ formula: '1d2r1' });
    expectExact({ formula: '2d2r2' });
    expectExact({ formula: '1d3r<3' });
    expectExact({ formula: '1d2!' }, 100);
    expectExact({ formula: '2d2!pkh1' }, 100);
    expectExact({ formula: '1d2r2!' }, 100);
    expectExact({ formula: '1d3r1!' }, 3);
    expectExact({ formula: '2d3ro1!kl1' }, 3);
  });
});

function internals() {
  return {
    summaryOf(formula: string) {
      // The summary path, forced by a listing limit of zero outcomes.
      const d = distribution({ formula }, { outcomesMax: 0 });
      expect(d.listing).toBe('summary');
      return { meanExact: d.meanExact, varianceExact: d.varianceExact };
    },
  };
}

/** Every kind of expression node under `node`. */
function expressionKinds(node: ExpressionPlan | undefined): Set<string> {
  const kinds = new Set<string>();
  const visit = (n: ExpressionPlan): void => {
    kinds.add(n.kind);
    for (const child of Object.values(n).flat()) {
      if (typeof child === 'object' && child !== null && 'kind' in child) visit(child as ExpressionPlan);
    }
    if (n.kind === 'pool') visit(n.item);
  };
  if (node !== undefined) visit(node);
  return kinds;
}

describe('every kind of the plan is answered exactly, or refused with the reason', () => {
  // One example per kind: a kind added to the plan (src/formula/plan.ts) fails to compile here
  // until it has one, and the engine must then answer it exactly or refuse it with a reason.
  const RULES: Record<ModifierPlan['kind'], string | RegExp> = {
    clamp: '3d4min2',
    reroll: '2d4ro1',
    unique: /Unique dice \(u, uo\) are not computed by \/v1\/stats/,
    explode: '2d4!',
    keep: '4d6kh3',
    match: '4d4m',
    count: '3d10>=8f1',
  };
  const REFUSED: Partial<Record<ModifierPlan['kind'], string>> = { unique: '4d6u' };
  it.each(Object.entries(RULES))("a dice term's rule %s", (kind, example) => {
    const formula = typeof example === 'string' ? example : REFUSED[kind as ModifierPlan['kind']]!;
    const kinds = prepareRoll({ formula }).groups.flatMap((g) => g.modifiers.map((m) => m.kind));
    expect(kinds).toContain(kind);
    if (typeof example === 'string') expect(expectExact({ formula }).rolls).toBeGreaterThan(1);
    else expect(() => distribution({ formula })).toThrow(example);
  });

  const NODES: Record<ExpressionPlan['kind'], string> = {
    dice: '(1d4)',
    number: '(1d4)+2',
    sum: '(1d4+1d6)',
    negate: '-(1d4)+1d6',
    product: '(1d4)*2',
    power: '1d4^2',
    call: 'max(1d4,1d6)',
    group: '{1d4,1d6}kh1',
    pool: '{2d4+1d6}kh2',
  };
  it.each(Object.entries(NODES))('an expression node %s', (kind, formula) => {
    expect(expressionKinds(prepareRoll({ formula }).expression)).toContain(kind);
    expect(expectExact({ formula }).rolls).toBeGreaterThan(1);
  });

  it('matching sets as the total (mt) are refused with the reason, also beside unique dice', () => {
    for (const formula of ['4d6mt', '4d6umt']) {
      expect(() => distribution({ formula })).toThrow(
        /^formula: Matching sets as the total \(mt\) are not computed by \/v1\/stats: /,
      );
    }
  });
});

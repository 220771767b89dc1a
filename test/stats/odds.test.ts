// The questions asked of a distribution (docs/stats.md#opposed-rolls-versus and on): opposed
// rolls, targets, several formulas under one budget, and the whole roll's moments at any depth,
// each checked against brute force through the real roller (test/stats/enumerate.ts).
import { describe, expect, it } from 'vitest';
import { RequestError, TooComplexError } from '../../src/errors.js';
import type { RollRequest } from '../../src/roll/types.js';
import {
  checkDistribution,
  checkDistributions,
  distribution,
  distributions,
} from '../../src/stats/distribution.js';
import { fraction } from '../../src/stats/exact.js';
import { enumerate } from './enumerate.js';

/** Every listed pair of rolls of A and B, by the real roller: A - B's counts over denA * denB. */
function bruteVersus(a: RollRequest, b: RollRequest, depth: number) {
  const ea = enumerate(a, depth, 200_000, true);
  const eb = enumerate(b, depth, 200_000, true);
  const difference = new Map<number, bigint>();
  let greater = 0n;
  let equal = 0n;
  let less = 0n;
  for (const [ta, ca] of ea.counts) {
    for (const [tb, cb] of eb.counts) {
      const weight = ca * cb;
      difference.set(ta - tb, (difference.get(ta - tb) ?? 0n) + weight);
      if (ta > tb) greater += weight;
      else if (ta === tb) equal += weight;
      else less += weight;
    }
  }
  const denominator = ea.denominator * eb.denominator;
  return { difference, greater, equal, less, denominator };
}

describe('versus: an opposed roll', () => {
  it('1d20+7 against 1d20+5: 229/400 beats, 9/200 ties (counted pair by pair)', () => {
    const { versus } = distribution({ formula: '1d20+7', versus: { formula: '1d20+5' } });
    let beats = 0;
    let ties = 0;
    for (let a = 1; a <= 20; a++) {
      for (let b = 1; b <= 20; b++) {
        if (a + 7 > b + 5) beats++;
        if (a + 7 === b + 5) ties++;
      }
    }
    expect(versus!.greaterExact).toBe(fraction(BigInt(beats), 400n));
    expect(versus!.equalExact).toBe(fraction(BigInt(ties), 400n));
    expect(versus!.greaterExact).toBe('229/400');
    expect(versus!.equalExact).toBe('9/200');
    expect(versus!.lessExact).toBe('153/400');
    expect(versus!.greater).toBe(0.5725);
    expect(versus!.formula).toBe('1d20+5');
    expect(versus!.difference.outcomes.map((o) => o.total)).toEqual(
      Array.from({ length: 39 }, (_, i) => i - 17),
    );
  });

  it.each([
    [{ formula: '4d6kh3' }, { formula: '3d6' }, 0],
    [{ formula: '2d6+3' }, { formula: '1d12+4' }, 0],
    [{ formula: '1d20', advantage: 'advantage' }, { formula: '1d20+3', bonuses: ['1d4'] }, 0],
    [{ formula: '(1d8+4)*2' }, { formula: '{1d20+5, 1d20+3}kh1' }, 0],
    [{ formula: '2d6!' }, { formula: '1d8!+1' }, 2],
    [{ formula: '3d6!kh2' }, { formula: '1d6!p' }, 1],
  ] as Array<[RollRequest, RollRequest, number]>)(
    '%o against %o at depth %i equals brute force',
    (a, b, depth) => {
      const answer = distribution({ ...a, depth, versus: b });
      const truth = bruteVersus(a, b, depth);
      const v = answer.versus!;
      expect(v.greaterExact).toBe(fraction(truth.greater, truth.denominator));
      expect(v.equalExact).toBe(fraction(truth.equal, truth.denominator));
      expect(v.lessExact).toBe(fraction(truth.less, truth.denominator));
      const d = v.difference;
      expect(d.listing).toBe('full');
      const den = BigInt(d.denominator!);
      expect(d.outcomes.map((o) => [o.total, fraction(BigInt(o.count!), den)])).toEqual(
        [...truth.difference.entries()]
          .filter(([, c]) => c > 0n)
          .sort(([x], [y]) => x - y)
          .map(([t, c]) => [t, fraction(c, truth.denominator)]),
      );
      const listed = truth.greater + truth.equal + truth.less;
      if (depth === 0) {
        expect(d.truncation).toBeNull();
        expect(listed).toBe(truth.denominator);
      } else {
        expect(d.truncation!.tailExact).toBe(fraction(truth.denominator - listed, truth.denominator));
      }
    },
  );

  it("A - B's moments are the whole rolls' (the means subtracted, the variances added)", () => {
    const a = distribution({ formula: '2d6!', depth: 3 });
    const b = distribution({ formula: '1d12!', depth: 3 });
    const d = distribution({ formula: '2d6!', depth: 3, versus: { formula: '1d12!' } }).versus!.difference;
    expect(d.moments).toBe('roll');
    expect(d.mean).toBeCloseTo(a.mean - b.mean, 12);
    expect(d.variance).toBeCloseTo(a.variance + b.variance, 10);
  });

  it('the query needs the listed totals of both: a summary-only opponent is too_complex before any work', () => {
    expect(() => checkDistribution({ formula: '1d20', versus: { formula: '100d1000' } })).toThrow(
      TooComplexError,
    );
    expect(() =>
      checkDistribution({ formula: '1d20', versus: { formula: '2d6', advantage: 'advantage' } }),
    ).not.toThrow();
    expect(() =>
      checkDistribution({ formula: '1000d6', versus: { formula: '1000d20kh3' } }, { costBudget: 1e6 }),
    ).toThrow(/units of work/);
  });
});

describe('targets', () => {
  it('each total asked gets its exact P(total >= t) and P(total <= t), in the order asked', () => {
    const request = { formula: '4d6kh3', targets: [15, 3, 2, 19, 12] };
    const answer = distribution(request);
    const truth = enumerate({ formula: '4d6kh3' }, 0);
    const sum = (keep: (total: number) => boolean) =>
      [...truth.counts].filter(([t]) => keep(t)).reduce((s, [, c]) => s + c, 0n);
    expect(answer.targets!.map((t) => t.total)).toEqual(request.targets);
    for (const t of answer.targets!) {
      expect(t.atLeastExact).toBe(
        fraction(
          sum((x) => x >= t.total),
          truth.denominator,
        ),
      );
      expect(t.atMostExact).toBe(
        fraction(
          sum((x) => x <= t.total),
          truth.denominator,
        ),
      );
    }
    expect(answer.targets![0]).toMatchObject({ atLeastExact: '25/108', atLeast: 25 / 108 });
    expect(answer.targets![1]!.atLeastExact).toBe('1/1');
    expect(answer.targets![3]!.atLeastExact).toBe('0/1');
    // Absent when not asked.
    expect(distribution({ formula: '4d6kh3' }).targets).toBeUndefined();
  });

  it('with a truncated listing, the tail is in neither', () => {
    const answer = distribution({ formula: '1d6!', depth: 1, targets: [1, 12] });
    expect(answer.targets![0]!.atLeastExact).toBe('35/36');
    expect(answer.targets![1]!.atMostExact).toBe('35/36');
  });

  it('at most 20, whole numbers, and a listing to read them from', () => {
    expect(() => distribution({ formula: '1d6', targets: Array.from({ length: 21 }, (_, i) => i) })).toThrow(
      RequestError,
    );
    expect(() => distribution({ formula: '1d6', targets: [1.5] })).toThrow(RequestError);
    expect(() => checkDistribution({ formula: '100d1000', targets: [50_000] })).toThrow(TooComplexError);
  });
});

describe('several formulas under one budget', () => {
  it('answers each as alone, in the order asked', () => {
    const requests = [{ formula: '2d6+3' }, { formula: '1d12+4', targets: [10] }, { formula: '4d6kh3' }];
    expect(distributions(requests).results).toEqual(requests.map((r) => distribution(r)));
  });

  it('refuses the set as a whole, before any work, when together they cost more than the budget', () => {
    const one = checkDistribution({ formula: '1000d20kh3' });
    const budget = { costBudget: one.cost * 2.5 };
    expect(() =>
      checkDistributions([{ formula: '1000d20kh3' }, { formula: '1000d20kh3' }], budget),
    ).not.toThrow();
    expect(() =>
      checkDistributions(
        [{ formula: '1000d20kh3' }, { formula: '1000d20kh3' }, { formula: '1000d20kh3' }],
        budget,
      ),
    ).toThrow(/together would take about/);
    expect(
      checkDistributions([{ formula: '1000d20kh3' }, { formula: '1000d20kh3' }], budget).cost,
    ).toBeCloseTo(2 * one.cost, 0);
  });

  it('takes 1 to 5', () => {
    expect(() => distributions([])).toThrow(RequestError);
    expect(() => distributions(Array.from({ length: 6 }, () => ({ formula: '1d6' })))).toThrow(RequestError);
  });
});

describe("the roll's own moments, whatever the depth listed", () => {
  it('2d6! at depth 3: mean 8.4 and variance 21.28, those of the whole roll', () => {
    const shallow = distribution({ formula: '2d6!', depth: 3 });
    const whole = distribution({ formula: '2d6!', depth: 100 });
    expect(whole.truncation).toBeNull();
    expect(shallow.truncation).not.toBeNull();
    expect(shallow.moments).toBe('roll');
    expect([shallow.meanExact, shallow.varianceExact]).toEqual([whole.meanExact, whole.varianceExact]);
    expect(shallow.mean).toBe(8.4);
    expect(shallow.variance).toBeCloseTo(21.28, 12);
  });

  it.each(['1d6!+1d4', '(1d6!)*2', '2d4!kh1', 'max(1d4!, 2)'])(
    '%s at depth 1 has the moments of every roll the real roller can make',
    (formula) => {
      const truth = enumerate({ formula }, 100, 200_000, true);
      expect(truth.tail).toBe(0n);
      let s0 = 0n;
      let s1 = 0n;
      let s2 = 0n;
      for (const [t, c] of truth.counts) {
        s0 += c;
        s1 += BigInt(t) * c;
        s2 += BigInt(t) * BigInt(t) * c;
      }
      const answer = distribution({ formula, depth: 1 });
      expect(answer.truncation).not.toBeNull();
      expect(answer.moments).toBe('roll');
      expect(answer.meanExact).toBe(fraction(s1, s0));
      expect(answer.varianceExact).toBe(fraction(s0 * s2 - s1 * s1, s0 * s0));
    },
  );

  it.each([
    ['4d6!kh3', 3],
    ['4d6!kl2', 2],
    ['3d6!!kh2', 1],
    ['3d6r1!kh2', 2],
    ['3d4!kl1', 0],
    ['5d4!dl2', 1],
    ['4d6!pkh2', 1],
    ['3d8!kl2', 1],
    ['2d6!+4d4!kh2-3', 1],
    ['3d4r1!kh2', 0],
  ])(
    '%s at depth %i keeps the moments of its whole listing at the cap (the keep walked for moments only)',
    (formula, depth) => {
      const whole = distribution({ formula, depth: 100 });
      expect(whole.truncation).toBeNull();
      const shallow = distribution({ formula, depth });
      expect(shallow.truncation).not.toBeNull();
      expect(shallow.moments).toBe('roll');
      expect([shallow.meanExact, shallow.varianceExact]).toEqual([whole.meanExact, whole.varianceExact]);
    },
  );

  it("5d10!kh3, whose whole listing is over the budget, has the whole roll's moments, which deeper listings approach", () => {
    const answer = distribution({ formula: '5d10!kh3', depth: 2 });
    expect(answer.moments).toBe('roll');
    expect(() => distribution({ formula: '5d10!kh3', depth: 100 })).toThrow(TooComplexError);
    const [n, d] = answer.meanExact.split('/').map(BigInt) as [bigint, bigint];
    const [vn, vd] = answer.varianceExact.split('/').map(BigInt) as [bigint, bigint];
    // A listing at depth 40 leaves 5e-41 of the mass; its listed moments agree to far below a double's step.
    const deep = distribution({ formula: '5d10!kh3', depth: 40 });
    expect(deep.truncation!.tailProbability).toBeLessThan(1e-40);
    const listedMean = (deep.outcomes as Array<{ total: number; probability: number }>).reduce(
      (sum, o) => sum + o.total * o.probability,
      0,
    );
    expect(Math.abs(listedMean - Number((n * 10n ** 15n) / d) / 1e15)).toBeLessThan(1e-9);
    expect(Math.abs(deep.variance - Number((vn * 10n ** 15n) / vd) / 1e15)).toBeLessThan(1e-9);
    expect(answer.mean).toBe(distribution({ formula: '5d10!kh3' }).mean);
  });

  it('when the whole roll costs more than the budget, the listed moments stand and say so', () => {
    const answer = distribution({ formula: '5d10!kh3' }, { costBudget: 5e7 });
    expect(answer.moments).toBe('listed');
    expect(distribution({ formula: '4d6kh3' }).moments).toBe('roll');
  });
});

// The benchmark's arithmetic: a wrong median or an inverted ratio would report a pass that is not.
import { describe, expect, it } from 'vitest';
import {
  describeTarget,
  median,
  meetsTarget,
  percentile,
  ratioOfRounds,
  roundOrder,
  spread,
} from '../../../scripts/bench/stats.js';

describe('median', () => {
  it('takes the middle of an odd count and the mean of the middle pair of an even one, unsorted input', () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('does not reorder its argument and refuses an empty list', () => {
    const rounds = [3, 1, 2];
    median(rounds);
    expect(rounds).toEqual([3, 1, 2]);
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('ratioOfRounds', () => {
  it('is ours over theirs, paired by round, median over rounds', () => {
    // Per round: 2, 0.5, 3 -> median 2.
    expect(ratioOfRounds([200, 50, 300], [100, 100, 100])).toBe(2);
    // Per-round quotients 1, 1, 1 while the machine slows down: pairing cancels the drift.
    expect(ratioOfRounds([100, 50, 25], [100, 50, 25])).toBe(1);
    expect(ratioOfRounds([10, 40], [20, 20])).toBe(1.25);
  });

  it('refuses rounds that do not pair up', () => {
    expect(() => ratioOfRounds([1, 2], [1])).toThrow(RangeError);
    expect(() => ratioOfRounds([], [])).toThrow(RangeError);
  });
});

describe('spread', () => {
  it('is (max - min) / median', () => {
    expect(spread([90, 100, 110])).toBeCloseTo(0.2, 12);
    expect(spread([5, 5, 5])).toBe(0);
  });
});

describe('percentile', () => {
  it('uses the nearest rank over the first count entries only', () => {
    const sample = Float64Array.from([5, 1, 4, 2, 3, 1000, 1000]);
    expect(percentile(sample, 0.5, 5)).toBe(3);
    expect(percentile(sample, 0.99, 5)).toBe(5);
    expect(percentile(sample, 0, 5)).toBe(1);
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(hundred, 0.99)).toBe(99);
  });
});

describe('roundOrder', () => {
  it('rotates by one each round, so every contender leads once per cycle', () => {
    const contenders = ['a', 'b', 'c'];
    expect(roundOrder(contenders, 0)).toEqual(['a', 'b', 'c']);
    expect(roundOrder(contenders, 1)).toEqual(['b', 'c', 'a']);
    expect(roundOrder(contenders, 5)).toEqual(['c', 'a', 'b']);
    expect(new Set([0, 1, 2].map((round) => roundOrder(contenders, round)[0]))).toEqual(new Set(contenders));
  });
});

describe('targets', () => {
  it('checks at-least and at-most bounds and fails a missing number', () => {
    expect(meetsTarget(0.5, { min: 0.5 })).toBe(true);
    expect(meetsTarget(0.49, { min: 0.5 })).toBe(false);
    expect(meetsTarget(2.1, { max: 2 })).toBe(false);
    expect(meetsTarget(Number.NaN, { min: 0 })).toBe(false);
    expect(describeTarget({ min: 4 })).toBe('>= 4');
    expect(describeTarget({ max: 2 })).toBe('<= 2');
  });
});

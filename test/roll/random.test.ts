// The sampler: no modulo bias (proved exhaustively over small words), fairness of the real
// CSPRNG (chi-square at alpha 1e-6), pooling, and failures.

import { describe, expect, it } from 'vitest';
import {
  createCryptoRandom,
  createSampler,
  cryptoRandom,
  RandomSourceError,
  roll,
  type SamplingMethod,
  WordSampler,
} from '../../src/index.js';
import { ALPHA, chiSquareCritical, chiSquareSurvival } from '../support/chi-square.js';

class WordsExhausted extends Error {}

/** Feeds every word of `wordBits` bits once, in order; returns how often each face came up. */
function facesOverEveryWord(sides: number, wordBits: number, method?: SamplingMethod): number[] {
  const range = 2 ** wordBits;
  let next = 0;
  const sampler = createSampler(
    () => {
      if (next === range) throw new WordsExhausted();
      return next++;
    },
    wordBits,
    method,
  );
  const counts = new Array<number>(sides + 1).fill(0);
  for (;;) {
    try {
      counts[sampler.die(sides)]!++;
    } catch (error) {
      // The sampler reports any failure of its words as the random source's failure.
      if (error instanceof RandomSourceError && error.cause instanceof WordsExhausted) break;
      throw error;
    }
  }
  return counts;
}

describe('no modulo bias', () => {
  it.each(['multiply', 'modulo'] as const)(
    'every face of every die from d1 to d256 gets exactly the same share of all 8-bit words (%s)',
    (method) => {
      for (let sides = 1; sides <= 256; sides++) {
        const counts = facesOverEveryWord(sides, 8, method);
        const share = Math.floor(256 / sides);
        expect(counts[0], `d${sides} never shows 0`).toBe(0);
        for (let face = 1; face <= sides; face++) {
          if (counts[face] !== share) {
            expect.fail(`d${sides}: face ${face} came up ${counts[face]} times, expected ${share}`);
          }
        }
      }
    },
  );

  it('holds for every smaller word width too (d1..d2^bits for 1..7 bits, both methods)', () => {
    for (const method of ['multiply', 'modulo'] as const) {
      for (let bits = 1; bits <= 7; bits++) {
        const range = 2 ** bits;
        for (let sides = 1; sides <= range; sides++) {
          const counts = facesOverEveryWord(sides, bits, method);
          expect(new Set(counts.slice(1))).toEqual(new Set([Math.floor(range / sides)]));
        }
      }
    }
  });

  it('fill() gives exactly the faces of the same number of die() calls', () => {
    const words = Array.from({ length: 5000 }, (_, i) => (i * 2654435761) % 2 ** 32);
    for (const sides of [1, 6, 20, 100, 2 ** 21, 2 ** 21 + 1, 2 ** 32]) {
      const wordSource = () => {
        let at = 0;
        return (pool: Uint32Array) => {
          pool.set(words.slice(at, at + pool.length));
          at += pool.length;
        };
      };
      const one = new WordSampler(wordSource(), 32, 7);
      const many = new WordSampler(wordSource(), 32, 7);
      const target: number[] = [];
      many.fill(sides, target, 500);
      expect(target).toEqual(Array.from({ length: 500 }, () => one.die(sides)));
    }
  });

  it('a naive word % sides would have been biased (the test above can fail)', () => {
    const counts = new Array<number>(7).fill(0);
    for (let word = 0; word < 256; word++) counts[(word % 6) + 1]!++;
    expect(new Set(counts.slice(1)).size).toBeGreaterThan(1);
  });

  it('rejects exactly the words that would favour a face', () => {
    // modulo, d6 over 8-bit words: words 252..255 are redrawn.
    const high = [255, 254, 253, 252, 251, 0];
    let i = 0;
    const modulo = createSampler(() => high[i++]!, 8, 'modulo');
    expect(modulo.die(6)).toBe((251 % 6) + 1);
    expect(i).toBe(5);
    expect(modulo.die(6)).toBe(1);
    // multiply, d6 over 8-bit words: 6w mod 256 < 256 mod 6 = 4 for w = 0, 43, 128, 171 only.
    const low = [0, 43, 128, 171, 255, 1];
    let j = 0;
    const multiply = createSampler(() => low[j++]!, 8, 'multiply');
    expect(multiply.die(6)).toBe(Math.floor((255 * 6) / 256) + 1);
    expect(j).toBe(5);
    expect(multiply.die(6)).toBe(1);
  });

  it('refuses sides outside 1..2^bits and raw words outside the width', () => {
    const sampler = createSampler(() => 3, 8);
    for (const sides of [0, 257, 2.5, Number.NaN]) expect(() => sampler.die(sides)).toThrow(RangeError);
    // A word outside the width is the source failing: a RandomSourceError, the RangeError its cause.
    expect(() => createSampler(() => 256, 8).die(6)).toThrow(
      expect.objectContaining({ name: 'RandomSourceError', cause: expect.any(RangeError) }),
    );
    expect(() => createSampler(() => 1, 33)).toThrow(RangeError);
  });
});

// --- chi-square -------------------------------------------------------------------------------

function chiSquare(sides: number, rolls: number): number {
  const random = createCryptoRandom();
  const counts = new Float64Array(sides + 1);
  for (let i = 0; i < rolls; i++) counts[random.die(sides)]!++;
  expect(counts[0]).toBe(0);
  const expected = rolls / sides;
  let statistic = 0;
  for (let face = 1; face <= sides; face++) statistic += (counts[face]! - expected) ** 2 / expected;
  return statistic;
}

describe('fairness of the real CSPRNG (chi-square, alpha 1e-6)', () => {
  it('the critical values are right (chi-square tables: d6 35.888, d20 63.677)', () => {
    expect(chiSquareCritical(5, ALPHA)).toBeCloseTo(35.888, 2);
    expect(chiSquareCritical(19, ALPHA)).toBeCloseTo(63.677, 2);
    // d100, 99 degrees of freedom: 180.79 (the survival function confirms it both ways).
    const d100 = chiSquareCritical(99, ALPHA);
    expect(d100).toBeCloseTo(180.792, 2);
    expect(chiSquareSurvival(180.0, 99)).toBeGreaterThan(ALPHA);
    expect(chiSquareSurvival(181.5, 99)).toBeLessThan(ALPHA);
  });

  it('the test detects a byte % 6 bias at 1,000,000 rolls', () => {
    // Deterministic stand-in for a biased source: every byte value equally often, folded by % 6.
    const counts = new Float64Array(7);
    for (let i = 0; i < 1_000_000; i++) counts[(((i * 167) % 256) % 6) + 1]!++;
    let statistic = 0;
    for (let face = 1; face <= 6; face++) statistic += (counts[face]! - 1_000_000 / 6) ** 2 / (1_000_000 / 6);
    expect(statistic).toBeGreaterThan(chiSquareCritical(5, ALPHA));
  });

  it('d6 over 1,000,000 rolls', () => {
    expect(chiSquare(6, 1_000_000)).toBeLessThan(chiSquareCritical(5, ALPHA));
  });

  it('d20 over 200,000 rolls', () => {
    expect(chiSquare(20, 200_000)).toBeLessThan(chiSquareCritical(19, ALPHA));
  });

  it('d100 over 1,000,000 rolls', () => {
    expect(chiSquare(100, 1_000_000)).toBeLessThan(chiSquareCritical(99, ALPHA));
  });
});

describe('the pooled source', () => {
  it('gives faces in 1..sides for every size up to 2^32', () => {
    for (const sides of [1, 2, 3, 6, 20, 100, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32]) {
      for (let i = 0; i < 200; i++) {
        const face = cryptoRandom.die(sides);
        expect(Number.isInteger(face) && face >= 1 && face <= sides).toBe(true);
      }
    }
  });

  it('reaches the top half of a d2^32 (no truncation to 31 bits)', () => {
    let high = 0;
    for (let i = 0; i < 200; i++) if (cryptoRandom.die(2 ** 32) > 2 ** 31) high++;
    expect(high).toBeGreaterThan(50);
    expect(high).toBeLessThan(150);
  });

  it('refills its pool when it runs out', () => {
    let refills = 0;
    const sampler = new WordSampler(
      (pool) => {
        refills++;
        pool.fill(refills);
      },
      32,
      4,
    );
    const faces = Array.from({ length: 10 }, () => sampler.die(2 ** 32));
    expect(faces).toEqual([2, 2, 2, 2, 3, 3, 3, 3, 4, 4]);
    expect(refills).toBe(3);
  });

  it('a failing refill surfaces from roll as RandomSourceError', () => {
    const broken = new WordSampler(
      () => {
        throw new Error('no entropy');
      },
      32,
      16,
    );
    expect(() => roll({ formula: '1d6' }, { random: broken })).toThrow(RandomSourceError);
  });
});

// Both rejection methods of the word sampler, proved exact: every raw word of a small width goes
// through the multiply method, and the modulo method (dice above 2^21 sides) is checked word by word.
import { describe, expect, it } from 'vitest';
import { createSampler } from '../../src/roll/random.js';

class WordsExhausted extends Error {}

/** Faces obtained by feeding every word of `wordBits` bits once, in order, to a die of `sides`. */
function facesFromEveryWord(wordBits: number, sides: number): number[] {
  const range = 2 ** wordBits;
  let next = 0;
  const sampler = createSampler(() => {
    if (next === range) throw new WordsExhausted();
    return next++;
  }, wordBits);
  const counts = new Array<number>(sides + 1).fill(0);
  for (;;) {
    try {
      counts[sampler.die(sides)]!++;
    } catch (error) {
      if (error instanceof WordsExhausted) return counts;
      throw error;
    }
  }
}

describe('multiply method (every die up to 2^21 sides with 32-bit words)', () => {
  it('gives every face exactly floor(2^bits / sides) words, for every width up to 10 bits and every die', () => {
    for (let wordBits = 1; wordBits <= 10; wordBits++) {
      const range = 2 ** wordBits;
      for (let sides = 1; sides <= range; sides++) {
        const counts = facesFromEveryWord(wordBits, sides);
        const share = Math.floor(range / sides);
        expect(counts[0]).toBe(0);
        for (let face = 1; face <= sides; face++) {
          if (counts[face] !== share) {
            throw new Error(
              `${wordBits}-bit words, d${sides}: face ${face} came ${counts[face]} times, not ${share}`,
            );
          }
        }
      }
    }
  });

  it('maps 32-bit words by their high part and rejects the low sliver', () => {
    // d6: threshold 2^32 % 6 = 4. Word 0 has low part 0 (rejected); 2^31 + 1 gives 3 * 2^32 + 6: face 4.
    const words = [0, 2 ** 31 + 1, 2 ** 32 - 1];
    const sampler = createSampler(() => words.shift()!, 32);
    expect(sampler.die(6)).toBe(4);
    expect(sampler.die(6)).toBe(6);
  });
});

describe('modulo method (dice above 2^21 sides)', () => {
  it('rejects the words at or past the last whole multiple of the sides, and takes the rest modulo', () => {
    // d3,000,000: 2^32 % 3e6 = 1,967,296, so words from 4,293,000,000 up are rejected.
    const words = [4_294_967_295, 4_293_000_000, 4_292_999_999, 7];
    const sampler = createSampler(() => words.shift()!, 32);
    expect(sampler.die(3_000_000)).toBe(3_000_000);
    expect(sampler.die(3_000_000)).toBe(8);
  });

  it('uses every word for a die of 2^32 sides', () => {
    const words = [0, 4_294_967_295];
    const sampler = createSampler(() => words.shift()!, 32);
    expect(sampler.die(2 ** 32)).toBe(1);
    expect(sampler.die(2 ** 32)).toBe(2 ** 32);
  });
});

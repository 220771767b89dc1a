// The production random source: uniform dice from node:crypto, without modulo bias, drawn from a
// pooled buffer of 32-bit words so a die costs a few nanoseconds instead of a system call.

import { randomFillSync } from 'node:crypto';
import type { RandomSource } from './types.js';

/** Words fetched per refill: 64 KiB of randomness, so refills are rare and cheap per word. */
const POOL_WORDS = 16_384;

/**
 * Turns uniform raw words of `wordBits` bits into uniform dice by rejection sampling: of the
 * 2^wordBits possible words, only the first `limit = range - range % sides` are used (an exact
 * multiple of `sides`), so every face is hit by exactly `limit / sides` words; the rest are
 * rejected and redrawn. A die therefore never favours low faces, whatever its number of sides.
 */
export class WordSampler implements RandomSource {
  readonly range: number;
  private readonly pool: Uint32Array;
  private next: number;
  /** The last sides asked for and its acceptance limit: dice of a group share their sides. */
  private cachedSides = 0;
  private cachedLimit = 0;

  constructor(
    private readonly refill: (pool: Uint32Array) => void,
    wordBits: number,
    poolWords: number,
  ) {
    if (!Number.isInteger(wordBits) || wordBits < 1 || wordBits > 32) {
      throw new RangeError('wordBits must be an integer from 1 to 32');
    }
    this.range = 2 ** wordBits;
    this.pool = new Uint32Array(poolWords);
    // Start exhausted, so the first die fills the pool (no randomness is drawn at import time).
    this.next = poolWords;
  }

  /** A uniform integer in [1, sides]; sides is an integer from 1 to 2^wordBits. */
  die(sides: number): number {
    if (sides !== this.cachedSides) this.accept(sides);
    const limit = this.cachedLimit;
    const pool = this.pool;
    for (;;) {
      if (this.next === pool.length) {
        this.refill(pool);
        this.next = 0;
      }
      const word = pool[this.next++]!;
      if (word < limit) return (word % sides) + 1;
    }
  }

  private accept(sides: number): void {
    if (!(sides >= 1 && sides <= this.range) || Math.floor(sides) !== sides) {
      throw new RangeError(`sides must be an integer from 1 to ${this.range}`);
    }
    this.cachedSides = sides;
    this.cachedLimit = this.range - (this.range % sides);
  }
}

/**
 * A sampler over any source of raw words of `wordBits` bits (each in [0, 2^wordBits)), one word
 * per call. Runs the same rejection code as the production source; tests feed it every word of
 * a small width to prove there is no bias.
 */
export function createSampler(nextWord: () => number, wordBits: number): RandomSource {
  const range = 2 ** wordBits;
  return new WordSampler(
    (pool) => {
      const word = nextWord();
      if (!(word >= 0 && word < range) || Math.floor(word) !== word) {
        throw new RangeError(`a raw word must be an integer in [0, ${range})`);
      }
      pool[0] = word;
    },
    wordBits,
    1,
  );
}

/** A fresh pooled CSPRNG sampler (its own 64 KiB pool). */
export function createCryptoRandom(poolWords: number = POOL_WORDS): RandomSource {
  return new WordSampler((pool) => randomFillSync(pool), 32, poolWords);
}

/** The default random source of every roll: node:crypto, pooled, unbiased. */
export const cryptoRandom: RandomSource = createCryptoRandom();

// The production random source: uniform dice from node:crypto, without modulo bias, drawn from a
// pooled buffer of 32-bit words so a die costs a few nanoseconds instead of a system call.

import { randomFillSync } from 'node:crypto';
import { RandomSourceError } from '../errors.js';
import type { RandomSource } from './types.js';

/** Words fetched per refill: 64 KiB of randomness, so refills are rare and cheap per word. */
const POOL_WORDS = 16_384;

/** The two exact ways to turn a word into a face (both unbiased; see WordSampler). */
export type SamplingMethod = 'multiply' | 'modulo';

/**
 * Turns uniform raw words of `wordBits` bits (range R = 2^wordBits) into uniform dice of
 * `sides` faces by rejection sampling, so no face is ever favoured:
 *
 * - multiply (Lemire's method), used whenever `word * sides` is exact in a double
 *   (R * sides <= 2^53, i.e. up to 2^21 sides for 32-bit words): face = floor(word * sides / R)
 *   + 1, rejecting the word when (word * sides) mod R < R mod sides. Exactly floor(R / sides)
 *   words remain for every face. One multiplication and no division per die: a variable `%` is a
 *   hardware division, which would dominate the cost of a die.
 * - modulo, for larger dice: only the first `R - R % sides` words are used (an exact multiple of
 *   `sides`), face = word % sides + 1; the rest are redrawn.
 */
export class WordSampler implements RandomSource {
  readonly range: number;
  private readonly scale: number;
  private readonly multiplyMaxSides: number;
  private readonly pool: Uint32Array;
  private next: number;
  /** The last sides asked for and its rejection bound: dice of a group share their sides. */
  private cachedSides = -1;
  /** multiply: the least acceptable `(word * sides) mod R`; modulo: the first rejected word. */
  private cachedBound = 0;

  constructor(
    private readonly refill: (pool: Uint32Array) => void,
    wordBits: number,
    poolWords: number,
    /** Force one method (tests prove both exhaustively); by default the faster exact one. */
    method?: SamplingMethod,
  ) {
    if (!Number.isInteger(wordBits) || wordBits < 1 || wordBits > 32) {
      throw new RangeError('wordBits must be an integer from 1 to 32');
    }
    this.range = 2 ** wordBits;
    this.scale = 1 / this.range;
    this.multiplyMaxSides = method === 'modulo' ? 0 : 2 ** (53 - wordBits);
    this.pool = new Uint32Array(poolWords);
    // Start exhausted, so the first die fills the pool (no randomness is drawn at import time).
    this.next = poolWords;
  }

  /**
   * Refills the pool from the source of randomness; its failure is the one error a roll maps to
   * "the random source failed" (anything else thrown while rolling is a fault of fairdice).
   */
  private refillPool(): void {
    try {
      this.refill(this.pool);
    } catch (cause) {
      throw new RandomSourceError({ cause });
    }
  }

  /** A uniform integer in [1, sides]; sides is an integer from 1 to 2^wordBits. */
  die(sides: number): number {
    // Small on purpose, so V8 reliably inlines it into a caller's loop: the common case (a die
    // of the last size asked, the multiply method, a word left in the pool, no rejection) is a
    // few instructions; everything else goes through slowDie().
    if (sides === this.cachedSides && sides <= this.multiplyMaxSides && this.next < this.pool.length) {
      const product = this.pool[this.next]! * sides;
      const face = Math.floor(product * this.scale);
      if (product - face * this.range >= this.cachedBound) {
        this.next++;
        // `| 0`: faces here are below 2^27, and an int32 keeps V8's result arrays integer arrays.
        return (face + 1) | 0;
      }
    }
    return this.slowDie(sides);
  }

  private slowDie(sides: number): number {
    if (sides !== this.cachedSides) this.accept(sides);
    const bound = this.cachedBound;
    const pool = this.pool;
    if (sides <= this.multiplyMaxSides) {
      const range = this.range;
      const scale = this.scale;
      for (;;) {
        if (this.next === pool.length) {
          this.refillPool();
          this.next = 0;
        }
        const product = pool[this.next++]! * sides;
        const face = Math.floor(product * scale);
        if (product - face * range >= bound) return (face + 1) | 0;
      }
    }
    for (;;) {
      if (this.next === pool.length) {
        this.refillPool();
        this.next = 0;
      }
      const word = pool[this.next++]!;
      if (word < bound) return (word % sides) + 1;
    }
  }

  /**
   * Writes `count` dice into `target[0..count)`, exactly as `count` calls of die() would, with
   * the pool position kept in a local so a large group costs about two nanoseconds per die.
   */
  fill(sides: number, target: number[], count: number): void {
    if (sides !== this.cachedSides) this.accept(sides);
    if (sides > this.multiplyMaxSides) {
      for (let d = 0; d < count; d++) target[d] = this.die(sides);
      return;
    }
    const bound = this.cachedBound;
    const pool = this.pool;
    const size = pool.length;
    const range = this.range;
    const scale = this.scale;
    let next = this.next;
    let d = 0;
    while (d < count) {
      if (next === size) {
        this.next = next;
        this.refillPool();
        next = 0;
      }
      const product = pool[next++]! * sides;
      const face = Math.floor(product * scale);
      if (product - face * range >= bound) target[d++] = (face + 1) | 0;
    }
    this.next = next;
  }

  private accept(sides: number): void {
    if (!(sides >= 1 && sides <= this.range) || Math.floor(sides) !== sides) {
      throw new RangeError(`sides must be an integer from 1 to ${this.range}`);
    }
    this.cachedSides = sides;
    this.cachedBound =
      sides <= this.multiplyMaxSides ? this.range % sides : this.range - (this.range % sides);
  }
}

/**
 * A sampler over any source of raw words of `wordBits` bits (each in [0, 2^wordBits)), one word
 * per call. Runs the same rejection code as the production source; tests feed it every word of
 * a small width to prove there is no bias.
 */
export function createSampler(
  nextWord: () => number,
  wordBits: number,
  method?: SamplingMethod,
): RandomSource {
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
    method,
  );
}

/** A fresh pooled CSPRNG sampler (its own 64 KiB pool). */
export function createCryptoRandom(poolWords: number = POOL_WORDS): RandomSource {
  return new WordSampler((pool) => randomFillSync(pool), 32, poolWords);
}

/** The default random source of every roll: node:crypto, pooled, unbiased. */
export const cryptoRandom: RandomSource = createCryptoRandom();

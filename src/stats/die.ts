// One die as the roller throws it (docs/stats.md): rerolls on its own throws (at most `limit`
// times, the last throw standing), then an explosion chain from its final throw (at most 100
// extras), as exact integer weights of its value over one denominator. Chains longer than the
// listing depth are not listed: their mass is the die's `tail`, never folded into a value.

import { LIMITS } from '../limits.js';
import { gcd } from './exact.js';
import { multiply, power } from './poly.js';

/** How one die of a group is thrown: the roll plan's fields, as the engine reads them. */
export interface DieSpec {
  sides: number;
  /** 0: no explosion; 1: explode (`!`); 2: penetrate (`!p`, every extra recorded minus 1). */
  explode: 0 | 1 | 2;
  /** Rerolls allowed per die: 0, 1 (`ro`) or the reroll cap (`r`). */
  rerollLimit: number;
  /** Faces rerolled: rerollLow <= face <= rerollHigh (empty when low > high). */
  rerollLow: number;
  rerollHigh: number;
}

/** A distribution over consecutive integer values `min + i`, with mass left out as `tail`. */
export interface DieCounts {
  min: number;
  counts: bigint[];
  /** Mass of the chains that go deeper than the listing depth. */
  tail: bigint;
  /** counts + tail sum to this. */
  denominator: bigint;
}

/** Faces of the die that a reroll condition rerolls. */
export function rerolledFaces(spec: DieSpec): number {
  if (spec.rerollLimit === 0) return 0;
  const low = Math.max(spec.rerollLow, 1);
  const high = Math.min(spec.rerollHigh, spec.sides);
  return high >= low ? high - low + 1 : 0;
}

/**
 * Weights of the final throw over sides^(limit+1): a face that is never rerolled is reached
 * after k rerolls of met faces (k = 0..limit); a met face stands only after `limit` rerolls.
 */
export function finalThrowWeights(spec: DieSpec): { kept: bigint; met: bigint; denominator: bigint } {
  const s = BigInt(spec.sides);
  const m = BigInt(rerolledFaces(spec));
  if (m === 0n) return { kept: 1n, met: 0n, denominator: s };
  const limit = BigInt(spec.rerollLimit);
  // sum_{k=0}^{limit} m^k s^(limit-k) = (s^(limit+1) - m^(limit+1)) / (s - m); s > m always.
  const kept = (s ** (limit + 1n) - m ** (limit + 1n)) / (s - m);
  return { kept, met: m ** limit, denominator: s ** (limit + 1n) };
}

/** Whether a face is one the reroll condition rerolls (and the die has rerolls). */
export function isRerolled(spec: DieSpec, face: number): boolean {
  return spec.rerollLimit > 0 && face >= spec.rerollLow && face <= spec.rerollHigh;
}

/** Probability (as a double) that a die's final throw shows its top face: explosion starts. */
export function topFaceProbability(spec: DieSpec): number {
  const w = finalThrowWeights(spec);
  const top = isRerolled(spec, spec.sides) ? w.met : w.kept;
  return Number(top) / Number(w.denominator) || 2 ** -1074;
}

/**
 * The die's value distribution, listing chains of at most `depth` explosion extras (0..100).
 * Only for dice whose values can be listed (the caller checks the size first).
 */
export function dieCounts(spec: DieSpec, depth: number): DieCounts {
  const { sides, explode } = spec;
  const w = finalThrowWeights(spec);
  const weightOf = (face: number) => (isRerolled(spec, face) ? w.met : w.kept);
  const cap = LIMITS.explodeCap;
  const extras = explode === 0 ? 0 : Math.min(depth, cap);
  const s = BigInt(sides);
  const levelScale = s ** BigInt(extras);
  const penalty = explode === 2 ? 1 : 0;
  const lastValue = explode === 0 ? sides : sides + extras * sides;
  const counts: bigint[] = new Array(lastValue).fill(0n);
  const top = explode === 0 ? sides : sides - 1;
  for (let face = 1; face <= top; face++) counts[face - 1] = weightOf(face) * levelScale;
  let tail = 0n;
  if (explode !== 0) {
    const topWeight = weightOf(sides);
    // Chains of j extras: the first j-1 extras show the top face, the j-th stops the chain
    // (any face when j is the cap: the chain ends there whatever it shows).
    let scale = levelScale;
    for (let j = 1; j <= extras; j++) {
      scale /= s;
      const base = sides + (j - 1) * (sides - penalty) - penalty;
      const lastFace = j === cap ? sides : sides - 1;
      const weight = topWeight * scale;
      for (let r = 1; r <= lastFace; r++) counts[base + r - 1] = counts[base + r - 1]! + weight;
    }
    if (extras < cap) tail = topWeight;
  }
  const denominator = w.denominator * levelScale;
  return reduce(trim({ min: 1, counts, tail, denominator }));
}

/** Drops zero counts at both ends (`min` moves with the first). */
export function trim(d: DieCounts): DieCounts {
  let first = 0;
  while (first < d.counts.length && d.counts[first] === 0n) first++;
  let last = d.counts.length - 1;
  while (last >= first && d.counts[last] === 0n) last--;
  if (first === 0 && last === d.counts.length - 1) return d;
  return { ...d, min: d.min + first, counts: d.counts.slice(first, last + 1) };
}

/** Divides every weight, the tail and the denominator by their common factor. */
export function reduce(d: DieCounts): DieCounts {
  let g = gcd(d.denominator, d.tail);
  for (const c of d.counts) {
    if (g === 1n) return d;
    g = gcd(g, c);
  }
  if (g <= 1n) return d;
  return {
    min: d.min,
    counts: d.counts.map((c) => c / g),
    tail: d.tail / g,
    denominator: d.denominator / g,
  };
}

/**
 * The sum of n exploding dice that are never rerolled, listing chains to `depth` (< the cap)
 * extras, by a factorisation: a chain of j extras ending on r (1..sides-1) is worth
 * j * (sides - penalty) + r, and a die that does not explode shows r itself, so a die's value is
 * step * J + R with J (extras, weight sides^(depth-j)) and R (uniform on 1..sides-1)
 * independent. The sum is then a small power of R times a spread power of J: far smaller
 * numbers than the power of the whole die; J's power is a power of small counts of ways times
 * one power of `sides` per value. Returns counts over `n + i` and the denominator.
 */
export function explodingSum(
  sides: number,
  penetrate: boolean,
  depth: number,
  n: number,
): { min: number; counts: bigint[]; denominator: bigint } {
  const s = BigInt(sides);
  const step = sides - (penetrate ? 1 : 0);
  const faces = power(new Array<bigint>(sides - 1).fill(1n), n);
  // J's distribution to the n: chain lengths adding to i over n dice, each way weighing
  // s^(n depth - i); the ways are counted with small numbers, the weight applied once.
  const ways = power(new Array<bigint>(depth + 1).fill(1n), n);
  const extras: bigint[] = new Array(ways.length);
  let weight = 1n;
  for (let i = ways.length - 1; i >= 0; i--) {
    extras[i] = ways[i]! * weight;
    weight *= s;
  }
  const length = faces.length - 1 + (extras.length - 1) * step + 1;
  let counts: bigint[];
  if (faces.length * extras.length <= 200_000) {
    counts = new Array<bigint>(length).fill(0n);
    for (let k = 0; k < extras.length; k++) {
      const weight = extras[k]!;
      const at = k * step;
      for (let a = 0; a < faces.length; a++) counts[at + a] = counts[at + a]! + weight * faces[a]!;
    }
  } else {
    const spread = new Array<bigint>((extras.length - 1) * step + 1).fill(0n);
    for (let k = 0; k < extras.length; k++) spread[k * step] = extras[k]!;
    counts = multiply(spread, faces);
  }
  return { min: n, counts, denominator: s ** BigInt(n * (depth + 1)) };
}

// --- any die of the language -------------------------------------------------------------------

/**
 * A die as the roller throws it, for every form of the language: each of its `sides` equally
 * likely face slots shows `values[i]` (the face, custom or 1..sides, already clamped); a value
 * in the reroll condition is rerolled (at most `rerollLimit` times), then a final value in the
 * explode condition throws extras (at most 100), each recorded minus `penalty` and tested on
 * its clamped value before the penalty. Compounding merges a chain into one value: the same
 * value as an exploding chain, counted as one result.
 */
export interface GeneralDie {
  sides: number;
  values: readonly number[];
  rerollLimit: number;
  rerolled: readonly boolean[];
  explodes: readonly boolean[];
  exploding: boolean;
  penalty: number;
  compound: boolean;
}

/** A die's contribution, keyed: `init` maps its final throw's value, `extra` an extra's tested value. */
export interface ChainKeys {
  init: (value: number) => number;
  extra: (value: number) => number;
}

/** Sparse polynomial over integer keys: key -> weight. */
type Sparse = Map<number, bigint>;

function addTo(target: Sparse, key: number, weight: bigint): void {
  if (weight === 0n) return;
  target.set(key, (target.get(key) ?? 0n) + weight);
}

function sparseTimes(a: Sparse, b: Sparse): Sparse {
  const out: Sparse = new Map();
  for (const [ka, wa] of a) for (const [kb, wb] of b) addTo(out, ka + kb, wa * wb);
  return out;
}

/**
 * The distribution of one die's keyed contribution (the sum of init(final value) and
 * extra(tested value) over its extras), listing chains of at most `depth` extras; deeper chains
 * are the tail. Counts over consecutive keys from `min`.
 */
export function chainCounts(die: GeneralDie, depth: number, keys: ChainKeys): DieCounts {
  const s = BigInt(die.sides);
  let met = 0n;
  for (let i = 0; i < die.sides; i++) if (die.rerolled[i]) met++;
  const limit = BigInt(die.rerollLimit);
  // Final throw weights over sides^(limit+1): as finalThrowWeights, per face slot.
  const keptWeight = met === 0n ? 1n : (s ** (limit + 1n) - met ** (limit + 1n)) / (s - met);
  const metWeight = met === 0n ? 0n : met ** limit;
  const throwDenominator = met === 0n ? s : s ** (limit + 1n);
  const cap = LIMITS.explodeCap;
  const extras = die.exploding ? Math.min(depth, cap) : 0;
  let scale = s ** BigInt(extras);
  const result: Sparse = new Map();
  let chain: Sparse = new Map();
  const stop: Sparse = new Map();
  const go: Sparse = new Map();
  for (let i = 0; i < die.sides; i++) {
    const value = die.values[i]!;
    const weight = die.rerolled[i] ? metWeight : keptWeight;
    if (die.exploding && die.explodes[i]) {
      addTo(chain, keys.init(value), weight);
      addTo(go, keys.extra(value), 1n);
    } else {
      addTo(result, keys.init(value), weight * scale);
      if (die.exploding) addTo(stop, keys.extra(value), 1n);
    }
  }
  const any: Sparse = new Map(stop);
  for (const [k, w] of go) addTo(any, k, w);
  for (let j = 1; j <= extras && chain.size > 0; j++) {
    scale /= s;
    // Chains of j extras: the first j-1 extras explode, the j-th stops (any value at the cap).
    for (const [k, w] of sparseTimes(chain, j === cap ? any : stop)) addTo(result, k, w * scale);
    chain = j === cap ? new Map() : sparseTimes(chain, go);
  }
  let tail = 0n;
  for (const w of chain.values()) tail += w;
  const denominator = throwDenominator * s ** BigInt(extras);
  if (result.size === 0) return { min: 0, counts: [], tail, denominator };
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const k of result.keys()) {
    if (k < min) min = k;
    if (k > max) max = k;
  }
  const counts: bigint[] = new Array(max - min + 1).fill(0n);
  for (const [k, w] of result) counts[k - min] = w;
  return reduce({ min, counts, tail, denominator });
}

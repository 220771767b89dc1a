// Keep the k highest (or lowest) of n identical dice, exactly, without enumerating rolls: a
// dynamic program over the die's outcomes from the best down (icepool's method, Liu, "Icepool:
// Efficient Computation of Dice Pool Probabilities"). The state is how many dice have been
// placed so far (fewer than k) and the sum they keep; once k dice are placed the rest only
// need to be lower, which a closed binomial sum counts, so the work is about
// outcomes x k^2 operations on packed polynomials, not a walk over the n-dice multisets.
// Ties do not matter for a total: equal values kept in any order sum the same.

import type { DieCounts } from './die.js';
import { binomialRow, bitLength } from './exact.js';
import { power, unpack } from './poly.js';

/**
 * Distribution of the sum of the k kept dice of n (1 <= k < n), as counts over the values
 * `k * die.min + i`. A die in the die's tail (a chain deeper than the listing depth) counts as
 * higher than any listed value when `tailAbove` (the caller checks it): a roll that keeps one is
 * left out of the listing (its mass is the caller's tail); a roll that drops it is listed.
 */
export function keepDistribution(
  die: DieCounts,
  n: number,
  k: number,
  highest: boolean,
  tailAbove: boolean,
): { min: number; counts: bigint[] } {
  const maxIndex = die.counts.length - 1;
  // Positions count from the first outcome processed (the top one when keeping the highest), so
  // the packed sums start small and grow only as the walk goes on.
  const outcomes: Array<{ index: number; weight: bigint }> = [];
  for (let i = 0; i < die.counts.length; i++) {
    const weight = die.counts[i]!;
    if (weight !== 0n) outcomes.push({ index: highest ? maxIndex - i : i, weight });
  }
  if (highest) outcomes.reverse();
  const length = k * maxIndex + 1;
  // Slot width: every partial count is at most C(n, j) * denominator^j <= 2^n * denominator^n.
  const slotBits = 4 * Math.ceil((bitLength(die.denominator) * n + n + 8) / 4);
  const slot = BigInt(slotBits);
  // Below the current outcome in processing order: the later outcomes, plus (keeping the
  // lowest) the tail, whose dice are the highest and so may be dropped. When the tail's chains do
  // not all rank above the listed values, a roll with any die in the tail is left to the tail.
  let rest = highest || !tailAbove ? 0n : die.tail;
  for (const o of outcomes) rest += o.weight;

  // binomials[j][c] = C(n - j, c), c = 0..k.
  const binomials: bigint[][] = [];
  for (let j = 0; j < k; j++) {
    const row: bigint[] = [1n];
    for (let c = 1; c <= k; c++) row.push((row[c - 1]! * BigInt(n - j - c + 1)) / BigInt(c));
    binomials.push(row);
  }

  let placed: bigint[] = new Array<bigint>(k).fill(0n);
  placed[0] = 1n;
  let result = 0n;
  const weightPowers: bigint[] = new Array(k + 1);
  for (const { index, weight } of outcomes) {
    rest -= weight;
    const atMost = weight + rest;
    weightPowers[0] = 1n;
    for (let c = 1; c <= k; c++) weightPowers[c] = weightPowers[c - 1]! * weight;
    const next: bigint[] = new Array<bigint>(k).fill(0n);
    for (let j = 0; j < k; j++) {
      const state = placed[j]!;
      if (state === 0n) continue;
      const remaining = n - j;
      const row = binomials[j]!;
      // c more dice show this outcome, still fewer than k placed: all of them kept.
      let notFinished = 0n;
      for (let c = 0; c < k - j; c++) {
        const ways = row[c]! * weightPowers[c]!;
        next[j + c]! += c === 0 ? state : (state * ways) << (BigInt(c * index) * slot);
        notFinished += ways * rest ** BigInt(remaining - c);
      }
      // At least k - j more show it: k - j of them are kept, every other die is at most this.
      const finished = atMost ** BigInt(remaining) - notFinished;
      if (finished !== 0n) result += (state * finished) << (BigInt((k - j) * index) * slot);
    }
    placed = next;
  }
  const counts = unpack(result, slotBits / 4, length);
  return { min: k * die.min, counts: highest ? counts.reverse() : counts };
}

/**
 * Keep the k highest of n identical exploding dice that are never rerolled (1 <= k < n, at least
 * 2 sides, listing depth below the cap), by explosion levels instead of single values
 * (docs/stats.md, "Keeping the highest of exploding dice"). A die that explodes ranks above
 * every die that does not and is worth `step` (sides, or sides - 1 when penetrating) plus a
 * fresh die one level down; one that does not shows a plain face 1..sides-1. So at each level,
 * of the dice still in play, either at least k explode (the k kept are among them: one level
 * down) or f < k do (all f kept, with the k - f highest of the plain faces). Unrolled, the
 * listing is a sum over levels and f of closed forms: the fresh dice's sum is a power of the
 * one-die level polynomial E(y) = sum s^(d-j) y^j (y = x^step) times the plain faces, and
 * E(y) (s - y) = s^(d+1) - y^(d+1), so every level's part is a short sparse polynomial and one
 * exact division by (s - y) per kept exploded die at the end. Work: about levels x n^2 for the
 * level weights plus (k - f) x (sides - 2) x levels x (f + 1) per sector, on numbers of the
 * listing's size, instead of a walk over every listed value.
 *
 * Counts over the values `k + i`, over sides^((depth + 1) n); rolls with a chain deeper than
 * `depth` are left out (a deeper die is kept: it ranks above every listed value), as
 * keepDistribution with `tailAbove` lists them.
 */
export function explodingKeepHighest(
  sides: number,
  penetrate: boolean,
  depth: number,
  n: number,
  k: number,
): { min: number; counts: bigint[]; denominator: bigint } {
  const s = BigInt(sides);
  const step = sides - (penetrate ? 1 : 0);
  const D = depth;
  const powerCache: bigint[] = [1n];
  const sPower = (e: number): bigint => {
    while (powerCache.length <= e) powerCache.push(powerCache[powerCache.length - 1]! * s);
    return powerCache[e]!;
  };
  const binomial = Array.from({ length: n + 1 }, (_, e) => binomialRow(e));

  // A[L][e - k]: weight of reaching level L with e dice still in play (e >= k), every die
  // that left play on the way a plain face below them.
  const A: bigint[][] = [];
  let current: bigint[] = new Array<bigint>(n - k + 1).fill(0n);
  current[n - k] = 1n;
  A.push(current);
  for (let L = 0; L < D; L++) {
    const plain = BigInt(sides - 1) * sPower(D - L);
    const plainPowers: bigint[] = [1n];
    for (let i = 1; i <= n - k; i++) plainPowers.push(plainPowers[i - 1]! * plain);
    const next: bigint[] = new Array<bigint>(n - k + 1).fill(0n);
    for (let f = k; f <= n; f++) {
      let sum = 0n;
      for (let e = f; e <= n; e++) {
        const a = current[e - k]!;
        if (a !== 0n) sum += a * binomial[e]![f]! * plainPowers[e - f]!;
      }
      next[f - k] = sum;
    }
    current = next;
    A.push(current);
  }

  // Sector f: at some level, f < k dice explode and stop the descent. Its part is
  // Q(x)^f / (s - y)^f * sum_m H(m, k - f)(x) Z_{f,m}(y), with Z sparse (see above).
  const faces = new Array<bigint>(sides - 1).fill(1n);
  const plainDie: DieCounts = { min: 1, counts: faces, tail: 0n, denominator: BigInt(sides - 1) };
  const length = k * (step * D + sides - 1) + step * k + 1;
  const sectors: bigint[][] = [];
  for (let f = 0; f < k; f++) {
    const w: bigint[] = new Array<bigint>(length).fill(0n);
    const r = k - f;
    // y^t terms of (s^a - y^a)^f: (-1)^t C(f, t) s^(a (f - t)) y^(a t).
    const signedBinomials = binomial[f]!.map((c, t) => (t % 2 === 0 ? c : -c));
    for (let m = r; m <= n - f; m++) {
      // H(m, r): the r highest of m plain faces, weights 1, over values r..r (sides - 1).
      let h: { min: number; counts: bigint[] };
      if (r === m) h = { min: m, counts: power(faces, m) };
      else h = keepDistribution(plainDie, m, r, true, false);
      const lastLevel = f === 0 ? D : D - 1;
      // Z_{f,m}(y) = sum_L beta_L y^(kL+f) (s^(D-L) - y^(D-L))^f, beta_L = A_L(f+m) C(f+m,f) s^((D-L)m).
      const z = new Map<number, bigint>();
      for (let L = 0; L <= lastLevel; L++) {
        const a = A[L]![f + m - k]!;
        if (a === 0n) continue;
        const beta = a * binomial[f + m]![f]! * sPower((D - L) * m);
        const span = D - L;
        for (let t = 0; t <= f; t++) {
          const key = k * L + f + span * t;
          const term = beta * signedBinomials[t]! * sPower(span * (f - t));
          z.set(key, (z.get(key) ?? 0n) + term);
        }
      }
      for (const [key, weight] of z) {
        if (weight === 0n) continue;
        const at = key * step + h.min;
        for (let i = 0; i < h.counts.length; i++) {
          const c = h.counts[i]!;
          if (c !== 0n) w[at + i]! += weight * c;
        }
      }
    }
    sectors.push(w);
  }

  // Horner from the innermost sector: U <- W_f + Q (U / (s - y)).
  let u = sectors[k - 1]!;
  for (let f = k - 1; f >= 1; f--) {
    // Exact division by (s - x^step): v_i = (u_i + v_(i - step)) / s.
    const v: bigint[] = new Array<bigint>(length);
    for (let i = 0; i < length; i++) v[i] = (u[i]! + (i >= step ? v[i - step]! : 0n)) / s;
    // Times Q(x) = x + ... + x^(sides - 1): a sliding sum.
    const below = sectors[f - 1]!;
    let window = 0n;
    for (let i = 0; i < length; i++) {
      if (i >= 1) window += v[i - 1]!;
      if (i >= sides) window -= v[i - sides]!;
      below[i]! += window;
    }
    u = below;
  }
  return {
    min: k,
    counts: u.slice(k, k * (step * D + sides - 1) + 1),
    denominator: s ** BigInt((D + 1) * n),
  };
}

/** Power sums of a kept sum: s0 = the rolls' weight, s1 = sum of weight x total, s2 = of weight x total^2. */
export interface KeptMoments {
  s0: bigint;
  s1: bigint;
  s2: bigint;
}

/**
 * The exact power sums of the sum of the k kept dice of n (1 <= k < n), over die.denominator^n,
 * without the distribution: the walk of keepDistribution over the die's values from the best
 * down, whose state is the number of dice placed so far (fewer than k) and carries the three
 * power sums of the kept sum instead of its polynomial. Once k dice are placed the rest only
 * need to be lower, weighed in one power. For a whole die (no tail): the chains to the cap.
 *
 * The walk steps over runs of consecutive values of one weight at once (an exploding die's
 * level: its plain faces), so its length is the number of runs, not of values: j dice in a run
 * of m values add c times the run's least value plus the sum of the c best of j dice over
 * 0..m-1, whose power sums (runTable) depend only on m, j and c.
 */
export function keepMoments(die: DieCounts, n: number, k: number, highest: boolean): KeptMoments {
  if (die.tail !== 0n) throw new RangeError('keepMoments: the die must be whole (no tail).');
  const runs: Run[] = [];
  const size = die.counts.length;
  for (let step = 0; step < size; step++) {
    const i = highest ? size - 1 - step : step;
    const weight = die.counts[i]!;
    if (weight === 0n) continue;
    const last = runs[runs.length - 1];
    const value = die.min + i;
    // A run grows by the next value in walk order when it has the same weight.
    if (
      last !== undefined &&
      last.weight === weight &&
      value === (highest ? last.low - 1 : last.low + last.length)
    ) {
      last.length++;
      if (highest) last.low = value;
    } else {
      runs.push({ low: value, length: 1, weight });
    }
  }
  return walkRuns(runs, die.denominator, n, k, (length) => knownRunTable(length, n, k, highest));
}

/**
 * runTable, kept for the next request: it depends only on a die's sides and the pool, and costs
 * a few walks of its own. At most RUN_TABLES_KEPT of them (then forgotten and made anew).
 */
function knownRunTable(length: number, n: number, k: number, highest: boolean): RunTable {
  const key = `${length} ${n} ${k} ${highest}`;
  let table = runTables.get(key);
  if (table === undefined) {
    table = runTable(length, n, k, highest);
    if (runTables.size >= RUN_TABLES_KEPT) runTables.clear();
    runTables.set(key, table);
  }
  return table;
}

const RUN_TABLES_KEPT = 256;
const runTables = new Map<string, RunTable>();

/** Consecutive values low..low+length-1 of one weight each. */
interface Run {
  low: number;
  length: number;
  weight: bigint;
}

/**
 * table[j][c] = [t0, t1, t2]: the power sums of the sum of the c best of j dice each showing
 * 0..length-1 with weight 1 (c <= j <= n, c <= k); t0 = length^j.
 */
type RunTable = Array<Array<readonly [bigint, bigint, bigint]>>;

function runTable(length: number, n: number, k: number, highest: boolean): RunTable {
  const m = BigInt(length);
  const table: RunTable = [[]];
  // The power sums of one die over 0..m-1.
  const one1 = (m * (m - 1n)) / 2n;
  const one2 = ((m - 1n) * m * (2n * m - 1n)) / 6n;
  const faces: Run[] = [];
  for (let v = 0; v < length; v++) faces.push({ low: v, length: 1, weight: 1n });
  if (highest) faces.reverse();
  for (let j = 1; j <= n; j++) {
    const row: Array<readonly [bigint, bigint, bigint]> = [[m ** BigInt(j), 0n, 0n]];
    for (let c = 1; c <= Math.min(j, k); c++) {
      if (length === 1) {
        row.push([1n, 0n, 0n]);
      } else if (c === j) {
        // Every die kept: the sum of j independent dice.
        const J = BigInt(j);
        const t2 =
          J * one2 * m ** BigInt(j - 1) + (j >= 2 ? J * (J - 1n) * one1 * one1 * m ** BigInt(j - 2) : 0n);
        row.push([m ** J, J * one1 * m ** BigInt(j - 1), t2]);
      } else {
        const r = walkRuns(faces, m, j, c, (one) => runTable(one, j, c, highest));
        row.push([r.s0, r.s1, r.s2]);
      }
    }
    table.push(row);
  }
  return table;
}

/** keepMoments' walk over `runs` in walk order (best first), with each run length's table. */
function walkRuns(
  runs: readonly Run[],
  denominator: bigint,
  n: number,
  k: number,
  tableOf: (length: number) => RunTable,
): KeptMoments {
  const binomial = Array.from({ length: n + 1 }, (_, e) => binomialRow(e));
  // The weight of the values after the current run in walk order.
  let rest = denominator;
  // [s0, s1, s2][e]: the power sums of the rolls with e dice placed so far (e < k).
  const s0 = new Array<bigint>(k).fill(0n);
  const s1 = new Array<bigint>(k).fill(0n);
  const s2 = new Array<bigint>(k).fill(0n);
  s0[0] = 1n;
  // The same for the rolls that placed their k-th die in the current run, by dice placed - k.
  const d0 = new Array<bigint>(n - k + 1);
  const d1 = new Array<bigint>(n - k + 1);
  const d2 = new Array<bigint>(n - k + 1);
  let r0 = 0n;
  let r1 = 0n;
  let r2 = 0n;
  const weights = new Array<bigint>(n + 1);
  weights[0] = 1n;
  for (const run of runs) {
    const w = run.weight;
    rest -= w * BigInt(run.length);
    const low = BigInt(run.low);
    const table = tableOf(run.length);
    for (let j = 1; j <= n; j++) weights[j] = weights[j - 1]! * w;
    d0.fill(0n);
    d1.fill(0n);
    d2.fill(0n);
    // Descending e: a state is read before this run's transitions into it are added.
    for (let e = k - 1; e >= 0; e--) {
      const h0 = s0[e]!;
      if (h0 === 0n) continue;
      const h1 = s1[e]!;
      const h2 = s2[e]!;
      const row = binomial[n - e]!;
      for (let j = 1; j <= n - e; j++) {
        const c = Math.min(j, k - e);
        const [t0, t1, t2] = table[j]![c]!;
        // The kept part added: c * low + X, X of power sums t; (total + added)^p expanded.
        const shift = low * BigInt(c);
        const u1 = shift * t0 + t1;
        const u2 = shift * (shift * t0 + 2n * t1) + t2;
        const ways = row[j]! * weights[j]!;
        const a0 = h0 * t0 * ways;
        const a1 = (h1 * t0 + h0 * u1) * ways;
        const a2 = (h2 * t0 + 2n * h1 * u1 + h0 * u2) * ways;
        const e2 = e + j;
        if (e2 >= k) {
          d0[e2 - k] = d0[e2 - k]! + a0;
          d1[e2 - k] = d1[e2 - k]! + a1;
          d2[e2 - k] = d2[e2 - k]! + a2;
        } else {
          s0[e2] = s0[e2]! + a0;
          s1[e2] = s1[e2]! + a1;
          s2[e2] = s2[e2]! + a2;
        }
      }
    }
    // The other n - e2 dice fall below: any of the values after this run.
    let below = 1n;
    for (let e2 = n; e2 >= k; e2--) {
      if (d0[e2 - k] !== 0n) {
        r0 += d0[e2 - k]! * below;
        r1 += d1[e2 - k]! * below;
        r2 += d2[e2 - k]! * below;
      }
      below *= rest;
    }
  }
  return { s0: r0, s1: r1, s2: r2 };
}

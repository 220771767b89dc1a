// The exact distribution of a formula with arithmetic or groups (docs/stats.md, "Arithmetic and
// groups"): the plan's expression (src/formula/plan.ts) is evaluated over distributions instead
// of values. Each dice term is a leaf whose distribution the term engine supplies; every node
// combines its operands' distributions exactly, with the same Rational operations the roller's
// evaluator (src/formula/evaluate.ts) applies to one roll, and the total is the root rounded down.
//
// Every dice term stands once in the tree and rolls its own dice, so the operands of a node are
// independent and a node's distribution is the product measure of its operands'. A distribution
// is a list of exact values (reduced fractions) with integer counts over one denominator; the
// mass of the rolls not listed (an explosion chain deeper than the depth) is its `tail`, and the
// listed mass of a combination is the product of the operands' listed masses.
//
// The size of every node is estimated before any work (planExpression), so a formula whose exact
// answer would cost more than the budget is refused with too_complex before it starts.

import { TooComplexError } from '../errors.js';
import {
  type ComparePoint,
  type ExpressionPlan,
  type GroupExpressionPlan,
  KeepRule,
  meets,
  Rational,
  unhandledKind,
} from '../formula/index.js';
import { gcd } from './exact.js';
import { multiply } from './poly.js';
import { formatCost } from './term.js';

/** A dice term's distribution as the term engine computes it: integer values `min + i * step`. */
export interface TermDistribution {
  min: number;
  step: number;
  counts: readonly bigint[];
  tail: bigint;
  denominator: bigint;
}

/** What a term's distribution will be, known before computing it. */
export interface TermEstimate {
  /** Least and greatest listed value (bounds). */
  low: number;
  high: number;
  /** Listed values at most. */
  size: number;
  /** Bits of the denominator (and so of any count) at most. */
  bits: number;
  /** Estimated cost of computing it, in the budget's unit. */
  cost: number;
}

/** The per-term engine, by index in `prepared.groups`. */
export interface TermEngine {
  estimate(group: number): TermEstimate;
  distribution(group: number): TermDistribution;
  /**
   * A pool group (`{4d6+3d8}kh3`), its terms `groups[first .. first + size)`: the distribution
   * of the sum of their totals (the group's value).
   */
  pool: {
    estimate(first: number, size: number): TermEstimate;
    distribution(first: number, size: number): TermDistribution;
  };
}

/** Exact values, distinct (in no particular order), with positive counts over `denominator`. */
export interface ValueDistribution {
  values: Rational[];
  counts: bigint[];
  /** The mass of the rolls not listed. */
  tail: bigint;
  denominator: bigint;
}

// --- planning: the size and cost of every node before any work -------------------------------

/** A node's distribution as known before computing it. */
interface Estimate {
  /** Bounds of the listed values. */
  low: number;
  high: number;
  /** Listed values at most. */
  size: number;
  /** Every value times `grid` is an integer (Infinity: unknown). */
  grid: number;
  /** Bits of a count at most. */
  bits: number;
  /** Cost of computing the node, operands included. */
  cost: number;
}

/**
 * The cost of one combination of two values (exact rational arithmetic, a map entry), in the
 * budget's unit (a 64-bit word operation of src/stats/term.ts): measured at about 5000 of them.
 */
const PAIR_COST = 5000;
const words = (bits: number): number => bits / 64 + 1;
const pairCost = (a: Estimate, b: Estimate): number => PAIR_COST + words(a.bits) * words(b.bits);

/** What planExpression found: the estimate of the total, for the caller's listing decision. */
export interface ExpressionEstimate extends TotalsEstimate {
  cost: number;
}

/** What the listed totals of a roll will be, known before computing them (integers). */
export interface TotalsEstimate {
  /** Bounds of the listed totals. */
  low: number;
  high: number;
  /** Totals (after rounding down) at most. */
  size: number;
  /** Bits of a count at most. */
  bits: number;
}

/**
 * Estimates the whole computation; throws TooComplexError when its cost is over `budget` or its
 * totals could be more than `outcomesMax` (an expression has no summary).
 */
export function planExpression(
  expression: ExpressionPlan,
  engine: TermEngine,
  budget: number,
  outcomesMax: number,
): ExpressionEstimate {
  const root = new Estimator(engine).node(expression);
  const size = Math.min(root.size, Math.floor(root.high) - Math.floor(root.low) + 1);
  const cost = root.cost + 3 * size * words(root.bits) ** 2;
  if (cost > budget) {
    throw new TooComplexError(
      `This formula's exact distribution would take about ${formatCost(cost)} units of work; the limit is ${formatCost(budget)}.`,
    );
  }
  if (size > outcomesMax) {
    throw new TooComplexError(
      `This formula could have about ${formatCost(size)} totals, more than the ${outcomesMax} that can be listed, and a formula with arithmetic or groups has no exact summary.`,
    );
  }
  return { low: Math.floor(root.low), high: Math.floor(root.high), size, bits: root.bits, cost };
}

/**
 * The estimate of the difference A - B of two independent rolls' totals (an opposed roll,
 * docs/stats.md#opposed-rolls-versus): its totals at most and the cost of the sum of A and -B.
 */
export function differenceEstimate(a: TotalsEstimate, b: TotalsEstimate): TotalsEstimate & { cost: number } {
  const integers = (t: TotalsEstimate, low: number, high: number): Estimate => ({
    low,
    high,
    size: t.size,
    grid: 1,
    bits: t.bits,
    cost: 0,
  });
  const sum = addEstimate(integers(a, a.low, a.high), integers(b, -b.high, -b.low));
  return { low: sum.low, high: sum.high, size: sum.size, bits: sum.bits, cost: sum.cost };
}

/** Listed integer totals, ascending and distinct, with their positive counts over `denominator`. */
export interface Totals {
  totals: readonly bigint[];
  counts: readonly bigint[];
  tail: bigint;
  denominator: bigint;
}

/**
 * The exact distribution of A - B for independent A and B; the tail is every pair in which
 * either is not listed. Integer totals: A's counts times B's reversed, one polynomial product
 * on the common step of their totals (src/stats/poly.ts), or pair by pair when the totals are
 * too sparse for it (as add does).
 */
export function differenceTotals(a: Totals, b: Totals): Totals {
  const denominator = a.denominator * b.denominator;
  const tail = denominator - (a.denominator - a.tail) * (b.denominator - b.tail);
  let step = 0n;
  for (const t of [a, b]) step = gcd(step, totalsStep(t.totals));
  if (step === 0n) step = 1n;
  const lowA = a.totals[0]!;
  const highB = b.totals[b.totals.length - 1]!;
  const slotsA = Number((a.totals[a.totals.length - 1]! - lowA) / step) + 1;
  const slotsB = Number((highB - b.totals[0]!) / step) + 1;
  if (slotsA + slotsB > 4 * (a.totals.length + b.totals.length) + 64) {
    const sparse = ascending(
      pairwise(
        {
          values: a.totals.map((v) => Rational.of(v)),
          counts: [...a.counts],
          tail: a.tail,
          denominator: a.denominator,
        },
        {
          values: b.totals.map((v) => Rational.of(v)),
          counts: [...b.counts],
          tail: b.tail,
          denominator: b.denominator,
        },
        (x, y) => x.sub(y),
      ),
    );
    return { totals: sparse.values.map((v) => v.numerator), counts: sparse.counts, tail, denominator };
  }
  const spreadA = new Array<bigint>(slotsA).fill(0n);
  for (let i = 0; i < a.totals.length; i++) spreadA[Number((a.totals[i]! - lowA) / step)] = a.counts[i]!;
  // B reversed: slot j holds the total highB - j * step, so slot i + j is lowA - highB + (i + j) * step.
  const spreadB = new Array<bigint>(slotsB).fill(0n);
  for (let i = 0; i < b.totals.length; i++) spreadB[Number((highB - b.totals[i]!) / step)] = b.counts[i]!;
  const product = multiply(spreadA, spreadB);
  const totals: bigint[] = [];
  const counts: bigint[] = [];
  for (let i = 0; i < product.length; i++) {
    if (product[i] === 0n) continue;
    totals.push(lowA - highB + BigInt(i) * step);
    counts.push(product[i]!);
  }
  return { totals, counts, tail, denominator };
}

/** The gcd of the gaps between ascending totals (0 for one total), in doubles while they are exact. */
function totalsStep(totals: readonly bigint[]): bigint {
  const first = totals[0]!;
  const span = totals[totals.length - 1]! - first;
  if (span > BigInt(Number.MAX_SAFE_INTEGER)) {
    let step = 0n;
    for (const v of totals) step = gcd(step, v - first);
    return step;
  }
  let step = 0;
  for (let i = 1; i < totals.length && step !== 1; i++) {
    let x = step;
    let y = Number(totals[i]! - first);
    while (y !== 0) [x, y] = [y, x % y];
    step = x;
  }
  return BigInt(step);
}

/** The estimate of a sum of two independent nodes (see add). */
function addEstimate(a: Estimate, b: Estimate): Estimate {
  const low = a.low + b.low;
  const high = a.high + b.high;
  const grid = lcm(a.grid, b.grid);
  const size = sizeWithin(low, high, grid, a.size * b.size);
  // Integers on a narrow grid: one polynomial product (see add); otherwise pair by pair.
  const slots = a.high - a.low + (b.high - b.low) + 2;
  const dense = a.grid === 1 && b.grid === 1 && slots <= 4 * (a.size + b.size) + 64;
  const work = dense
    ? slots * words(a.bits + b.bits) * 8 + (a.size + b.size + size) * PAIR_COST
    : a.size * b.size * pairCost(a, b);
  return { low, high, grid, size, bits: a.bits + b.bits, cost: a.cost + b.cost + work };
}

const pointEstimate = (value: number): Estimate => ({
  low: value,
  high: value,
  size: 1,
  grid: 1,
  bits: 1,
  cost: 0,
});

/** Least common multiple of two grids (Infinity when either is unknown or too large). */
function lcm(a: number, b: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return Number.POSITIVE_INFINITY;
  const l = (a / Number(gcd(BigInt(a), BigInt(b)))) * b;
  return l > 2 ** 50 ? Number.POSITIVE_INFINITY : l;
}

/** Values at most, from the bounds and the grid, and from the operands' sizes. */
function sizeWithin(low: number, high: number, grid: number, bound: number): number {
  const span = (high - low) * grid + 1;
  return Math.max(1, Math.min(bound, Number.isFinite(span) ? Math.floor(span) : bound));
}

class Estimator {
  constructor(private readonly engine: TermEngine) {}

  add(a: Estimate, b: Estimate): Estimate {
    return addEstimate(a, b);
  }

  private pairwise(a: Estimate, b: Estimate, low: number, high: number, grid: number): Estimate {
    const size = sizeWithin(low, high, grid, a.size * b.size);
    return {
      low,
      high,
      grid,
      size,
      bits: a.bits + b.bits,
      cost: a.cost + b.cost + a.size * b.size * pairCost(a, b),
    };
  }

  private unary(a: Estimate, low: number, high: number, grid: number): Estimate {
    return {
      low,
      high,
      grid,
      size: sizeWithin(low, high, grid, a.size),
      bits: a.bits,
      cost: a.cost + a.size * PAIR_COST,
    };
  }

  node(node: ExpressionPlan): Estimate {
    switch (node.kind) {
      case 'dice': {
        const t = this.engine.estimate(node.group);
        return {
          low: t.low,
          high: t.high,
          size: t.size,
          grid: 1,
          bits: t.bits,
          cost: t.cost + t.size * PAIR_COST,
        };
      }
      case 'number':
        return pointEstimate(node.value);
      case 'sum':
        return this.sumOf(node.terms.map((term) => this.node(term)));
      case 'negate': {
        const a = this.node(node.operand);
        return this.unary(a, -a.high, -a.low, a.grid);
      }
      case 'product': {
        const a = this.node(node.left);
        const b = this.node(node.right);
        if (node.operator === '*') {
          const corners = [a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high];
          const grid =
            Number.isFinite(a.grid * b.grid) && a.grid * b.grid <= 2 ** 50 ? a.grid * b.grid : Infinity;
          return this.pairwise(a, b, Math.min(...corners), Math.max(...corners), grid);
        }
        if (node.operator === '%') {
          // |a % b| < |b| and has the sign of a; a - k*b keeps both grids.
          const m = Math.max(Math.abs(b.low), Math.abs(b.high));
          const low = a.low < 0 ? Math.max(a.low, -m) : 0;
          const high = a.high > 0 ? Math.min(a.high, m) : 0;
          return this.pairwise(a, b, low, high, lcm(a.grid, b.grid));
        }
        // The divisor's interval never holds zero (the parser checks it).
        const quotients = [a.low / b.low, a.low / b.high, a.high / b.low, a.high / b.high];
        const constant = b.size === 1 && b.low === b.high && Number.isInteger(b.low);
        const grid = constant ? a.grid * Math.abs(b.low) : Number.POSITIVE_INFINITY;
        return this.pairwise(
          a,
          b,
          Math.min(...quotients),
          Math.max(...quotients),
          grid <= 2 ** 50 ? grid : Number.POSITIVE_INFINITY,
        );
      }
      case 'power': {
        const a = this.node(node.base);
        const b = this.node(node.exponent);
        const e = b.high;
        const ends = [a.low ** e, a.high ** e];
        const low = a.low < 0 && a.high > 0 && e % 2 === 0 ? 0 : Math.min(...ends);
        const grid = a.grid ** e <= 2 ** 50 ? a.grid ** e : Number.POSITIVE_INFINITY;
        return this.pairwise(a, b, low, Math.max(...ends), grid);
      }
      case 'call': {
        const args = node.arguments.map((argument) => this.node(argument));
        const a = args[0]!;
        switch (node.name) {
          case 'floor':
          case 'ceil':
          case 'round':
            return this.unary(a, Math.floor(a.low), Math.ceil(a.high), 1);
          case 'abs': {
            const low = a.low <= 0 && a.high >= 0 ? 0 : Math.min(Math.abs(a.low), Math.abs(a.high));
            return this.unary(a, low, Math.max(Math.abs(a.low), Math.abs(a.high)), a.grid);
          }
          case 'min':
          case 'max': {
            let result = a;
            for (let i = 1; i < args.length; i++) {
              const b = args[i]!;
              const low = node.name === 'min' ? Math.min(result.low, b.low) : Math.max(result.low, b.low);
              const high =
                node.name === 'min' ? Math.min(result.high, b.high) : Math.max(result.high, b.high);
              const size = Math.min(
                result.size + b.size,
                sizeWithin(low, high, lcm(result.grid, b.grid), Infinity),
              );
              result = {
                low,
                high,
                grid: lcm(result.grid, b.grid),
                size,
                bits: result.bits + b.bits,
                cost: result.cost + b.cost + (result.size + b.size) * pairCost(result, b),
              };
            }
            return result;
          }
        }
        return unhandledKind(node.name);
      }
      case 'group':
        return this.group(node);
      case 'pool': {
        const t = this.engine.pool.estimate(node.first, node.size);
        return { low: t.low, high: t.high, size: t.size, grid: 1, bits: t.bits, cost: t.cost };
      }
      default:
        return unhandledKind(node);
    }
  }

  private group(node: GroupExpressionPlan): Estimate {
    const items = node.items.map((item) => this.node(item));
    const selection = groupSelection(node, items.length);
    if (selection.counting) {
      const n = items.length;
      // Scores of -1, 0 or 1 per item.
      const scored = items.map((item) => ({
        ...item,
        low: -1,
        high: 1,
        size: Math.min(item.size, 3),
        grid: 1,
      }));
      return this.select(scored, selection, -n, n, 1);
    }
    let low = 0;
    let high = 0;
    for (const item of items) {
      low += item.low;
      high += item.high;
    }
    if (selection.kept === items.length) return this.sumOf(items);
    const kept = selection.kept;
    const lows = items.map((i) => i.low).sort((x, y) => x - y);
    const highs = items.map((i) => i.high).sort((x, y) => y - x);
    // Bounds of a sum of `kept` items: the `kept` least lows, the `kept` greatest highs.
    low = lows.slice(0, kept).reduce((x, y) => x + y, 0);
    high = highs.slice(0, kept).reduce((x, y) => x + y, 0);
    let grid = 1;
    for (const item of items) grid = lcm(grid, item.grid);
    return this.select(items, selection, low, high, grid);
  }

  private sumOf(items: Estimate[]): Estimate {
    let result = items[0]!;
    for (let i = 1; i < items.length; i++) result = this.add(result, items[i]!);
    return result;
  }

  /** The cost of the keep/drop walk over items (see selectItems). */
  private select(items: Estimate[], selection: Selection, low: number, high: number, grid: number): Estimate {
    const n = items.length;
    // Distinct values over all items: at most their sizes added, or the grid points between the bounds.
    let union = 0;
    let bits = 0;
    let cost = 0;
    let itemGrid = 1;
    for (const item of items) {
      union += item.size;
      bits += item.bits;
      cost += item.cost;
      itemGrid = lcm(itemGrid, item.grid);
    }
    const lows = Math.min(...items.map((item) => item.low));
    const highs = Math.max(...items.map((item) => item.high));
    union = sizeWithin(lows, highs, itemGrid, union);
    const tuple = Math.min(selection.kept, n - selection.kept);
    const accumulated = selection.kept <= n - selection.kept ? 1 : sizeWithin(low, high, grid, Infinity);
    let states = 1;
    let walk = 0;
    for (let i = 0; i < n; i++) {
      const length = Math.min(i + 1, tuple);
      states = Math.min(
        combinations(union + length - 1, length) * Math.min(accumulated, 1 + i * union),
        1e300,
      );
      walk += states * items[i]!.size * (1.5 * PAIR_COST + length * 200 + words(bits) ** 2);
    }
    const size = sizeWithin(low, high, grid, states);
    return { low, high, grid, size, bits, cost: cost + walk };
  }
}

/** C(n, k) as a double. */
function combinations(n: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}

/** A group's keep/drop and counting, as the roller applies them to item totals. */
interface Selection {
  /** Items kept: the `kept` highest (`high`) or lowest. */
  kept: number;
  high: boolean;
  counting: boolean;
  success?: ComparePoint;
  failure?: ComparePoint;
}

function groupSelection(node: GroupExpressionPlan, n: number): Selection {
  const selection: Selection = { kept: n, high: true, counting: false };
  const keep = node.keep;
  if (keep !== undefined) {
    const keeping = keep.rule === KeepRule.KeepHighest || keep.rule === KeepRule.KeepLowest;
    const highest = keep.rule === KeepRule.KeepHighest || keep.rule === KeepRule.DropHighest;
    selection.kept = keeping ? Math.min(keep.amount, n) : Math.max(n - keep.amount, 0);
    selection.high = keeping === highest;
  }
  if (node.success !== undefined) {
    selection.counting = true;
    selection.success = node.success;
    if (node.failure !== undefined) selection.failure = node.failure;
  }
  return selection;
}

// --- computing ---------------------------------------------------------------------------------

/** The distribution of the value of the roll (formula and bonuses), before rounding down. */
export function expressionDistribution(expression: ExpressionPlan, engine: TermEngine): ValueDistribution {
  return new Evaluator(engine).node(expression);
}

/** The distribution of the roll's `total`: the value rounded down, as the roller does. */
export function totalDistribution(expression: ExpressionPlan, engine: TermEngine): Totals {
  const floored = ascending(unary(expressionDistribution(expression, engine), (v) => v.floor()));
  return {
    totals: floored.values.map((v) => v.numerator),
    counts: floored.counts,
    tail: floored.tail,
    denominator: floored.denominator,
  };
}

class Evaluator {
  constructor(private readonly engine: TermEngine) {}

  node(node: ExpressionPlan): ValueDistribution {
    switch (node.kind) {
      case 'dice':
        return fromTerm(this.engine.distribution(node.group));
      case 'number':
        return point(Rational.of(node.value));
      case 'sum':
        return node.terms.map((term) => this.node(term)).reduce((a, b) => add(a, b));
      case 'negate':
        return unary(this.node(node.operand), (v) => v.neg());
      case 'product': {
        const left = this.node(node.left);
        const right = this.node(node.right);
        switch (node.operator) {
          case '*':
            return pairwise(left, right, (x, y) => x.mul(y));
          case '/':
            return pairwise(left, right, (x, y) => x.div(y));
          case '%':
            return pairwise(left, right, (x, y) => x.mod(y));
        }
        return unhandledKind(node.operator);
      }
      case 'power': {
        const base = this.node(node.base);
        const exponent = this.node(node.exponent);
        return pairwise(base, exponent, (x, y) => x.pow(y.toNumber()));
      }
      case 'call': {
        const args = node.arguments.map((argument) => this.node(argument));
        switch (node.name) {
          case 'floor':
            return unary(args[0]!, (v) => v.floor());
          case 'ceil':
            return unary(args[0]!, (v) => v.ceil());
          case 'round':
            return unary(args[0]!, (v) => v.round());
          case 'abs':
            return unary(args[0]!, (v) => v.abs());
          case 'max':
            return args.reduce((a, b) => maximum(a, b));
          case 'min':
            return args.reduce((a, b) => unary(maximum(unary(a, neg), unary(b, neg)), neg));
        }
        return unhandledKind(node.name);
      }
      case 'group': {
        const items = node.items.map((item) => this.node(item));
        return selectItems(items, groupSelection(node, items.length));
      }
      case 'pool':
        return fromTerm(this.engine.pool.distribution(node.first, node.size));
      default:
        return unhandledKind(node);
    }
  }
}

const neg = (v: Rational): Rational => v.neg();

/** A value known for certain. */
export function point(value: Rational): ValueDistribution {
  return { values: [value], counts: [1n], tail: 0n, denominator: 1n };
}

function fromTerm(term: TermDistribution): ValueDistribution {
  const values: Rational[] = [];
  const counts: bigint[] = [];
  for (let i = 0; i < term.counts.length; i++) {
    const count = term.counts[i]!;
    if (count === 0n) continue;
    values.push(Rational.of(term.min + i * term.step));
    counts.push(count);
  }
  return { values, counts, tail: term.tail, denominator: term.denominator };
}

const listed = (d: ValueDistribution): bigint => d.denominator - d.tail;

/** Counts accumulated by exact value, then sorted. */
class Accumulator {
  /**
   * By the value's nearest double (equal fractions, always reduced, have the same one); the few
   * distinct fractions sharing a double are told apart exactly within their entry.
   */
  private readonly entries = new Map<number, Entry>();

  add(value: Rational, count: bigint): void {
    const key = value.toNumber();
    let entry = this.entries.get(key);
    if (entry === undefined) {
      this.entries.set(key, { value, count, next: undefined });
      return;
    }
    for (;;) {
      if (entry.value.numerator === value.numerator && entry.value.denominator === value.denominator) {
        entry.count += count;
        return;
      }
      if (entry.next === undefined) {
        entry.next = { value, count, next: undefined };
        return;
      }
      entry = entry.next;
    }
  }

  finish(tail: bigint, denominator: bigint): ValueDistribution {
    const values: Rational[] = [];
    const counts: bigint[] = [];
    for (const first of this.entries.values()) {
      for (let e: Entry | undefined = first; e !== undefined; e = e.next) {
        if (e.count === 0n) continue;
        values.push(e.value);
        counts.push(e.count);
      }
    }
    return { values, counts, tail, denominator };
  }
}

interface Entry {
  value: Rational;
  count: bigint;
  next: Entry | undefined;
}

/** The same distribution with its values ascending. */
function ascending(d: ValueDistribution): ValueDistribution {
  // Ordered by the nearest doubles where they are clearly apart, exactly where they are close.
  const near = d.values.map((v) => v.toNumber());
  const order = d.values.map((_, i) => i);
  order.sort((i, j) => {
    const x = near[i]!;
    const y = near[j]!;
    return Math.abs(x - y) > 1e-9 * Math.max(Math.abs(x), Math.abs(y))
      ? x - y
      : d.values[i]!.compare(d.values[j]!);
  });
  return { ...d, values: order.map((i) => d.values[i]!), counts: order.map((i) => d.counts[i]!) };
}

/** The joint of two independent distributions: the denominators multiply, and the listed masses. */
function jointMass(a: ValueDistribution, b: ValueDistribution): { tail: bigint; denominator: bigint } {
  const denominator = a.denominator * b.denominator;
  return { tail: denominator - listed(a) * listed(b), denominator };
}

function unary(a: ValueDistribution, f: (value: Rational) => Rational): ValueDistribution {
  const acc = new Accumulator();
  for (let i = 0; i < a.values.length; i++) acc.add(f(a.values[i]!), a.counts[i]!);
  return acc.finish(a.tail, a.denominator);
}

function pairwise(
  a: ValueDistribution,
  b: ValueDistribution,
  f: (x: Rational, y: Rational) => Rational,
): ValueDistribution {
  const acc = new Accumulator();
  for (let i = 0; i < a.values.length; i++) {
    const x = a.values[i]!;
    const cx = a.counts[i]!;
    for (let j = 0; j < b.values.length; j++) acc.add(f(x, b.values[j]!), cx * b.counts[j]!);
  }
  const { tail, denominator } = jointMass(a, b);
  return acc.finish(tail, denominator);
}

/** Whether every value is an integer. */
const integral = (d: ValueDistribution): boolean => d.values.every((v) => v.isInteger());

/**
 * The sum of two independent distributions. Integer values on a grid no wider than a few times
 * the number of values are one polynomial product (src/stats/poly.ts); anything else is added
 * pair by pair.
 */
function add(a: ValueDistribution, b: ValueDistribution): ValueDistribution {
  if (a.values.length === 1 || b.values.length === 1 || !integral(a) || !integral(b)) {
    return pairwise(a, b, (x, y) => x.add(y));
  }
  const stepOf = (d: ValueDistribution): bigint => {
    let g = 0n;
    const first = d.values[0]!.numerator;
    for (const v of d.values) g = gcd(g, v.numerator - first);
    return g;
  };
  const step = gcd(stepOf(a), stepOf(b));
  const [lowA, highA] = integerBounds(a);
  const [lowB, highB] = integerBounds(b);
  const slotsA = (highA - lowA) / step + 1n;
  const slotsB = (highB - lowB) / step + 1n;
  const dense = slotsA + slotsB <= 4n * BigInt(a.values.length + b.values.length) + 64n;
  if (!dense) return pairwise(a, b, (x, y) => x.add(y));
  const spread = (d: ValueDistribution, low: bigint, slots: bigint): bigint[] => {
    const counts = new Array<bigint>(Number(slots)).fill(0n);
    for (let i = 0; i < d.values.length; i++)
      counts[Number((d.values[i]!.numerator - low) / step)] = d.counts[i]!;
    return counts;
  };
  const product = multiply(spread(a, lowA, slotsA), spread(b, lowB, slotsB));
  const values: Rational[] = [];
  const counts: bigint[] = [];
  const low = lowA + lowB;
  for (let i = 0; i < product.length; i++) {
    if (product[i] === 0n) continue;
    values.push(Rational.of(low + BigInt(i) * step));
    counts.push(product[i]!);
  }
  return { values, counts, ...jointMass(a, b) };
}

function integerBounds(d: ValueDistribution): [bigint, bigint] {
  let low = d.values[0]!.numerator;
  let high = low;
  for (const v of d.values) {
    if (v.numerator < low) low = v.numerator;
    if (v.numerator > high) high = v.numerator;
  }
  return [low, high];
}

/** max(X, Y) of independent X and Y: P(max <= t) = P(X <= t) P(Y <= t), over the listed mass. */
function maximum(unorderedA: ValueDistribution, unorderedB: ValueDistribution): ValueDistribution {
  const a = ascending(unorderedA);
  const b = ascending(unorderedB);
  const values: Rational[] = [];
  const counts: bigint[] = [];
  let i = 0;
  let j = 0;
  let belowA = 0n;
  let belowB = 0n;
  let previous = 0n;
  while (i < a.values.length || j < b.values.length) {
    const x = a.values[i];
    const y = b.values[j];
    const c = x === undefined ? 1 : y === undefined ? -1 : x.compare(y);
    const value = c <= 0 ? x! : y!;
    if (c <= 0) belowA += a.counts[i++]!;
    if (c >= 0) belowB += b.counts[j++]!;
    const atMost = belowA * belowB;
    if (atMost !== previous) {
      values.push(value);
      counts.push(atMost - previous);
      previous = atMost;
    }
  }
  return { values, counts, ...jointMass(a, b) };
}

/**
 * A group's keep/drop and success counting over its items' totals (docs/language.md: the items
 * ranked by value; ties do not change the sum or the count). Items are walked one at a time; the
 * state is the sorted values of the items kept so far (at most `kept` of them), or, when fewer
 * are dropped than kept, the values of the items dropped so far with the running score of all.
 */
function selectItems(items: ValueDistribution[], selection: Selection): ValueDistribution {
  const n = items.length;
  const score = (value: Rational): Rational => {
    if (!selection.counting) return value;
    const success = selection.success!;
    let s = meets(value, success) ? 1 : 0;
    if (selection.failure !== undefined && meets(value, selection.failure)) s--;
    return Rational.of(s);
  };
  if (selection.kept === n) {
    return items.map((item) => unary(item, score)).reduce((a, b) => add(a, b));
  }
  // Every value any item can take, ranked by how keepable it is (0: kept first).
  const union = new Accumulator();
  for (const item of items) for (const value of item.values) union.add(value, 1n);
  const ranked = ascending(union.finish(0n, 1n)).values;
  if (selection.high) ranked.reverse();
  const rank = new Map<string, number>(ranked.map((v, r) => [v.toString(), r]));
  const scores = ranked.map(score);
  const keepTuple = selection.kept <= n - selection.kept;
  const limit = keepTuple ? selection.kept : n - selection.kept;

  interface State {
    ranks: number[];
    acc: Rational;
    count: bigint;
  }
  let states = new Map<string, State>([['', { ranks: [], acc: Rational.of(0), count: 1n }]]);
  for (const item of items) {
    const next = new Map<string, State>();
    const itemRanks = item.values.map((v) => rank.get(v.toString())!);
    for (const state of states.values()) {
      for (let j = 0; j < itemRanks.length; j++) {
        const r = itemRanks[j]!;
        const ranks = insertSorted(state.ranks, r);
        // Keep the `limit` most keepable (kept tuple) or the `limit` least keepable (dropped).
        if (ranks.length > limit) {
          if (keepTuple) ranks.pop();
          else ranks.shift();
        }
        const acc = keepTuple ? state.acc : state.acc.add(scores[r]!);
        const key = keepTuple ? ranks.join(',') : `${ranks.join(',')}|${acc.toString()}`;
        const count = state.count * item.counts[j]!;
        const found = next.get(key);
        if (found === undefined) next.set(key, { ranks, acc, count });
        else found.count += count;
      }
    }
    states = next;
  }
  const acc = new Accumulator();
  for (const state of states.values()) {
    let tuple = Rational.of(0);
    for (const r of state.ranks) tuple = tuple.add(scores[r]!);
    acc.add(keepTuple ? tuple : state.acc.sub(tuple), state.count);
  }
  let denominator = 1n;
  let listedMass = 1n;
  for (const item of items) {
    denominator *= item.denominator;
    listedMass *= listed(item);
  }
  return acc.finish(denominator - listedMass, denominator);
}

function insertSorted(ranks: readonly number[], r: number): number[] {
  const result = ranks.slice();
  let i = result.length;
  while (i > 0 && result[i - 1]! > r) i--;
  result.splice(i, 0, r);
  return result;
}

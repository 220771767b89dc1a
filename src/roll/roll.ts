// Rolls a prepared plan into a RollResponse (docs/language.md "The response"). The hot path
// of every request: per-die bookkeeping lives in preallocated typed arrays, and no closure or
// object is created per die.

import { RandomSourceError, TooManyThrowsError } from '../errors.js';
import { LIMITS } from '../limits.js';
import {
  type Deprecation,
  ExplodeRule,
  type GroupPlan,
  KeepRule,
  type PreparedRoll,
  type PrepareOptions,
  prepareRoll,
} from './prepare.js';
import { cryptoRandom, WordSampler } from './random.js';
import type { DieGroup, RandomSource, RollRequest, RollResponse } from './types.js';

export interface RollOptions {
  /** Where dice come from (default: the pooled node:crypto sampler). Tests inject their own. */
  random?: RandomSource | undefined;
  /** Called once per deprecated form the roll used (e.g. `1d20adv`), before any die is thrown. */
  onDeprecation?: ((warning: Deprecation) => void) | undefined;
  /**
   * Throws this roll may still make (every die, rerolled-away throws and explosion extras); the
   * roll spends from it, so one budget can span the rolls of a batch. Past it the roll stops with
   * a TooManyThrowsError. Default: unlimited.
   */
  throwBudget?: ThrowBudget | undefined;
}

/** What is left of a request's throws; `limit` is the whole budget, named in the error. */
export interface ThrowBudget {
  left: number;
  readonly limit: number;
}

/** The budget of the roll in progress (rolling is synchronous: one roll at a time). */
let budget: ThrowBudget | undefined;

/** Spends `throws` from the budget of the roll in progress, if it has one. */
function spend(throws: number): void {
  if (budget === undefined) return;
  budget.left -= throws;
  if (budget.left < 0) throw new TooManyThrowsError(budget.limit);
}

const EXPLODE_CAP = LIMITS.explodeCap;

// Scratch space for one group, reused by every roll: rolling is synchronous, so no two groups
// ever use it at once. A group never throws more than diceCountMax original dice.
const SCRATCH_DICE = Math.max(LIMITS.diceCountMax, 2);
/** Index in `results` of each die's final throw (its chain starts there). */
const chainStart = new Int32Array(SCRATCH_DICE);
/** Index in `results` just past each die's chain. */
const chainEnd = new Int32Array(SCRATCH_DICE);
/** Each die's value: final throw plus explosion extras. */
const dieValue = new Float64Array(SCRATCH_DICE);
/** 1 when the die counts. */
const dieKept = new Uint8Array(SCRATCH_DICE);
/** Dice indices ordered for keep/drop. */
const order = new Int32Array(SCRATCH_DICE);
/** Groups up to this many dice are ordered for keep/drop by insertion sort. */
const SMALL_GROUP = 16;
/** Face counts for sorting `kept` of dice with few sides. */
const COUNTING_SORT_SIDES = 4096;
const faceCounts = new Uint32Array(COUNTING_SORT_SIDES + 1);

/** Parses, checks and rolls a request: prepareRoll, then rollPrepared. */
export function roll(request: RollRequest, options?: RollOptions & PrepareOptions): RollResponse {
  return rollPrepared(prepareRoll(request, options), options);
}

/**
 * Rolls a prepared request. Any failure of the random source (a throw, or a face outside
 * 1..sides) becomes a RandomSourceError with the cause attached; nothing else can fail here.
 */
export function rollPrepared(prepared: PreparedRoll, options?: RollOptions): RollResponse {
  const random = checkedSource(options?.random ?? cryptoRandom);
  const onDeprecation = options?.onDeprecation;
  if (onDeprecation !== undefined) {
    for (const warning of prepared.deprecations) onDeprecation(warning);
  }
  const groups = prepared.groups;
  const dice: DieGroup[] = new Array(groups.length);
  let total = prepared.modifier;
  budget = options?.throwBudget;
  try {
    for (let g = 0; g < groups.length; g++) {
      const group = rollGroup(groups[g]!, random);
      dice[g] = group;
      total += group.total;
    }
  } finally {
    budget = undefined;
  }
  const response: RollResponse = {
    formula: prepared.formula,
    dice,
    modifier: prepared.modifier,
    modifiers: prepared.modifiers.slice(),
    total,
    advantageState: prepared.advantageState,
  };
  if (prepared.tag !== undefined) response.tag = prepared.tag;
  return response;
}

/**
 * The source as the hot loop calls it. The production sampler is trusted to return faces in
 * 1..sides; any other source is checked on every die, so a broken one fails loudly instead of
 * producing impossible results.
 */
function checkedSource(random: RandomSource): RandomSource {
  if (random instanceof WordSampler) return random;
  return {
    die(sides: number): number {
      const face = random.die(sides);
      if (!(face >= 1 && face <= sides) || Math.floor(face) !== face) {
        throw new RandomSourceError({
          cause: new RangeError('the random source gave a face outside 1..sides'),
        });
      }
      return face;
    },
  };
}

function rollGroup(plan: GroupPlan, random: RandomSource): DieGroup {
  const { sides, count } = plan;
  if (plan.keep === KeepRule.All && plan.rerollLimit === 0 && plan.explode === ExplodeRule.None) {
    return rollPlainGroup(plan, random);
  }
  let results: number[];
  // Only the random source can throw while dice are thrown (the rest is array writes), so one
  // handler around the loop maps its failures without a try block per die.
  try {
    results =
      plan.rerollLimit === 0 && plan.explode === ExplodeRule.None
        ? throwPlainDice(plan, random)
        : throwDice(plan, random);
  } catch (cause) {
    throw asRandomSourceError(cause);
  }

  const keptDice = selectKept(plan.keep, plan.keepAmount, count);

  // Flags and the kept values; a die's chain shares its flag, rerolled-away throws are false.
  const length = results.length;
  let keptFlags: boolean[];
  let kept: number[];
  let sum = 0;
  if (keptDice === count && plan.rerollLimit === 0) {
    keptFlags = new Array<boolean>(length).fill(true);
    kept = results.slice();
    for (let d = 0; d < count; d++) sum += dieValue[d]!;
  } else {
    keptFlags = new Array<boolean>(length).fill(false);
    kept = [];
    for (let d = 0; d < count; d++) {
      if (dieKept[d] === 0) continue;
      sum += dieValue[d]!;
      const end = chainEnd[d]!;
      for (let i = chainStart[d]!; i < end; i++) {
        keptFlags[i] = true;
        kept.push(results[i]!);
      }
    }
  }
  sortDescending(kept, sides);

  let naturalHigh = false;
  let naturalLow = false;
  if (keptDice === 1) {
    let d = 0;
    while (dieKept[d] === 0) d++;
    const final = results[chainStart[d]!]!;
    naturalHigh = final === sides;
    naturalLow = final === 1;
  }

  return {
    sides,
    sign: plan.sign,
    results,
    kept,
    keptFlags,
    multiplier: plan.multiplier,
    // `|| 0`: a negative group summing to 0 is 0, not -0.
    total: plan.sign * plan.multiplier * sum || 0,
    naturalHigh,
    naturalLow,
  };
}

/**
 * Any failure of the random source, as the one error type the service maps to a 500; a spent
 * throws budget, raised inside the same loops, passes through as itself.
 */
const asRandomSourceError = (cause: unknown): RandomSourceError | TooManyThrowsError =>
  cause instanceof RandomSourceError || cause instanceof TooManyThrowsError
    ? cause
    : new RandomSourceError({ cause });

/** `count` single throws, allocated once; the pooled sampler writes them in bulk. */
function throwFaces(sides: number, count: number, random: RandomSource): number[] {
  spend(count);
  const results = new Array<number>(count);
  if (random instanceof WordSampler) {
    random.fill(sides, results, count);
  } else {
    for (let d = 0; d < count; d++) results[d] = random.die(sides);
  }
  return results;
}

/** Dice that neither reroll nor explode: one throw each. */
function throwPlainDice(plan: GroupPlan, random: RandomSource): number[] {
  const { count } = plan;
  const results = throwFaces(plan.sides, count, random);
  for (let d = 0; d < count; d++) {
    chainStart[d] = d;
    chainEnd[d] = d + 1;
    dieValue[d] = results[d]!;
  }
  return results;
}

/** Throws every die: its rerolled-away throws, its final throw, then its explosion extras. */
function throwDice(plan: GroupPlan, random: RandomSource): number[] {
  const { sides, count, explode, rerollLimit, rerollLow, rerollHigh } = plan;
  const results: number[] = [];
  // Checked once per die: a chain overshoots the budget by at most the caps' 201 throws.
  const most = budget === undefined ? Number.POSITIVE_INFINITY : budget.left;
  for (let d = 0; d < count; d++) {
    if (results.length > most) spend(results.length);
    let face = random.die(sides);
    for (let rerolls = 0; rerolls < rerollLimit && face >= rerollLow && face <= rerollHigh; rerolls++) {
      results.push(face);
      face = random.die(sides);
    }
    chainStart[d] = results.length;
    results.push(face);
    let value = face;
    if (explode !== ExplodeRule.None && face === sides) {
      const penalty = explode === ExplodeRule.Penetrate ? 1 : 0;
      let raw = face;
      for (let extras = 0; extras < EXPLODE_CAP && raw === sides; extras++) {
        raw = random.die(sides);
        results.push(raw - penalty);
        value += raw - penalty;
      }
    }
    chainEnd[d] = results.length;
    dieValue[d] = value;
  }
  spend(results.length);
  return results;
}

/** The most common group (`3d6`, `999d6`): one throw per die, every die kept. */
function rollPlainGroup(plan: GroupPlan, random: RandomSource): DieGroup {
  const { sides, count } = plan;
  let results: number[];
  try {
    results = throwFaces(sides, count, random);
  } catch (cause) {
    throw asRandomSourceError(cause);
  }
  let sum = 0;
  for (let d = 0; d < count; d++) sum += results[d]!;
  const kept = results.slice();
  sortDescending(kept, sides);
  const single = count === 1 ? results[0] : undefined;
  return {
    sides,
    sign: plan.sign,
    results,
    kept,
    keptFlags: new Array<boolean>(count).fill(true),
    multiplier: plan.multiplier,
    total: plan.sign * plan.multiplier * sum || 0,
    naturalHigh: single === sides,
    naturalLow: single === 1,
  };
}

/**
 * Marks in `dieKept` which of the `count` dice count, and returns how many. Ties are broken by
 * position: of equal values the earlier die is chosen first, kept first by a keep and dropped
 * first by a drop (docs/language.md "Ties").
 */
function selectKept(rule: KeepRule, amount: number, count: number): number {
  if (rule === KeepRule.All) {
    dieKept.fill(1, 0, count);
    return count;
  }
  const keeping = rule === KeepRule.KeepHighest || rule === KeepRule.KeepLowest;
  if (amount >= count) {
    dieKept.fill(keeping ? 1 : 0, 0, count);
    return keeping ? count : 0;
  }
  const highestFirst = rule === KeepRule.KeepHighest || rule === KeepRule.DropHighest;
  // The `amount` dice chosen are the first in (value, then position) order.
  dieKept.fill(keeping ? 0 : 1, 0, count);
  const mark = keeping ? 1 : 0;
  if (amount === 1) {
    let best = 0;
    for (let d = 1; d < count; d++) {
      const v = dieValue[d]!;
      const b = dieValue[best]!;
      if (highestFirst ? v > b : v < b) best = d;
    }
    dieKept[best] = mark;
  } else {
    if (count <= SMALL_GROUP) {
      // A few dice (4d6kh3): an insertion sort in place beats a typed-array view and a
      // comparator callback per comparison. Stable, so ties keep the earlier die first.
      const sign = highestFirst ? -1 : 1;
      for (let d = 0; d < count; d++) {
        const value = sign * dieValue[d]!;
        let at = d;
        while (at > 0 && sign * dieValue[order[at - 1]!]! > value) {
          order[at] = order[at - 1]!;
          at--;
        }
        order[at] = d;
      }
      for (let i = 0; i < amount; i++) dieKept[order[i]!] = mark;
    } else {
      for (let d = 0; d < count; d++) order[d] = d;
      const chosen = order.subarray(0, count);
      chosen.sort(highestFirst ? byValueDescending : byValueAscending);
      for (let i = 0; i < amount; i++) dieKept[chosen[i]!] = mark;
    }
  }
  return keeping ? amount : count - amount;
}

function byValueDescending(a: number, b: number): number {
  return dieValue[b]! - dieValue[a]! || a - b;
}

function byValueAscending(a: number, b: number): number {
  return dieValue[a]! - dieValue[b]! || a - b;
}

/** Sorts throws (each in 0..sides) highest first, by counting when the die is small. */
function sortDescending(values: number[], sides: number): void {
  const n = values.length;
  if (n < 2) return;
  if (n <= 24) {
    for (let i = 1; i < n; i++) {
      const v = values[i]!;
      let j = i - 1;
      while (j >= 0 && values[j]! < v) {
        values[j + 1] = values[j]!;
        j--;
      }
      values[j + 1] = v;
    }
    return;
  }
  if (sides <= COUNTING_SORT_SIDES) {
    faceCounts.fill(0, 0, sides + 1);
    for (let i = 0; i < n; i++) faceCounts[values[i]!]!++;
    let i = 0;
    for (let face = sides; face >= 0; face--) {
      for (let c = faceCounts[face]!; c > 0; c--) values[i++] = face;
    }
    return;
  }
  const sorted = Float64Array.from(values).sort();
  for (let i = 0; i < n; i++) values[i] = sorted[n - 1 - i]!;
}

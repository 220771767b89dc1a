// Rolls a prepared plan into a RollResponse (docs/language.md "The response"). The hot path
// of every request: per-die bookkeeping lives in preallocated typed arrays, and no closure or
// object is created per die.

import { RandomSourceError, TooManyThrowsError } from '../errors.js';
import {
  type ClampPlan,
  type CountPlan,
  type Deprecation,
  type ExplodePlan,
  evaluate,
  type GroupPlan,
  type KeepPlan,
  KeepRule,
  type MatchPlan,
  type PoolPlan,
  type PreparedRoll,
  type PrepareOptions,
  prepareRoll,
  type RerollPlan,
  type UniquePlan,
  unhandledKind,
  within,
} from '../formula/index.js';
import { LIMITS } from '../limits.js';
import { cryptoRandom, WordSampler } from './random.js';
import type { DieGroup, DieThrow, RandomSource, RollRequest, RollResponse } from './types.js';

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

// Scratch space for the dice being rolled, reused by every roll: rolling is synchronous, so no
// two rolls ever use it at once. Indexed by die: a dice term, and a pool group, throws at most
// diceCountMax dice (the parser checks both). `const`, so the hot loops read them directly.
const capacity = Math.max(LIMITS.diceCountMax, 2);
/** Index in a group's `results` of each die's final throw (its chain starts there). */
const chainStart = new Int32Array(capacity);
/** Index in a group's `results` just past each die's chain. */
const chainEnd = new Int32Array(capacity);
/** Each die's value: final throw plus explosion extras (as recorded). */
const dieValue = new Float64Array(capacity);
/** The face each die's final throw showed, before clamping (natural flags read it). */
const dieFace = new Float64Array(capacity);
/** 1 when the die counts. */
const dieKept = new Uint8Array(capacity);
/** Dice indices ordered for keep/drop. */
const order = new Int32Array(capacity);

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
      const plan = groups[g]!;
      if (plan.pool !== undefined) {
        rollPool(groups, plan.pool, random, dice);
        for (let m = g; m < g + plan.pool.size; m++) total += dice[m]!.total;
        g += plan.pool.size - 1;
        continue;
      }
      const group = rollGroup(plan, random);
      dice[g] = group;
      total += group.total;
    }
  } finally {
    budget = undefined;
  }
  // With a tag, one literal that holds it: adding the key afterwards costs a property store that
  // grows the object, every roll.
  const response: RollResponse =
    prepared.tag === undefined
      ? {
          formula: prepared.formula,
          dice,
          modifier: prepared.modifier,
          modifiers: copyOf(prepared.modifiers),
          total,
          advantageState: prepared.advantageState,
        }
      : {
          formula: prepared.formula,
          dice,
          modifier: prepared.modifier,
          modifiers: copyOf(prepared.modifiers),
          total,
          advantageState: prepared.advantageState,
          tag: prepared.tag,
        };
  if (prepared.expression !== undefined) {
    // Each dice leaf is a DieGroup: its total, successes and failures are what the tree reads.
    const expression = evaluate(prepared.expression, (group) => dice[group]!);
    response.total = expression.value.floor().toNumber() || 0;
    response.expression = expression.node;
  }
  return response;
}

/**
 * A pool group (`{4d6+3d8}kh3`): every term's dice are thrown in written order, the group's
 * keep/drop ranks all of them as one pool, and each term's DieGroup records its share.
 */
function rollPool(
  groups: readonly GroupPlan[],
  pool: PoolPlan,
  random: RandomSource,
  dice: DieGroup[],
): void {
  let size = 0;
  for (let m = pool.first; m < pool.first + pool.size; m++) size += groups[m]!.count;
  const thrown: Thrown[] = [];
  let base = 0;
  for (let m = pool.first; m < pool.first + pool.size; m++) {
    const plan = groups[m]!;
    thrown.push(throwGroup(plan, rulesOf(plan), random, base));
    base += plan.count;
  }
  if (pool.keep === undefined) dieKept.fill(1, 0, size);
  else selectKept(pool.keep.rule, pool.keep.amount, 0, size);
  base = 0;
  for (let m = pool.first; m < pool.first + pool.size; m++) {
    const plan = groups[m]!;
    let keptDice = 0;
    for (let d = base; d < base + plan.count; d++) keptDice += dieKept[d]!;
    dice[m] = finishGroup(plan, rulesOf(plan), thrown[m - pool.first]!, base, keptDice);
    base += plan.count;
  }
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
      let face: number;
      try {
        face = random.die(sides);
      } catch (cause) {
        throw new RandomSourceError({ cause });
      }
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
  if (plan.plain) return rollPlainGroup(plan, random);
  const rules = rulesOf(plan);
  const thrown = throwGroup(plan, rules, random, 0);
  return finishGroup(plan, rules, thrown, 0, selectTermKept(plan.count, rules.keeps));
}

/**
 * Marks in `dieKept` the dice of a term that count, by its keep/drop rules (every die when it has
 * none), and returns how many. Several (`4d10dh1dl2`) each rank all the dice and mark their own
 * range; a die counts only when none of them drops it.
 */
function selectTermKept(count: number, keeps: readonly KeepPlan[]): number {
  if (keeps.length === 0) {
    dieKept.fill(1, 0, count);
    return count;
  }
  const first = keeps[0]!;
  const kept = selectKept(first.rule, first.amount, 0, count);
  if (keeps.length === 1) return kept;
  const marks = dieKept.slice(0, count);
  for (let k = 1; k < keeps.length; k++) {
    selectKept(keeps[k]!.rule, keeps[k]!.amount, 0, count);
    for (let d = 0; d < count; d++) marks[d] = marks[d]! & dieKept[d]!;
  }
  dieKept.set(marks, 0);
  let counted = 0;
  for (let d = 0; d < count; d++) counted += marks[d]!;
  return counted;
}

/** What throwing a group's dice recorded (per-die facts are in the scratch arrays). */
interface Thrown {
  results: number[];
  throws: DieThrow[] | undefined;
}

/**
 * A term's rules as the hot loops read them: plain numbers, with neutral values for the rules it
 * does not have (no clamp, an empty reroll or explode range, no unique limit).
 */
interface Rules {
  readonly clampLow: number;
  readonly clampHigh: number;
  readonly rerollLimit: number;
  readonly rerollLow: number;
  readonly rerollHigh: number;
  readonly uniqueLimit: number;
  readonly uniqueLow: number;
  readonly uniqueHigh: number;
  readonly explodes: boolean;
  readonly compound: boolean;
  /** 1 when every extra is recorded minus 1 (`!p`, `!!p`). */
  readonly penalty: number;
  readonly explodeLow: number;
  readonly explodeHigh: number;
  /** No clamp, reroll, unique or explosion: one throw per die, recorded as it shows. */
  readonly throwOnce: boolean;
  readonly keeps: readonly KeepPlan[];
  readonly match: MatchPlan | undefined;
  readonly counting: CountPlan | undefined;
}

/**
 * The rules of each frozen plan rolled, read once: such a plan is a cached formula's
 * (src/formula/compile.ts), rolled again and again. Any other plan is read on each roll: a key
 * added to a WeakMap per roll would cost the garbage collector more than reading it again.
 */
const rulesOfPlans = new WeakMap<GroupPlan, Rules>();

function rulesOf(plan: GroupPlan): Rules {
  let rules = rulesOfPlans.get(plan);
  if (rules === undefined) {
    rules = readRules(plan);
    if (Object.isFrozen(plan)) rulesOfPlans.set(plan, rules);
  }
  return rules;
}

/** A term's rules from its plan's kinds (src/formula/plan.ts), each in the field the roller reads. */
function readRules(plan: GroupPlan): Rules {
  let clamp: ClampPlan | undefined;
  let reroll: RerollPlan | undefined;
  let unique: UniquePlan | undefined;
  let explode: ExplodePlan | undefined;
  let keeps: KeepPlan[] | undefined;
  let match: MatchPlan | undefined;
  let counting: CountPlan | undefined;
  for (const modifier of plan.modifiers) {
    switch (modifier.kind) {
      case 'clamp':
        clamp = modifier;
        break;
      case 'reroll':
        reroll = modifier;
        break;
      case 'unique':
        unique = modifier;
        break;
      case 'explode':
        explode = modifier;
        break;
      case 'keep':
        keeps ??= [];
        keeps.push(modifier);
        break;
      case 'match':
        match = modifier;
        break;
      case 'count':
        counting = modifier;
        break;
      default:
        unhandledKind(modifier);
    }
  }
  return {
    clampLow: clamp?.low ?? Number.NEGATIVE_INFINITY,
    clampHigh: clamp?.high ?? Number.POSITIVE_INFINITY,
    rerollLimit: reroll?.limit ?? 0,
    rerollLow: reroll?.low ?? 1,
    rerollHigh: reroll?.high ?? 0,
    uniqueLimit: unique?.limit ?? 0,
    uniqueLow: unique?.low ?? 1,
    uniqueHigh: unique?.high ?? 0,
    explodes: explode !== undefined,
    compound: explode?.compound === true,
    penalty: explode?.penetrate === true ? 1 : 0,
    explodeLow: explode?.low ?? 1,
    explodeHigh: explode?.high ?? 0,
    throwOnce: clamp === undefined && reroll === undefined && unique === undefined && explode === undefined,
    keeps: keeps ?? NO_KEEPS,
    match,
    counting,
  };
}

const NO_KEEPS: readonly KeepPlan[] = [];

/** Throws a group's dice into the scratch arrays at dice `base..base+count`. */
function throwGroup(plan: GroupPlan, rules: Rules, random: RandomSource, base: number): Thrown {
  if (rules.throwOnce && plan.faces === undefined) {
    return { results: throwPlainDice(plan, random, base), throws: undefined };
  }
  return throwDice(plan, rules, random, base);
}

/** A group's DieGroup once its dice are thrown and `dieKept` marks the `keptDice` dice that count. */
function finishGroup(
  plan: GroupPlan,
  rules: Rules,
  thrown: Thrown,
  base: number,
  keptDice: number,
): DieGroup {
  const { count } = plan;
  const { results } = thrown;
  const { compound, match, counting } = rules;
  // Flags and the kept values; a die's chain shares its flag, rerolled-away throws are false.
  const length = results.length;
  let keptFlags: boolean[];
  let kept: number[];
  let sum = 0;
  if (keptDice === count && ((rules.rerollLimit === 0 && rules.uniqueLimit === 0) || compound)) {
    keptFlags = flags(length, true);
    kept = results.slice();
    for (let d = base; d < base + count; d++) sum += dieValue[d]!;
  } else {
    keptFlags = flags(length, false);
    kept = [];
    for (let d = base; d < base + count; d++) {
      if (dieKept[d] === 0) continue;
      sum += dieValue[d]!;
      const end = chainEnd[d]!;
      for (let i = chainStart[d]!; i < end; i++) {
        keptFlags[i] = true;
        kept.push(results[i]!);
      }
    }
  }
  // Values of a standard die without compounding lie in 0..sides: they may be counted.
  sortDescending(kept, plan.faces === undefined && !compound ? plan.sides : 0);

  let naturalHigh = false;
  let naturalLow = false;
  if (keptDice === 1) {
    let d = base;
    while (dieKept[d] === 0) d++;
    const face = dieFace[d]!;
    naturalHigh = within(face, plan.highLow, plan.highHigh);
    naturalLow = within(face, plan.lowLow, plan.lowHigh);
  }

  let total = sum;
  let matches: number[] | undefined;
  if (match !== undefined) {
    matches = matchingValues(match.amount, base, count);
    if (match.total) total = matches.length;
  }
  let successes: number | undefined;
  let failures: number | undefined;
  if (counting !== undefined) {
    const { success, failure } = counting;
    successes = 0;
    failures = 0;
    for (const value of kept) {
      if (within(value, success.low, success.high)) successes++;
      if (failure !== undefined && within(value, failure.low, failure.high)) failures++;
    }
    total = successes - failures;
    if (failure === undefined) failures = undefined;
  }
  return dieGroup(
    plan,
    results,
    kept,
    keptFlags,
    total,
    naturalHigh,
    naturalLow,
    successes,
    failures,
    thrown.throws,
    matches,
    compound,
  );
}

/** The values shown by at least `amount` kept dice of `base..base+count`, ascending. */
function matchingValues(amount: number, base: number, count: number): number[] {
  const counts = new Map<number, number>();
  for (let d = base; d < base + count; d++) {
    if (dieKept[d] === 0) continue;
    const value = dieValue[d]!;
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const values: number[] = [];
  for (const [value, seen] of counts) if (seen >= amount) values.push(value);
  return values.sort((a, b) => a - b);
}

/**
 * The one place a DieGroup is built. `amount` is the sum of the kept values, or the successes
 * minus failures when the term counts them; the optional fields appear only when they apply.
 */
function dieGroup(
  plan: GroupPlan,
  results: number[],
  kept: number[],
  keptFlags: boolean[],
  amount: number,
  naturalHigh: boolean,
  naturalLow: boolean,
  successes: number | undefined,
  failures: number | undefined,
  throws: DieThrow[] | undefined,
  matches: number[] | undefined,
  compounded: boolean,
): DieGroup {
  const group: DieGroup = {
    sides: plan.sides,
    sign: plan.sign,
    results,
    kept,
    keptFlags,
    multiplier: plan.multiplier,
    // `|| 0`: a negative group summing to 0 is 0, not -0.
    total: plan.sign * plan.multiplier * amount || 0,
    naturalHigh,
    naturalLow,
  };
  if (plan.faces !== undefined) group.faces = copyOf(plan.faces);
  if (plan.label !== undefined) group.label = plan.label;
  if (successes !== undefined) group.successes = successes;
  if (failures !== undefined) group.failures = failures;
  if (matches !== undefined) group.matches = matches;
  if (compounded) group.compounded = true;
  if (throws !== undefined) group.throws = throws;
  return group;
}

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

/** Standard dice that neither reroll, explode nor clamp: one throw each. */
function throwPlainDice(plan: GroupPlan, random: RandomSource, base: number): number[] {
  const { count } = plan;
  const results = throwFaces(plan.sides, count, random);
  for (let d = 0; d < count; d++) {
    chainStart[base + d] = d;
    chainEnd[base + d] = d + 1;
    dieValue[base + d] = results[d]!;
    dieFace[base + d] = results[d]!;
  }
  return results;
}

/** One recorded throw; `face` only when it differs from the recorded value. */
function dieThrow(die: number, kind: DieThrow['kind'], value: number, face: number): DieThrow {
  return face === value ? { die, kind, value } : { die, kind, value, face };
}

/**
 * Throws every die in the fixed order: throw, clamp, reroll (on the clamped value), explode (on
 * the clamped value; a penetrating extra recorded minus 1 after the test), compound. `results`
 * gets a die's rerolled-away throws, its final throw, then its extras; with compounding, one
 * merged value per die instead. `throws` gets every throw when the plan records them.
 */
function throwDice(plan: GroupPlan, rules: Rules, random: RandomSource, base: number): Thrown {
  const { sides, faces, count } = plan;
  const { clampLow, clampHigh, rerollLimit, rerollLow, rerollHigh, uniqueLimit, uniqueLow, uniqueHigh } =
    rules;
  const { explodes, compound, penalty, explodeLow, explodeHigh } = rules;
  // `u`: the values of the term's earlier dice.
  const earlier = uniqueLimit > 0 ? new Set<number>() : undefined;
  const results: number[] = [];
  // Every throw is listed when a die may be thrown more than once (r, ro, u, uo, !, !p, !!, !!p).
  const throws: DieThrow[] | undefined = rerollLimit > 0 || uniqueLimit > 0 || explodes ? [] : undefined;
  // Counted per throw, spent once per die: a chain overshoots the budget by at most the caps.
  let thrown = 0;
  const most = budget === undefined ? Number.POSITIVE_INFINITY : budget.left;
  for (let d = 0; d < count; d++) {
    if (thrown > most) spend(thrown);
    thrown++;
    let face = faces === undefined ? random.die(sides) : faces[random.die(sides) - 1]!;
    let value = Math.min(Math.max(face, clampLow), clampHigh);
    let kind: DieThrow['kind'] = 'roll';
    for (let rerolls = 0; rerolls < rerollLimit && within(value, rerollLow, rerollHigh); rerolls++) {
      if (!compound) results.push(value);
      throws?.push(dieThrow(d, kind, value, face));
      kind = 'reroll';
      thrown++;
      face = faces === undefined ? random.die(sides) : faces[random.die(sides) - 1]!;
      value = Math.min(Math.max(face, clampLow), clampHigh);
    }
    if (earlier !== undefined) {
      // Unique: after clamp and reroll, reroll while the value repeats an earlier die's.
      for (
        let rerolls = 0;
        rerolls < uniqueLimit && within(value, uniqueLow, uniqueHigh) && earlier.has(value);
        rerolls++
      ) {
        results.push(value);
        throws?.push(dieThrow(d, kind, value, face));
        kind = 'reroll';
        thrown++;
        face = faces === undefined ? random.die(sides) : faces[random.die(sides) - 1]!;
        value = Math.min(Math.max(face, clampLow), clampHigh);
      }
      earlier.add(value);
    }
    const start = results.length;
    if (!compound) results.push(value);
    throws?.push(dieThrow(d, kind, value, face));
    dieFace[base + d] = face;
    let sum = value;
    if (explodes) {
      let tested = value;
      for (let extras = 0; extras < EXPLODE_CAP && within(tested, explodeLow, explodeHigh); extras++) {
        thrown++;
        const extraFace = faces === undefined ? random.die(sides) : faces[random.die(sides) - 1]!;
        tested = Math.min(Math.max(extraFace, clampLow), clampHigh);
        const recorded = tested - penalty;
        if (!compound) results.push(recorded);
        throws?.push(dieThrow(d, 'explode', recorded, extraFace));
        sum += recorded;
      }
    }
    if (compound) {
      chainStart[base + d] = results.length;
      results.push(sum);
    } else {
      chainStart[base + d] = start;
    }
    chainEnd[base + d] = results.length;
    dieValue[base + d] = sum;
  }
  spend(thrown);
  return { results, throws };
}

/**
 * A new array of a plan's values. A cached plan is frozen, and V8's `slice` copies a frozen array
 * by its generic path, through the runtime, which cost more than the roll of a d20.
 */
function copyOf(values: readonly number[]): number[] {
  const copy: number[] = [];
  for (let i = 0; i < values.length; i++) copy.push(values[i]!);
  return copy;
}

/**
 * `length` copies of `value`, pushed one by one: a packed array, where `new Array(n).fill()`
 * makes a holey one through a call into V8's runtime, which costs more than a small group's roll.
 */
function flags(length: number, value: boolean): boolean[] {
  const made: boolean[] = [];
  for (let i = 0; i < length; i++) made.push(value);
  return made;
}

/** The most common group (`3d6`, `999d6`): one throw per die, every die kept. */
function rollPlainGroup(plan: GroupPlan, random: RandomSource): DieGroup {
  const { sides, count } = plan;
  const results = throwFaces(sides, count, random);
  let sum = 0;
  for (let d = 0; d < count; d++) sum += results[d]!;
  const kept = results.slice();
  sortDescending(kept, sides);
  const single = count === 1 ? results[0] : undefined;
  const keptFlags = flags(count, true);
  return dieGroup(
    plan,
    results,
    kept,
    keptFlags,
    sum,
    single === sides,
    single === 1,
    undefined,
    undefined,
    undefined,
    undefined,
    false,
  );
}

/**
 * Marks in `dieKept` which of the `count` dice from `base` count, and returns how many. Ties are
 * broken by position: of equal values the earlier die is chosen first, kept first by a keep and
 * dropped first by a drop (docs/language.md "Ties").
 */
function selectKept(rule: KeepRule, amount: number, base: number, count: number): number {
  const end = base + count;
  const keeping = rule === KeepRule.KeepHighest || rule === KeepRule.KeepLowest;
  if (amount >= count) {
    dieKept.fill(keeping ? 1 : 0, base, end);
    return keeping ? count : 0;
  }
  const highestFirst = rule === KeepRule.KeepHighest || rule === KeepRule.DropHighest;
  // The `amount` dice chosen are the first in (value, then position) order.
  dieKept.fill(keeping ? 0 : 1, base, end);
  const mark = keeping ? 1 : 0;
  if (amount === 1) {
    let best = base;
    for (let d = base + 1; d < end; d++) {
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
      for (let d = base; d < end; d++) {
        const value = sign * dieValue[d]!;
        let at = d - base;
        while (at > 0 && sign * dieValue[order[at - 1]!]! > value) {
          order[at] = order[at - 1]!;
          at--;
        }
        order[at] = d;
      }
      for (let i = 0; i < amount; i++) dieKept[order[i]!] = mark;
    } else {
      for (let d = 0; d < count; d++) order[d] = base + d;
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

/**
 * Sorts values highest first, by counting when every value lies in 0..sides and the die is
 * small (`sides` 0: values of any size, compared).
 */
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
  if (sides > 0 && sides <= COUNTING_SORT_SIDES) {
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

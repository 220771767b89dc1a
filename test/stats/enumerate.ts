// Exhaustive enumeration through the real roller: every way each die can be thrown (rerolls,
// final throw, explosion chain up to a depth) is listed with its exact weight, every combination
// of those is fed to rollPrepared through a scripted source, and the totals are tallied. The
// roller must consume exactly the scripted throws, so a wrong die model fails here too.
// It lives beside its only users, the exact-engine tests in test/stats; test/support holds the
// helpers that tests in several folders share.

import { expect } from 'vitest';
import { type GroupPlan, type ModifierPlan, prepareRoll, within } from '../../src/formula/index.js';
import { rollPrepared } from '../../src/roll/roll.js';
import type { RollRequest } from '../../src/roll/types.js';
import type { StatsRequest, StatsResponse } from '../../src/stats/distribution.js';
import { distribution } from '../../src/stats/distribution.js';

interface DieWay {
  /** What the source returns, in order. */
  draws: number[];
  /** Weight over the group's per-die denominator. */
  weight: bigint;
  /** The chain went deeper than the depth (only its first part is scripted). */
  deep: boolean;
  /** Index in `draws` of the final throw (where the die's chain starts in `results`). */
  final: number;
}

export interface Enumerated {
  /** total -> weight over `denominator`. */
  counts: Map<number, bigint>;
  tail: bigint;
  denominator: bigint;
  /** Roller calls made. */
  rolls: number;
}

/** The term's rule of a kind, if it has one. */
function rule<K extends ModifierPlan['kind']>(
  plan: GroupPlan,
  kind: K,
): Extract<ModifierPlan, { kind: K }> | undefined {
  return plan.modifiers.find((m): m is Extract<ModifierPlan, { kind: K }> => m.kind === kind);
}

/**
 * Every way one die of `plan` can be thrown, as the draws (face slots 1..sides) the roller asks
 * for. Rerolled-away throws are represented by one met slot with multiplicity m^k (their values
 * never reach the total); every other draw is listed as itself: the final throw, then each
 * extra of its chain (faces, clamps and compare points read through the plan itself).
 */
function dieWays(plan: GroupPlan, depth: number): { ways: DieWay[]; denominator: bigint } {
  const { sides } = plan;
  const clamp = rule(plan, 'clamp');
  const reroll = rule(plan, 'reroll');
  const explode = rule(plan, 'explode');
  const rerollLimit = reroll?.limit ?? 0;
  const s = BigInt(sides);
  const cap = 100;
  const extrasMax = explode !== undefined ? Math.min(depth, cap) : 0;
  const maxDraws = rerollLimit + 1 + extrasMax;
  const value = (slot: number) => {
    const face = plan.faces === undefined ? slot : plan.faces[slot - 1]!;
    return clamp === undefined ? face : Math.min(Math.max(face, clamp.low), clamp.high);
  };
  const met = (slot: number) => reroll !== undefined && within(value(slot), reroll.low, reroll.high);
  const explodes = (slot: number) => explode !== undefined && within(value(slot), explode.low, explode.high);
  const slots = Array.from({ length: sides }, (_, i) => i + 1);
  const metSlots = slots.filter(met);
  const explodingSlots = slots.filter(explodes);
  const stopSlots = slots.filter((slot) => !explodes(slot));
  const m = BigInt(metSlots.length);
  const ways: DieWay[] = [];
  for (let k = 0; k <= rerollLimit; k++) {
    if (k > 0 && metSlots.length === 0) break;
    const rerolled = new Array<number>(k).fill(metSlots[0] ?? 1);
    const mult = m ** BigInt(k);
    const weightOf = (length: number) => mult * s ** BigInt(maxDraws - length);
    for (const slot of slots) {
      if (k < rerollLimit && met(slot)) continue;
      const base = [...rerolled, slot];
      if (!explodes(slot)) {
        ways.push({ draws: base, weight: weightOf(base.length), deep: false, final: k });
        continue;
      }
      // The chain: each extra is any slot; an exploding one goes on (the cap ends any chain).
      const extend = (draws: number[], extras: number): void => {
        if (extras === extrasMax && extrasMax < cap) {
          // Deeper than the depth: the weight of this prefix; scripted on with the highest
          // exploding slot and a stop, so the die ranks above every listed value.
          const top = explodingSlots.reduce((a, b) => (value(b) > value(a) ? b : a));
          const stop = stopSlots.reduce((a, b) => (value(b) > value(a) ? b : a));
          ways.push({ draws: [...draws, top, stop], weight: weightOf(draws.length), deep: true, final: k });
          return;
        }
        for (const next of slots) {
          const longer = [...draws, next];
          if (explodes(next) && extras + 1 < cap) extend(longer, extras + 1);
          else ways.push({ draws: longer, weight: weightOf(longer.length), deep: false, final: k });
        }
      };
      extend(base, 0);
    }
  }
  return { ways, denominator: s ** BigInt(maxDraws) };
}

/**
 * Every roll of `request` with chains listed to `depth`; a deep die that is kept goes to the tail
 * (with `anyDeep`, a roll with any deep die, kept or not: how the engine lists keep/drops whose
 * deep chains need not rank above every listed value).
 */
export function enumerate(
  request: RollRequest,
  depth: number,
  maxRolls = 200_000,
  anyDeep = false,
): Enumerated {
  const prepared = prepareRoll(request);
  const groups = prepared.groups.map((plan) => ({ plan, ...dieWays(plan, depth) }));
  let denominator = 1n;
  for (const g of groups) denominator *= g.denominator ** BigInt(g.plan.count);
  let configurations = 1;
  for (const g of groups) configurations *= g.ways.length ** g.plan.count;
  if (configurations > maxRolls) throw new Error(`too many rolls to enumerate: ${configurations}`);

  // One slot per die across all groups.
  const slots: Array<{ group: number; ways: DieWay[] }> = [];
  groups.forEach((g, group) => {
    for (let d = 0; d < g.plan.count; d++) slots.push({ group, ways: g.ways });
  });
  const choice = new Array<number>(slots.length).fill(0);
  const counts = new Map<number, bigint>();
  let tail = 0n;
  let rolls = 0;
  for (;;) {
    const draws: number[] = [];
    let weight = 1n;
    for (let i = 0; i < slots.length; i++) {
      const way = slots[i]!.ways[choice[i]!]!;
      draws.push(...way.draws);
      weight *= way.weight;
    }
    let at = 0;
    const response = rollPrepared(prepared, {
      random: {
        die(sides: number) {
          const face = draws[at++];
          if (face === undefined || face > sides) throw new Error('the roller drew more than scripted');
          return face;
        },
      },
    });
    rolls++;
    if (at !== draws.length) throw new Error('the roller drew fewer throws than scripted');
    // Is a deep die kept? Its chain starts at its final throw within its group's results.
    let deepKept = false;
    let offset = 0;
    let previousGroup = -1;
    for (let i = 0; i < slots.length; i++) {
      const { group } = slots[i]!;
      if (group !== previousGroup) {
        offset = 0;
        previousGroup = group;
      }
      const way = slots[i]!.ways[choice[i]!]!;
      const compound = rule(groups[group]!.plan, 'explode')?.compound === true;
      const final = compound ? 0 : way.final;
      if (way.deep && (anyDeep || response.dice[group]!.keptFlags[offset + final] === true)) deepKept = true;
      // A compounded die is one result; otherwise every draw is one.
      offset += compound ? 1 : way.draws.length;
    }
    if (deepKept) tail += weight;
    else counts.set(response.total, (counts.get(response.total) ?? 0n) + weight);
    // Next combination (odometer).
    let i = slots.length - 1;
    while (i >= 0) {
      choice[i]!++;
      if (choice[i]! < slots[i]!.ways.length) break;
      choice[i] = 0;
      i--;
    }
    if (i < 0) break;
  }
  return { counts, tail, denominator, rolls };
}

/** Engine and enumeration agree exactly: every total's count, the tail, nothing else listed. */
export function expectExactAs(
  request: StatsRequest,
  depth: number,
  anyDeep = false,
  maxRolls = 200_000,
): { rolls: number } {
  const engine = distribution({ ...request, depth });
  const truth = enumerate(request, depth, maxRolls, anyDeep);
  expect(engine.listing).toBe('full');
  const den = BigInt(engine.denominator!);
  const listed = new Map(engine.outcomes.map((o) => [o.total, BigInt(o.count!)]));
  for (const [total, weight] of truth.counts) {
    if (weight === 0n) continue;
    // count / den === weight / truth.denominator
    expect({ total, cross: (listed.get(total) ?? 0n) * truth.denominator }).toEqual({
      total,
      cross: weight * den,
    });
  }
  expect([...listed.keys()].filter((t) => !truth.counts.has(t))).toEqual([]);
  const tail = engine.truncation === null ? 0n : tailOf(engine);
  expect(tail * truth.denominator).toBe(truth.tail * den);
  return { rolls: truth.rolls };
}

function tailOf(engine: StatsResponse): bigint {
  const [n, d] = engine.truncation!.tailExact.split('/').map(BigInt) as [bigint, bigint];
  return (n * BigInt(engine.denominator!)) / d;
}

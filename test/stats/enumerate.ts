// Exhaustive enumeration through the real roller: every way each die can be thrown (rerolls,
// final throw, explosion chain up to a depth) is listed with its exact weight, every combination
// of those is fed to rollPrepared through a scripted source, and the totals are tallied. The
// roller must consume exactly the scripted throws, so a wrong die model fails here too.

import { prepareRoll } from '../../src/roll/prepare.js';
import { rollPrepared } from '../../src/roll/roll.js';
import type { RollRequest } from '../../src/roll/types.js';

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

function dieWays(
  plan: {
    sides: number;
    explode: number;
    rerollLimit: number;
    rerollLow: number;
    rerollHigh: number;
  },
  depth: number,
): { ways: DieWay[]; denominator: bigint } {
  const { sides, explode, rerollLimit } = plan;
  const s = BigInt(sides);
  const cap = 100;
  const extrasMax = explode === 0 ? 0 : Math.min(depth, cap);
  const maxDraws = rerollLimit + 1 + extrasMax;
  const met = (face: number) => rerollLimit > 0 && face >= plan.rerollLow && face <= plan.rerollHigh;
  const metFaces: number[] = [];
  for (let f = 1; f <= sides; f++) if (met(f)) metFaces.push(f);
  const m = BigInt(metFaces.length);
  const ways: DieWay[] = [];
  for (let k = 0; k <= rerollLimit; k++) {
    if (k > 0 && metFaces.length === 0) break;
    // k rerolled-away throws: any met faces; one representative, with multiplicity m^k.
    const rerolled = new Array<number>(k).fill(metFaces[0] ?? 1);
    for (let face = 1; face <= sides; face++) {
      if (k < rerollLimit && met(face)) continue;
      const base = [...rerolled, face];
      const mult = m ** BigInt(k);
      if (explode === 0 || face !== sides) {
        ways.push({ draws: base, weight: mult * s ** BigInt(maxDraws - base.length), deep: false, final: k });
        continue;
      }
      // The chain: j extras, the first j-1 top faces, the j-th stops it (any face at the cap).
      for (let j = 1; j <= extrasMax; j++) {
        const last = j === cap ? sides : sides - 1;
        for (let r = 1; r <= last; r++) {
          const draws = [...base, ...new Array<number>(j - 1).fill(sides), r];
          ways.push({ draws, weight: mult * s ** BigInt(maxDraws - draws.length), deep: false, final: k });
        }
      }
      if (extrasMax < cap) {
        // Deeper than the depth: D top extras (the weight), then one more top and a 1 scripted,
        // so the die's value is above every listed one.
        const weightDraws = base.length + extrasMax;
        const draws = [...base, ...new Array<number>(extrasMax + 1).fill(sides), 1];
        ways.push({ draws, weight: mult * s ** BigInt(maxDraws - weightDraws), deep: true, final: k });
      }
    }
  }
  return { ways, denominator: s ** BigInt(maxDraws) };
}

/** Every roll of `request` with chains listed to `depth`; a deep die that is kept goes to the tail. */
export function enumerate(request: RollRequest, depth: number, maxRolls = 200_000): Enumerated {
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
      if (way.deep && response.dice[group]!.keptFlags[offset + way.final] === true) deepKept = true;
      offset += way.draws.length;
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

// Compare points (docs/language.md, "Modifiers"): `N`, `=N`, `<>N`, `<N`, `<=N`, `>N`,
// `>=N`, as the checks, the plan and both back ends read them. A die's values meet a point as an
// inclusive range of integers, so the roller tests a value with two comparisons and no branching
// on the operator; a group's item totals, which may be fractions, meet it exactly (`meets`).

import type { ComparePoint, DiceNode, ExplodeModifier } from './ast.js';
import { Rational } from './rational.js';

/** The smallest and largest face of a die. */
export function faceBounds(dice: Pick<DiceNode, 'sides' | 'faces'>): [number, number] {
  if (dice.faces === undefined) return [1, dice.sides];
  let low = dice.faces[0]!;
  let high = low;
  for (const face of dice.faces) {
    if (face < low) low = face;
    if (face > high) high = face;
  }
  return [low, high];
}

/**
 * The values meeting a compare point, as an inclusive range [low, high] of integers (infinite
 * on an open side). A not-equal point is an inverted range (low > high): see `within`.
 */
export function compareBounds(compare: ComparePoint): [number, number] {
  const { operator, value } = compare;
  switch (operator) {
    case '<':
      return [Number.NEGATIVE_INFINITY, value - 1];
    case '<=':
      return [Number.NEGATIVE_INFINITY, value];
    case '>':
      return [value + 1, Number.POSITIVE_INFINITY];
    case '>=':
      return [value, Number.POSITIVE_INFINITY];
    case '<>':
      // Inverted: every value except `value` (see `within`).
      return [value + 1, value - 1];
    default:
      return [value, value];
  }
}

/**
 * Whether `value` meets a range from compareBounds: `low <= value <= high`, or for an inverted
 * range (low > high, a not-equal point) `value >= low || value <= high`. The range
 * [+infinity, -infinity] meets nothing either way.
 */
export function within(value: number, low: number, high: number): boolean {
  return low <= high ? value >= low && value <= high : value >= low || value <= high;
}

/** Whether an exact value (a group's item total, possibly a fraction) meets a compare point. */
export function meets(value: Rational, compare: ComparePoint): boolean {
  const c = value.compare(Rational.of(compare.value));
  switch (compare.operator) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    case '<>':
      return c !== 0;
    default:
      return c === 0;
  }
}

/** The term's min and max clamp values (the face bounds when not written). */
export function clampBounds(dice: DiceNode): [number, number] {
  let [low, high] = faceBounds(dice);
  for (const modifier of dice.modifiers) {
    if (modifier.kind !== 'clamp') continue;
    if (modifier.bound === 'min') low = modifier.value;
    else high = modifier.value;
  }
  return [low, high];
}

/** Whether every value a die of this term can record (after min/max) meets the compare point. */
export function everyValueMeets(dice: DiceNode, compare: ComparePoint): boolean {
  const [low, high] = compareBounds(compare);
  const [clampLow, clampHigh] = clampBounds(dice);
  if (dice.faces === undefined) {
    // Not equal: every value meets it when the excluded value lies outside the die's values.
    if (low > high) return high + 1 < clampLow || high + 1 > clampHigh;
    return low <= clampLow && clampHigh <= high;
  }
  return dice.faces.every((face) => within(Math.min(Math.max(face, clampLow), clampHigh), low, high));
}

/** The explode point of a term: the one written, else the die's largest face. */
export function explodePoint(dice: DiceNode, modifier: ExplodeModifier): ComparePoint {
  return modifier.compare ?? { operator: '=', value: faceBounds(dice)[1] };
}

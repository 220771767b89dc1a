// The smallest and largest value an expression can take (docs/language.md, "Limits"): the checks
// refuse a divisor whose values may hold zero, and a power that may pass 10^100, from these.

import { LIMITS } from '../limits.js';
import type { DiceNode, ExplodeModifier, ExpressionNode } from './ast.js';
import { clampBounds } from './compare.js';
import { constantValue } from './expression.js';
import { isPool, poolDice } from './walk.js';

export type Interval = [number, number];

/**
 * The smallest and largest value an expression can take, by interval arithmetic over each dice
 * term's smallest and largest total (wider than the truth where terms are not independent, never
 * narrower). Only called on checked trees, or on nodes whose divisors and exponents were checked.
 */
export function bounds(node: ExpressionNode): Interval {
  switch (node.kind) {
    case 'flat':
      return [node.sign * node.value, node.sign * node.value];
    case 'dice':
      return diceBounds(node);
    case 'sum': {
      let low = 0;
      let high = 0;
      for (const term of node.terms) {
        const [l, h] = bounds(term);
        low += l;
        high += h;
      }
      return [low, high];
    }
    case 'negate': {
      const [l, h] = bounds(node.operand);
      return [-h, -l];
    }
    case 'product': {
      const [a, b] = bounds(node.left);
      const [c, d] = bounds(node.right);
      if (node.operator === '*') return span([a * c, a * d, b * c, b * d]);
      if (c <= 0 && d >= 0) return [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
      if (node.operator === '/') return span([a / c, a / d, b / c, b / d]);
      // A remainder is smaller than the divisor and than the left side, with the left side's sign.
      const limit = Math.max(Math.abs(c), Math.abs(d));
      return [a < 0 ? -Math.min(limit, -a) : 0, b > 0 ? Math.min(limit, b) : 0];
    }
    case 'power': {
      const [a, b] = bounds(node.base);
      const e = constantValue(node.exponent).toNumber();
      if (e === 0) return [1, 1];
      if (e % 2 === 1 || a >= 0) return [a ** e, b ** e];
      if (b <= 0) return [b ** e, a ** e];
      return [0, Math.max(a ** e, b ** e)];
    }
    case 'call': {
      const args = node.arguments.map(bounds);
      const [a, b] = args[0]!;
      switch (node.name) {
        case 'floor':
          return [Math.floor(a), Math.floor(b)];
        case 'ceil':
          return [Math.ceil(a), Math.ceil(b)];
        case 'round':
          return [Math.floor(a), Math.ceil(b)];
        case 'abs':
          return a >= 0 ? [a, b] : b <= 0 ? [-b, -a] : [0, Math.max(-a, b)];
        case 'min':
          return [Math.min(...args.map((x) => x[0])), Math.min(...args.map((x) => x[1]))];
        case 'max':
          return [Math.max(...args.map((x) => x[0])), Math.max(...args.map((x) => x[1]))];
      }
      return [a, b];
    }
    case 'group': {
      const items = node.items.map(bounds);
      const counting = node.modifiers.some((m) => m.kind === 'success');
      if (counting) {
        let n = items.length;
        if (isPool(node)) n = poolDice(node);
        return [-n, n];
      }
      const selecting = node.modifiers.some((m) => m.kind === 'keep' || m.kind === 'drop');
      let low = 0;
      let high = 0;
      for (const [l, h] of items) {
        // A kept subset's sum lies between the sum of the negative lows and of the positive highs.
        low += selecting ? Math.min(0, l) : l;
        high += selecting ? Math.max(0, h) : h;
      }
      return [low, high];
    }
  }
}

function span(values: number[]): Interval {
  return [Math.min(...values), Math.max(...values)];
}

/** A dice term's smallest and largest total (sign, multiplier, keep/drop, counting included). */
function diceBounds(dice: DiceNode): Interval {
  let [a, b] = clampBounds(dice);
  const explode = dice.modifiers.find((m): m is ExplodeModifier => m.kind === 'explode');
  if (explode !== undefined) {
    const penalty = explode.penetrate ? 1 : 0;
    a += LIMITS.explodeCap * Math.min(0, a - penalty);
    b += LIMITS.explodeCap * Math.max(0, b - penalty);
  }
  let n = dice.count;
  let selecting = false;
  let counting = false;
  let matchTotal = false;
  let multiplier = 1;
  for (const modifier of dice.modifiers) {
    if (modifier.kind === 'advantage') n = Math.max(n, 2);
    if (modifier.kind === 'keep' || modifier.kind === 'drop' || modifier.kind === 'advantage')
      selecting = true;
    if (modifier.kind === 'success') counting = true;
    if (modifier.kind === 'match' && modifier.total) matchTotal = true;
    if (modifier.kind === 'multiply') multiplier = modifier.factor;
  }
  let low: number;
  let high: number;
  if (counting) [low, high] = [-n, n];
  else if (matchTotal) [low, high] = [0, n];
  else if (selecting) [low, high] = [Math.min(0, n * a), Math.max(0, n * b)];
  else [low, high] = [n * a, n * b];
  low *= multiplier;
  high *= multiplier;
  return dice.sign === 1 ? [low, high] : [-high, -low];
}

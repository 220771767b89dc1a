// Rolling with known faces, for the roller's tests: a roll of exactly the scripted faces checked
// against every invariant of a response (docs/language.md "The response"), the FormulaError a
// request is refused with, and a response's group by index.

import { expect } from 'vitest';
import {
  type DieGroup,
  type ExpressionResult,
  FormulaError,
  type RollRequest,
  type RollResponse,
  roll,
} from '../../src/index.js';
import { maxSource, scripted } from './sources.js';

const requestOf = (request: RollRequest | string): RollRequest =>
  typeof request === 'string' ? { formula: request } : request;

/**
 * Rolls with exactly these faces (a custom or Fate die asks for a die of as many sides as it has
 * faces and shows the face at that position); fails if the roll used fewer or more, or if the
 * response breaks an invariant (expectRollInvariants).
 */
export function rollWith(request: RollRequest | string, faces: readonly number[]): RollResponse {
  const source = scripted(faces);
  const response = roll(requestOf(request), { random: source });
  expect(source.remaining, 'every scripted face is thrown').toBe(0);
  expectRollInvariants(response);
  return response;
}

/** The FormulaError a request is refused with (rolled, if it were not, with the maximum source). */
export function formulaError(request: RollRequest | string): FormulaError {
  try {
    roll(requestOf(request), { random: maxSource() });
  } catch (error) {
    expect(error).toBeInstanceOf(FormulaError);
    return error as FormulaError;
  }
  throw new Error(`expected ${JSON.stringify(request)} to be refused`);
}

/** The response's group at `index`; fails when there is none. */
export function group(response: RollResponse, index = 0): DieGroup {
  const found = response.dice[index];
  if (found === undefined) throw new Error(`no group ${index}`);
  return found;
}

/**
 * What holds for every response: each group's kept values are its flagged results, highest
 * first, and its total their sum (or its successes minus failures, or with `mt` its number of
 * matching sets) times sign and multiplier; every throw is a result unless compounded; the
 * modifier is the sum of the modifiers; the total is the modifier plus the groups' totals, or
 * with arithmetic the expression's root rounded down, every node's value from its operands.
 */
export function expectRollInvariants(response: RollResponse): void {
  let total = response.modifier;
  for (const group of response.dice) {
    expect(group.keptFlags).toHaveLength(group.results.length);
    const kept = group.results.filter((_, i) => group.keptFlags[i]).sort((a, b) => b - a);
    expect(group.kept).toEqual(kept);
    const scaled = (amount: number) => group.sign * group.multiplier * amount || 0;
    if (group.successes !== undefined) {
      expect(group.total).toBe(scaled(group.successes - (group.failures ?? 0)));
    } else {
      const sum = scaled(kept.reduce((a, b) => a + b, 0));
      // `m` lists the sets and keeps the sum; `mt` makes their number the total.
      const totals = group.matches === undefined ? [sum] : [sum, scaled(group.matches.length)];
      expect(totals).toContain(group.total);
    }
    if (group.throws !== undefined && !group.compounded) {
      expect(group.throws.map((t) => t.value)).toEqual(group.results);
    }
    total += group.total;
  }
  expect(response.modifier).toBe(response.modifiers.reduce((a, b) => a + b, 0));
  if (response.expression === undefined) expect(response.total).toBe(total);
  else expectTree(response.expression, response);
}

/** The tree's own invariant: each node's value from its operands; total = floor of the root. */
function expectTree(root: ExpressionResult, response: RollResponse): void {
  const check = (node: ExpressionResult): number => {
    const exact = 'exact' in node && node.exact !== undefined ? node.exact : undefined;
    if (exact !== undefined) {
      const [n, d] = exact.split('/').map(Number);
      expectClose(node.value, n! / d!);
    }
    switch (node.type) {
      case 'dice':
        expect(node.value).toBe(response.dice[node.group]!.total);
        return node.value;
      case 'number':
        return node.value;
      case 'operation': {
        const all = node.operands.map(check);
        const [a, b] = all as [number, number];
        const expected = {
          '+': () => all.reduce((x, y) => x + y, 0),
          '-': () => -a,
          '*': () => a * b,
          '/': () => a / b,
          // Truncating division's remainder, with the sign of the left side.
          '%': () => a - b * Math.trunc(a / b),
          '^': () => a ** b,
        }[node.operator]();
        expectClose(node.value, expected);
        return node.value;
      }
      case 'function': {
        const values = node.arguments.map(check);
        const round = (x: number) => Math.sign(x) * Math.floor(Math.abs(x) + 0.5);
        const expected = {
          floor: () => Math.floor(values[0]!),
          ceil: () => Math.ceil(values[0]!),
          round: () => round(values[0]!),
          abs: () => Math.abs(values[0]!),
          min: () => Math.min(...values),
          max: () => Math.max(...values),
        }[node.name]();
        expectClose(node.value, expected);
        return node.value;
      }
      case 'group':
        for (const item of node.items) expectClose(check(item.node), item.value);
        return node.value;
    }
  };
  check(root);
  expect(response.total).toBe(Math.floor(root.value + 1e-9));
}

/** Equal to 9 decimal places, or to 12 significant digits for values past 10^12. */
function expectClose(actual: number, expected: number): void {
  if (Math.abs(expected) > 1e12) expect(Math.abs(actual - expected) / Math.abs(expected)).toBeLessThan(1e-12);
  else expect(actual).toBeCloseTo(expected, 9);
}

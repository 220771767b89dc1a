// Reading an exact distribution (a StatsResponse, docs/stats.md) at a glance, for every face that
// draws one: which totals hold the mass (at least 99.9 % of it), the chance of those left out,
// exact when the counts are listed, and a percentage that never rounds a real chance away.
import type { StatsResponse } from './types.js';

/** The chance left out of a drawing at each end, at most: 99.9 % or more is drawn. */
export const ODDS_TAIL = 0.0005;

/** The first and last index of the outcomes to draw: each end left out holds at most `tail`. */
export function oddsWindow(
  outcomes: ReadonlyArray<{ atLeast: number; atMost: number }>,
  tail = ODDS_TAIL,
): [number, number] {
  let first = 0;
  let last = outcomes.length - 1;
  while (first < last && outcomes[first]!.atMost <= tail) first++;
  while (last > first && outcomes[last]!.atLeast <= tail) last--;
  return [first, last];
}

/** A probability as a percentage that never reads 0 % or 100 % for a chance that is neither. */
export function percentText(p: number): string {
  if (p <= 0) return '0%';
  if (p >= 1) return '100%';
  const value = p * 100;
  if (value < 0.01) return `${value.toPrecision(2)}%`;
  const rest = (1 - p) * 100;
  // Near certain: as many digits as it takes not to read 100 %.
  if (rest < 0.05) return `${(100 - rest).toFixed(Math.min(12, 1 - Math.floor(Math.log10(rest))))}%`;
  return `${value >= 10 ? value.toFixed(1) : value.toPrecision(2)}%`;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/**
 * The chance of the outcomes with indices `from` to `to`, and exactly as a reduced fraction
 * ("1/1296") when the counts are listed and the fraction is short enough to read.
 */
export function chanceOf(
  stats: Pick<StatsResponse, 'outcomes' | 'denominator'>,
  from: number,
  to: number,
): { probability: number; exact: string | undefined } {
  const part = stats.outcomes.slice(from, to + 1);
  const probability = part.reduce((sum, o) => sum + o.probability, 0);
  if (stats.denominator === null || part.some((o) => o.count === undefined)) {
    return { probability, exact: undefined };
  }
  let n = 0n;
  for (const o of part) n += BigInt(o.count!);
  const d = BigInt(stats.denominator);
  const g = gcd(n, d) || 1n;
  const exact = `${n / g}/${d / g}`;
  return { probability, exact: exact.length <= 25 ? exact : undefined };
}

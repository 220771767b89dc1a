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

/**
 * A probability as a percentage, as every face writes one (the page, MCP lines, Discord): never
 * 0 % or 100 % for a chance that is neither, never e-notation. Under 0.0001 % it reads
 * "< 0.0001%", within 0.0001 % of certain "> 99.9999%"; under 0.01 %, two significant digits
 * ("0.0012%"); near certain, as many decimals as it takes not to read 100 % ("99.9990%").
 * Otherwise `decimals` decimals when given (MCP lines and Discord: 2, a figure to quote), else one
 * decimal from 10 % up and two significant digits below.
 */
export function percentText(p: number, decimals?: number): string {
  if (p <= 0) return '0%';
  if (p >= 1) return '100%';
  // Compared as probabilities: p * 100 for p = 1e-6 is 0.00009999999999999999.
  if (p < 1e-6) return '< 0.0001%';
  if (1 - p < 1e-6) return '> 99.9999%';
  const value = p * 100;
  // toPrecision writes plain digits down to 1e-6; here value is 0.0001 or more.
  if (value < 0.01) return `${value.toPrecision(2)}%`;
  const rest = (1 - p) * 100;
  if (rest < 0.05) {
    // Two significant digits of what is left to 100 %; the nudge reads 0.000999…98 (1 - (1 - 1e-5)) as 0.001.
    const needed = 1 - Math.floor(Math.log10(rest * (1 + 1e-9)));
    return `${(100 - rest).toFixed(Math.max(decimals ?? 0, needed))}%`;
  }
  if (decimals !== undefined) return `${value.toFixed(decimals)}%`;
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

// The benchmark's pure arithmetic: medians of rounds, ratios, spreads, percentiles, the round-robin
// order and the target checks. No timing and no I/O here, so a unit test can keep it honest.

/** Median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Relative spread of the rounds around their median: (max - min) / median. The machine is shared,
 * so this says how far a single round could have been trusted.
 */
export function spread(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('spread of an empty list');
  const centre = median(values);
  if (centre === 0) return 0;
  return (Math.max(...values) - Math.min(...values)) / centre;
}

/**
 * Ratio of two contenders' per-round throughputs: the median over rounds of (ours / theirs) per
 * round. Pairing by round cancels the machine's slow phases, which hit both sides of a round alike.
 */
export function ratioOfRounds(ours: readonly number[], theirs: readonly number[]): number {
  if (ours.length === 0 || ours.length !== theirs.length) {
    throw new RangeError(
      `ratio needs the same non-zero number of rounds (${ours.length} vs ${theirs.length})`,
    );
  }
  return median(ours.map((value, round) => value / theirs[round]!));
}

/** The q-quantile (0..1) of an unsorted sample, nearest-rank, as load tools report percentiles. */
export function percentile(sample: ArrayLike<number>, q: number, count = sample.length): number {
  if (count === 0) throw new RangeError('percentile of an empty sample');
  const sorted = Float64Array.from({ length: count }, (_, i) => sample[i]!).sort();
  const rank = Math.min(count, Math.max(1, Math.ceil(q * count)));
  return sorted[rank - 1]!;
}

/**
 * The order contenders run in during a round: rotated by one each round so no contender always
 * runs first (warm caches) or last (after the others' garbage).
 */
export function roundOrder<T>(contenders: readonly T[], round: number): T[] {
  const n = contenders.length;
  if (n === 0) return [];
  const shift = ((round % n) + n) % n;
  return [...contenders.slice(shift), ...contenders.slice(0, shift)];
}

export interface Target {
  /** `ratio >= min`, or for a latency quotient `ratio <= max`. */
  readonly min?: number;
  readonly max?: number;
}

export function meetsTarget(value: number, target: Target): boolean {
  if (!Number.isFinite(value)) return false;
  if (target.min !== undefined && value < target.min) return false;
  if (target.max !== undefined && value > target.max) return false;
  return true;
}

export function describeTarget(target: Target): string {
  const parts: string[] = [];
  if (target.min !== undefined) parts.push(`>= ${target.min}`);
  if (target.max !== undefined) parts.push(`<= ${target.max}`);
  return parts.join(' and ');
}

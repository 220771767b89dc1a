// In-process throughput of small functions (engine rolls, random draws), interleaved round by
// round: each contender gets one time slice per round, in an order rotated every round.
import { performance } from 'node:perf_hooks';
import { roundOrder } from './stats.js';

export interface MicroContender {
  readonly name: string;
  /** Does `iterations` operations and returns something derived from them, so none is optimised away. */
  run(iterations: number): number;
}

/** Keeps every result alive: a value the optimiser cannot prove unused. */
let sink = 0;
export function sinkValue(): number {
  return sink;
}

/**
 * Operations per second over one slice. Batches grow until one takes about a millisecond, so the
 * clock is read rarely; the whole slice counts, including the growing batches.
 */
export function opsPerSecond(contender: MicroContender, sliceMs: number): number {
  let batch = 1;
  let operations = 0;
  const start = performance.now();
  let now = start;
  while (now - start < sliceMs) {
    const batchStart = now;
    sink = (sink + contender.run(batch)) | 0;
    operations += batch;
    now = performance.now();
    if (now - batchStart < 1 && batch < 1 << 24) batch *= 2;
  }
  return (operations * 1000) / (now - start);
}

/**
 * Runs every contender once per round for `sliceMs` (after an unrecorded warm-up of `warmupMs`
 * each, long enough for the optimising compiler to finish) and returns each contender's
 * operations per second, round by round.
 */
export function interleave(
  contenders: readonly MicroContender[],
  rounds: number,
  sliceMs: number,
  warmupMs = sliceMs,
): Record<string, number[]> {
  const perRound: Record<string, number[]> = {};
  for (const contender of contenders) {
    perRound[contender.name] = [];
    opsPerSecond(contender, warmupMs);
  }
  for (let round = 0; round < rounds; round++) {
    for (const contender of roundOrder(contenders, round)) {
      perRound[contender.name]!.push(opsPerSecond(contender, sliceMs));
    }
  }
  return perRound;
}

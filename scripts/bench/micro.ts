// In-process throughput of small functions (engine rolls, random draws) per CPU second,
// interleaved round by round: each contender gets one slice per round, in an order rotated every round.
import { performance } from 'node:perf_hooks';
import { roundOrder } from './stats.js';

export interface MicroContender {
  readonly name: string;
  /** Does `iterations` operations and returns something derived from them, so none is optimised away. */
  run(iterations: number): number;
}

/** Keeps every result alive: a value the optimiser cannot prove unused. */
let sink = 0;

/** CPU time of this process (all its threads, user + system), in milliseconds. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Operations per CPU second over one slice of `sliceMs` of CPU time. CPU time, not wall time: on
 * a shared machine another process taking the core stretches the wall clock but not the work
 * done per CPU second, so rounds disagree far less. (A wall-clock cap still bounds the slice.)
 * Batches grow until one takes about a millisecond, so the clocks are read rarely.
 */
function opsPerSecond(contender: MicroContender, sliceMs: number): number {
  let batch = 1;
  let operations = 0;
  const wallStart = performance.now();
  const cpuStart = cpuMs();
  let cpu = 0;
  while (cpu < sliceMs && performance.now() - wallStart < sliceMs * 5) {
    const batchStart = cpu;
    sink = (sink + contender.run(batch)) | 0;
    operations += batch;
    cpu = cpuMs() - cpuStart;
    if (cpu - batchStart < 1 && batch < 1 << 24) batch *= 2;
  }
  return (operations * 1000) / Math.max(cpu, 0.001);
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

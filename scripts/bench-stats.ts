// `npm run bench:stats`: the exact distribution (/v1/stats's engine, cold: no cache) against the
// only alternative a user has, sampling with our own roller: 100,000 rolls of the same formula.
// The target: exact at most 1/10 of the sampling time. Times are CPU milliseconds of this
// process, median of the rounds; docs/performance.md#exact-distributions has figures.
//
//   npm run bench:stats [-- --rounds 3] [--rolls 100000] [--json] [--formula 5d10!kh3 ...]

import { parseArgs } from 'node:util';
import { prepareRoll } from '../src/formula/index.js';
import { rollPrepared } from '../src/roll/roll.js';
import { distribution } from '../src/stats/distribution.js';
import { median } from './bench/stats.js';

/** Formulas with the 1/10 target, and formulas whose exact time alone is reported. */
export const STATS_TARGET_FORMULAS = [
  '4d6kh3',
  '10d10kh3',
  '100d6',
  '2d20adv+5',
  '5d10!kh3',
  '8d6!',
  '6d10>=8f1',
] as const;
/** Formulas with arithmetic and groups (src/stats/expression.ts), against sampling as well. */
export const STATS_EXPRESSION_FORMULAS = ['(1d8+4)*2', '{1d20+5,1d20+3}kh1', '2d10/d20'] as const;
export const STATS_ABSOLUTE_FORMULAS = ['1000d6', '10d10!kh5', '1000d20kh3'] as const;
export const STATS_TARGET_RATIO = 0.1;

export interface StatsBenchRow {
  formula: string;
  exactMs: number;
  /** CPU ms of `rolls` rolls; null for the formulas measured alone. */
  samplingMs: number | null;
  ratio: number | null;
  meetsTarget: boolean | null;
}

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** CPU ms of one cold exact distribution: the median of repetitions filling about `sliceMs`. */
function exactOnce(formula: string, sliceMs: number): number {
  const times: number[] = [];
  const start = cpuMs();
  do {
    const t = cpuMs();
    distribution({ formula });
    times.push(cpuMs() - t);
  } while (cpuMs() - start < sliceMs && times.length < 1000);
  return median(times);
}

function samplingOnce(formula: string, rolls: number): number {
  const prepared = prepareRoll({ formula });
  let sink = 0;
  const start = cpuMs();
  for (let i = 0; i < rolls; i++) sink += rollPrepared(prepared).total;
  const ms = cpuMs() - start;
  if (sink === Number.MIN_SAFE_INTEGER) process.stdout.write('');
  return ms;
}

/** The ratio and the verdict for one formula's per-round times. */
export function statsRow(
  formula: string,
  exact: readonly number[],
  sampling: readonly number[] | null,
): StatsBenchRow {
  const exactMs = median(exact);
  if (sampling === null) return { formula, exactMs, samplingMs: null, ratio: null, meetsTarget: null };
  const samplingMs = median(sampling);
  const ratio = exactMs / samplingMs;
  return { formula, exactMs, samplingMs, ratio, meetsTarget: ratio <= STATS_TARGET_RATIO };
}

export function runStatsBench(options: {
  rounds: number;
  rolls: number;
  sliceMs: number;
  /** Only these formulas of the lists (every one when absent or empty). */
  only?: readonly string[] | undefined;
}): StatsBenchRow[] {
  const chosen = (list: readonly string[]) =>
    options.only === undefined || options.only.length === 0
      ? list
      : list.filter((f) => options.only!.includes(f));
  const sampled = chosen([...STATS_TARGET_FORMULAS, ...STATS_EXPRESSION_FORMULAS]);
  const formulas = [...sampled, ...chosen(STATS_ABSOLUTE_FORMULAS)];
  const exact = new Map<string, number[]>(formulas.map((f) => [f, []]));
  const sampling = new Map<string, number[]>(sampled.map((f) => [f, []]));
  for (const formula of formulas) distribution({ formula }); // warm-up, unrecorded
  for (let round = 0; round < options.rounds; round++) {
    for (const formula of formulas) {
      exact.get(formula)!.push(exactOnce(formula, options.sliceMs));
      sampling.get(formula)?.push(samplingOnce(formula, options.rolls));
    }
  }
  return formulas.map((f) => statsRow(f, exact.get(f)!, sampling.get(f) ?? null));
}

export function formatStatsBench(rows: readonly StatsBenchRow[], rolls: number): string {
  const lines = [
    `formula              exact (ms)   ${rolls} rolls (ms)   exact / sampling   target <= ${STATS_TARGET_RATIO}`,
  ];
  for (const r of rows) {
    const verdict = r.meetsTarget === null ? '(absolute)' : r.meetsTarget ? 'met' : 'MISSED';
    lines.push(
      `${r.formula.padEnd(20)} ${r.exactMs.toFixed(2).padStart(10)}   ${(r.samplingMs?.toFixed(0) ?? '-').padStart(16)}   ${(r.ratio?.toFixed(4) ?? '-').padStart(16)}   ${verdict}`,
    );
  }
  return lines.join('\n');
}

function main(): void {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      rolls: { type: 'string', default: '100000' },
      slice: { type: 'string', default: '200' },
      json: { type: 'boolean', default: false },
      formula: { type: 'string', multiple: true },
    },
  });
  const rolls = Number(values.rolls);
  const only = values.formula;
  const known: readonly string[] = [
    ...STATS_TARGET_FORMULAS,
    ...STATS_EXPRESSION_FORMULAS,
    ...STATS_ABSOLUTE_FORMULAS,
  ];
  for (const f of only ?? []) {
    if (!known.includes(f))
      throw new Error(`--formula ${f}: not one of the bench's formulas (${known.join(', ')})`);
  }
  const rows = runStatsBench({ rounds: Number(values.rounds), rolls, sliceMs: Number(values.slice), only });
  process.stdout.write(`${values.json ? JSON.stringify({ rolls, rows }) : formatStatsBench(rows, rolls)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/.*\//, '/'))) main();

// `npm run bench:stats`: the exact distribution (/v1/stats's engine, cold: no cache) against the
// only alternative a user has, sampling with our own roller: 100,000 rolls of the same formula.
// The target: exact at most 1/10 of the sampling time. Times are CPU milliseconds of this
// process, median of the rounds; docs/performance.md#exact-distributions has figures.
//
//   npm run bench:stats [-- --rounds 3] [--rolls 100000] [--json] [--formula 5d10!kh3 ...]

import { parseArgs } from 'node:util';
import { prepareRoll } from '../src/formula/index.js';
import { rollPrepared } from '../src/roll/roll.js';
import { distribution, distributions, type StatsRequest } from '../src/stats/distribution.js';
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

/**
 * The questions asked of distributions (docs/stats.md): an opposed roll, targets, the whole
 * roll's moments below the listing depth, several formulas at once. Each against sampling
 * 100,000 rolls of every formula it names, the alternative a user has.
 */
export const STATS_QUESTIONS: ReadonlyArray<{ label: string; requests: readonly StatsRequest[] }> = [
  { label: '1d20+7 vs 1d20+5', requests: [{ formula: '1d20+7', versus: { formula: '1d20+5' } }] },
  { label: '5d10!kh3 vs 4d10!kh3', requests: [{ formula: '5d10!kh3', versus: { formula: '4d10!kh3' } }] },
  {
    label: '2d6+3 vs 1d12+4 +t',
    requests: [{ formula: '2d6+3', targets: [8, 10, 12], versus: { formula: '1d12+4' } }],
  },
  {
    label: '4d6kh3 20 targets',
    requests: [{ formula: '4d6kh3', targets: Array.from({ length: 20 }, (_, i) => i) }],
  },
  { label: '2d6! depth 3', requests: [{ formula: '2d6!', depth: 3 }] },
  { label: '(1d6!)*2 depth 3', requests: [{ formula: '(1d6!)*2', depth: 3 }] },
  {
    label: 'batch of 5',
    requests: ['2d6+3', '1d12+4', '4d6kh3', '5d10!kh3', '2d20adv+5'].map((formula) => ({ formula })),
  },
];

/** The formulas a question names (sampled to compare). */
const questionFormulas = (requests: readonly StatsRequest[]): string[] =>
  requests.flatMap((r) => (r.versus === undefined ? [r.formula] : [r.formula, r.versus.formula]));

/** Answers a question as the service does: one request alone, several as a batch. */
const answerQuestion = (requests: readonly StatsRequest[]): unknown =>
  requests.length === 1 ? distribution(requests[0]!) : distributions(requests);
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

/** CPU ms of one cold exact answer: the median of repetitions filling about `sliceMs`. */
function exactOnce(requests: readonly StatsRequest[], sliceMs: number): number {
  const times: number[] = [];
  const start = cpuMs();
  do {
    const t = cpuMs();
    answerQuestion(requests);
    times.push(cpuMs() - t);
  } while (cpuMs() - start < sliceMs && times.length < 1000);
  return median(times);
}

function samplingOnce(formulas: readonly string[], rolls: number): number {
  let sink = 0;
  let ms = 0;
  for (const formula of formulas) {
    const prepared = prepareRoll({ formula });
    const start = cpuMs();
    for (let i = 0; i < rolls; i++) sink += rollPrepared(prepared).total;
    ms += cpuMs() - start;
  }
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
  const one = (formula: string) => [{ formula }];
  const entries: Array<{ label: string; requests: readonly StatsRequest[]; sampled: string[] | null }> = [
    ...chosen([...STATS_TARGET_FORMULAS, ...STATS_EXPRESSION_FORMULAS]).map((f) => ({
      label: f,
      requests: one(f),
      sampled: [f],
    })),
    ...chosen(STATS_ABSOLUTE_FORMULAS).map((f) => ({ label: f, requests: one(f), sampled: null })),
    ...STATS_QUESTIONS.filter((q) => chosen([q.label]).length > 0).map((q) => ({
      ...q,
      sampled: questionFormulas(q.requests),
    })),
  ];
  const exact = new Map<string, number[]>(entries.map((e) => [e.label, []]));
  const sampling = new Map<string, number[]>(entries.map((e) => [e.label, []]));
  for (const entry of entries) answerQuestion(entry.requests); // warm-up, unrecorded
  for (let round = 0; round < options.rounds; round++) {
    for (const entry of entries) {
      exact.get(entry.label)!.push(exactOnce(entry.requests, options.sliceMs));
      if (entry.sampled !== null) sampling.get(entry.label)!.push(samplingOnce(entry.sampled, options.rolls));
    }
  }
  return entries.map((e) =>
    statsRow(e.label, exact.get(e.label)!, e.sampled === null ? null : sampling.get(e.label)!),
  );
}

export function formatStatsBench(rows: readonly StatsBenchRow[], rolls: number): string {
  const lines = [
    `formula or question   exact (ms)   ${rolls} rolls (ms)   exact / sampling   target <= ${STATS_TARGET_RATIO}`,
  ];
  for (const r of rows) {
    const verdict = r.meetsTarget === null ? '(absolute)' : r.meetsTarget ? 'met' : 'MISSED';
    lines.push(
      `${r.formula.padEnd(21)}${r.exactMs.toFixed(2).padStart(10)}   ${(r.samplingMs?.toFixed(0) ?? '-').padStart(16)}   ${(r.ratio?.toFixed(4) ?? '-').padStart(16)}   ${verdict}`,
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
    ...STATS_QUESTIONS.map((q) => q.label),
  ];
  for (const f of only ?? []) {
    if (!known.includes(f))
      throw new Error(`--formula ${f}: not one of the bench's formulas (${known.join(', ')})`);
  }
  const rows = runStatsBench({ rounds: Number(values.rounds), rolls, sliceMs: Number(values.slice), only });
  process.stdout.write(`${values.json ? JSON.stringify({ rolls, rows }) : formatStatsBench(rows, rolls)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/.*\//, '/'))) main();

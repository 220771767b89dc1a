// `npm run bench:engine-vs`: parse+roll of plain sums by this build's engine, beside another build
// of fairdice loaded into the same process (the code before the language grew past plain sums, or
// any other commit), interleaved round by round, in CPU time. The forms the language added must
// not slow down the plain sums it could always write: docs/performance.md#plain-formulas-against-an-older-build
// says how to build the baseline and gives today's figures.
//
//   npm run bench:engine-vs -- --baseline ../fairdice-base [--rounds 7] [--slice-ms 200] [--json]
//
// Without --baseline only this build runs (uncached beside cached): the script works from a clean
// clone, the comparison needs the other build.

import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { interleave, type MicroContender } from './bench/micro.js';
import { median, ratioOfRounds, spread } from './bench/stats.js';

/**
 * Plain sums, what the language could write before it grew: a signed sum of dice terms and
 * integers, with kh/kl/k, dh/dl, adv/dis, !, !p, r/ro with a compare point, x K, and a trailing tag.
 */
export const PLAIN_SUM_FORMULAS = [
  '1d20',
  '1d20+5',
  '2d6+1d4+3',
  '4d6kh3+2',
  '4d6dl1',
  '2d20adv',
  '1d20dis+2',
  '4d6ro1',
  '8d6!',
  '10d10!p',
  '3d6r1!x2+2d8',
  '1d%+10 fire',
  '999d6',
] as const;

/** What this script needs of a build: `roll` and its production random source. */
interface EngineModule {
  roll(
    request: { formula: string; tags?: string[] },
    options?: { random?: unknown; parseCache?: unknown },
  ): { total: number; dice: unknown[] };
  cryptoRandom: unknown;
  ParseCache?: new (options: { maxEntries: number }) => unknown;
}

export interface EngineVsRow {
  formula: string;
  /** Operations per CPU second, median of the rounds. */
  current: number;
  currentCached: number;
  baseline: number | null;
  /** Median over rounds of current / baseline within the round. */
  uncachedVsBaseline: number | null;
  cachedVsBaseline: number | null;
  cachedVsUncached: number;
  /** (max - min) / median of each contender's rounds, the largest of them. */
  spread: number;
}

async function loadBuild(dir: string): Promise<EngineModule> {
  const entry = resolve(dir, 'dist', 'index.js');
  if (!existsSync(entry)) {
    throw new Error(`${entry} does not exist: build that checkout first (npm run build there)`);
  }
  const module = (await import(pathToFileURL(entry).href)) as EngineModule;
  if (typeof module.roll !== 'function' || module.cryptoRandom === undefined) {
    throw new Error(`${entry} exports no roll and cryptoRandom`);
  }
  return module;
}

/** The request for a formula; a trailing tag word (`1d%+10 fire`) is allowed by the request's tags. */
function requestOf(formula: string): { formula: string; tags?: string[] } {
  const tag = /\s([a-z]+)$/.exec(formula)?.[1];
  return tag === undefined ? { formula } : { formula, tags: [tag] };
}

function contender(name: string, engine: EngineModule, formula: string, cache?: unknown): MicroContender {
  const request = requestOf(formula);
  const options =
    cache === undefined
      ? { random: engine.cryptoRandom }
      : { random: engine.cryptoRandom, parseCache: cache };
  return {
    name,
    run(iterations) {
      let sum = 0;
      for (let i = 0; i < iterations; i++) sum += engine.roll(request, options).total;
      return sum;
    },
  };
}

/** Each contender rolls the formula once and must answer the same shape of roll. */
function checkSameRoll(formula: string, engines: readonly EngineModule[]): void {
  const groups = engines.map(
    (engine) => engine.roll(requestOf(formula), { random: engine.cryptoRandom }).dice.length,
  );
  if (new Set(groups).size !== 1) {
    throw new Error(`${formula}: the builds disagree on its dice groups (${groups.join(' vs ')})`);
  }
}

export function engineVsRow(formula: string, rounds: Record<string, number[]>): EngineVsRow {
  const current = rounds.current!;
  const cached = rounds.currentCached!;
  const baseline = rounds.baseline;
  return {
    formula,
    current: median(current),
    currentCached: median(cached),
    baseline: baseline === undefined ? null : median(baseline),
    uncachedVsBaseline: baseline === undefined ? null : ratioOfRounds(current, baseline),
    cachedVsBaseline: baseline === undefined ? null : ratioOfRounds(cached, baseline),
    cachedVsUncached: ratioOfRounds(cached, current),
    spread: Math.max(...Object.values(rounds).map(spread)),
  };
}

const fixed = (value: number | null, digits: number) => (value === null ? '' : value.toFixed(digits));

export function formatEngineVs(rows: readonly EngineVsRow[]): string {
  const header = [
    'formula',
    'current /s',
    'cached /s',
    'baseline /s',
    'uncached÷base',
    'cached÷base',
    'spread',
  ];
  const lines = rows.map((row) => [
    row.formula,
    Math.round(row.current).toLocaleString('en-US'),
    Math.round(row.currentCached).toLocaleString('en-US'),
    row.baseline === null ? '' : Math.round(row.baseline).toLocaleString('en-US'),
    fixed(row.uncachedVsBaseline, 2),
    fixed(row.cachedVsBaseline, 2),
    `${Math.round(row.spread * 100)}%`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)));
  return [header, ...lines]
    .map((line) => line.map((cell, i) => cell.padEnd(widths[i]!)).join('  '))
    .join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      rounds: { type: 'string', default: '7' },
      'slice-ms': { type: 'string', default: '200' },
      'warmup-ms': { type: 'string', default: '500' },
      formulas: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const rounds = Number.parseInt(values.rounds, 10);
  const sliceMs = Number.parseInt(values['slice-ms'], 10);
  const warmupMs = Number.parseInt(values['warmup-ms'], 10);
  for (const [name, value] of Object.entries({ rounds, sliceMs, warmupMs })) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a positive integer`);
  }
  const formulas = values.formulas?.split(';').map((f) => f.trim()) ?? PLAIN_SUM_FORMULAS;

  const current = await loadBuild(resolve(import.meta.dirname, '..'));
  const baseline = values.baseline === undefined ? undefined : await loadBuild(values.baseline);
  if (current.ParseCache === undefined) throw new Error('this build exports no ParseCache');
  if (baseline === undefined) {
    process.stderr.write(
      'No --baseline: this build only (uncached beside cached). To compare, build another checkout (docs/performance.md#plain-formulas-against-an-older-build).\n',
    );
  }

  const loadAtStart = loadavg()[0]!;
  const rows: EngineVsRow[] = [];
  for (const formula of formulas) {
    checkSameRoll(formula, baseline === undefined ? [current] : [current, baseline]);
    const contenders = [
      contender('current', current, formula, new current.ParseCache({ maxEntries: 0 })),
      contender('currentCached', current, formula, new current.ParseCache({ maxEntries: 1000 })),
    ];
    // The baseline's own roll: a build without a parse cache ignores the option; one with a
    // cache gets a cache of 0 entries, so the baseline figure is always its uncached engine.
    if (baseline !== undefined) {
      const cache =
        baseline.ParseCache === undefined ? undefined : new baseline.ParseCache({ maxEntries: 0 });
      contenders.push(contender('baseline', baseline, formula, cache));
    }
    const perRound = interleave(contenders, rounds, sliceMs, warmupMs);
    const row = engineVsRow(formula, perRound);
    rows.push(row);
    process.stderr.write(
      `${formula}: uncached ${fixed(row.uncachedVsBaseline, 2)}, cached ${fixed(row.cachedVsBaseline, 2)} of baseline\n`,
    );
  }
  const machine = {
    cpus: cpus().length,
    node: process.version,
    loadAverage1mAtStart: Number(loadAtStart.toFixed(2)),
    loadAverage1mAtEnd: Number(loadavg()[0]!.toFixed(2)),
  };
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ date: new Date(), machine, rounds, sliceMs, baseline: values.baseline ?? null, rows })}\n`,
    );
  } else {
    process.stdout.write(
      `${formatEngineVs(rows)}\n(${rounds} rounds of ${sliceMs} ms CPU each; load average ${machine.loadAverage1mAtStart} → ${machine.loadAverage1mAtEnd})\n`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bench:engine-vs failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}

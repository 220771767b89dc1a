// Turns the raw per-round numbers into the report: medians, spreads, the ratios with their targets,
// the JSON object and the readable table. Pure, so the test can feed it made-up rounds.
import { describeTarget, median, meetsTarget, ratioOfRounds, spread, type Target } from './stats.js';

export interface HttpRound {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverCpuMicrosPerRequest: number;
  readonly loadCpuMicrosPerRequest: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface HttpScenarioRounds {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly server: string;
  readonly rounds: readonly HttpRound[];
}

export interface MicroPair {
  readonly label: string;
  /** Contender name -> operations per second, one entry per round. */
  readonly rounds: Readonly<Record<string, readonly number[]>>;
}

export interface RawResults {
  readonly http?: Readonly<Record<string, HttpScenarioRounds>>;
  /** Keyed by ENGINE_FORMULAS name; contenders `fairdice` and `rpgDiceRoller`. */
  readonly engine?: Readonly<Record<string, MicroPair>>;
  /** Contenders `pooledSampler`, `randomInt`, `mathRandom`. */
  readonly sampler?: MicroPair;
}

/** The targets listed in docs/performance.md. Latency quotients are "at most"; throughput ratios "at least". */
const TARGETS: Readonly<Record<string, Target>> = {
  rollGetVsBareFastify: { min: 0.5 },
  rollGetP99VsBareFastify: { max: 2 },
  rollGetVsTrpcToOpenapi: { min: 4 },
  engine4d6kh3VsRpgDiceRoller: { min: 5 },
  engine999d6VsRpgDiceRoller: { min: 10 },
  samplerVsRandomInt: { min: 2 },
  samplerVsMathRandom: { min: 0.6 },
};

export interface Summary {
  readonly median: number;
  /** (max - min) / median over the rounds. */
  readonly spread: number;
  readonly rounds: readonly number[];
}

function summarise(rounds: readonly number[]): Summary {
  return { median: median(rounds), spread: spread(rounds), rounds };
}

export interface HttpSummary {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly server: string;
  readonly requestsPerSecond: Summary;
  readonly p50Ms: Summary;
  readonly p99Ms: Summary;
  readonly serverCpuMicrosPerRequest: Summary;
  readonly loadCpuMicrosPerRequest: Summary;
  readonly rounds: readonly HttpRound[];
}

export interface TargetCheck {
  readonly target: string;
  readonly value: number;
  readonly pass: boolean;
}

export interface BenchReport {
  readonly benchmark: 'fairdice';
  readonly date: string;
  readonly machine: Readonly<Record<string, string | number>>;
  readonly config: Readonly<Record<string, string | number | boolean>>;
  readonly http: Readonly<Record<string, HttpSummary>>;
  readonly engine: Readonly<Record<string, { label: string; contenders: Record<string, Summary> }>>;
  readonly sampler: { label: string; contenders: Record<string, Summary> } | null;
  readonly ratios: Readonly<Record<string, number>>;
  readonly targets: Readonly<Record<string, TargetCheck>>;
  /** Every target that was measured was met. */
  readonly pass: boolean;
}

function column(rounds: readonly HttpRound[], key: keyof HttpRound): number[] {
  return rounds.map((round) => round[key]);
}

/** Ratios of medians of per-round quotients (see ratioOfRounds); absent when a side was not run. */
function computeRatios(raw: RawResults): Record<string, number> {
  const ratios: Record<string, number> = {};
  const http = raw.http ?? {};
  const rollGet = http.rollGet?.rounds;
  const bare = http.bareFastify?.rounds;
  const trpc = http.trpcToOpenapiGet?.rounds;
  if (rollGet && bare) {
    ratios.rollGetVsBareFastify = ratioOfRounds(
      column(rollGet, 'requestsPerSecond'),
      column(bare, 'requestsPerSecond'),
    );
    ratios.rollGetP99VsBareFastify = ratioOfRounds(column(rollGet, 'p99Ms'), column(bare, 'p99Ms'));
    // Server CPU per request, bare's over ours: the same question, blind to the load generator's ceiling.
    ratios.rollGetCpuVsBareFastify = ratioOfRounds(
      column(bare, 'serverCpuMicrosPerRequest'),
      column(rollGet, 'serverCpuMicrosPerRequest'),
    );
  }
  if (rollGet && trpc) {
    ratios.rollGetVsTrpcToOpenapi = ratioOfRounds(
      column(rollGet, 'requestsPerSecond'),
      column(trpc, 'requestsPerSecond'),
    );
  }
  for (const [name, pair] of Object.entries(raw.engine ?? {})) {
    const ours = pair.rounds.fairdice;
    const theirs = pair.rounds.rpgDiceRoller;
    if (ours && theirs) ratios[`engine${name}VsRpgDiceRoller`] = ratioOfRounds(ours, theirs);
  }
  const sampler = raw.sampler?.rounds;
  if (sampler?.pooledSampler && sampler.randomInt) {
    ratios.samplerVsRandomInt = ratioOfRounds(sampler.pooledSampler, sampler.randomInt);
  }
  if (sampler?.pooledSampler && sampler.mathRandom) {
    ratios.samplerVsMathRandom = ratioOfRounds(sampler.pooledSampler, sampler.mathRandom);
  }
  return ratios;
}

function checkTargets(ratios: Readonly<Record<string, number>>): Record<string, TargetCheck> {
  const checks: Record<string, TargetCheck> = {};
  for (const [name, target] of Object.entries(TARGETS)) {
    const value = ratios[name];
    if (value === undefined) continue;
    checks[name] = { target: describeTarget(target), value, pass: meetsTarget(value, target) };
  }
  return checks;
}

export function buildReport(
  raw: RawResults,
  context: { date: Date; machine: BenchReport['machine']; config: BenchReport['config'] },
): BenchReport {
  const http: Record<string, HttpSummary> = {};
  for (const [name, scenario] of Object.entries(raw.http ?? {})) {
    http[name] = {
      label: scenario.label,
      method: scenario.method,
      path: scenario.path,
      server: scenario.server,
      requestsPerSecond: summarise(column(scenario.rounds, 'requestsPerSecond')),
      p50Ms: summarise(column(scenario.rounds, 'p50Ms')),
      p99Ms: summarise(column(scenario.rounds, 'p99Ms')),
      serverCpuMicrosPerRequest: summarise(column(scenario.rounds, 'serverCpuMicrosPerRequest')),
      loadCpuMicrosPerRequest: summarise(column(scenario.rounds, 'loadCpuMicrosPerRequest')),
      rounds: scenario.rounds,
    };
  }
  const summariseMicro = (pair: MicroPair) => ({
    label: pair.label,
    contenders: Object.fromEntries(
      Object.entries(pair.rounds).map(([name, rounds]) => [name, summarise(rounds)]),
    ),
  });
  const engine = Object.fromEntries(
    Object.entries(raw.engine ?? {}).map(([name, pair]) => [name, summariseMicro(pair)]),
  );
  const ratios = computeRatios(raw);
  const targets = checkTargets(ratios);
  return {
    benchmark: 'fairdice',
    date: context.date.toISOString(),
    machine: context.machine,
    config: context.config,
    http,
    engine,
    sampler: raw.sampler ? summariseMicro(raw.sampler) : null,
    ratios,
    targets,
    pass: Object.values(targets).every((check) => check.pass),
  };
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

function thousands(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

function percent(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value * 100)}%` : 'n/a';
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** The human-readable report: one table per part, then the ratios against their targets. */
export function formatReport(report: BenchReport): string {
  const parts: string[] = [];
  const rounds = report.config.rounds;
  parts.push(
    `fairdice benchmark, ${report.date}, ${report.machine.cpus} cores (${report.machine.cpuModel}), node ${report.machine.node}; ` +
      `medians of ${rounds} interleaved rounds; spread = (max-min)/median across rounds`,
  );
  if (Object.keys(report.http).length > 0) {
    parts.push(
      table(
        ['HTTP', 'req/s', 'spread', 'p50 ms', 'p99 ms', 'server CPU us/req', 'autocannon CPU us/req'],
        Object.values(report.http).map((s) => [
          s.label,
          thousands(s.requestsPerSecond.median),
          percent(s.requestsPerSecond.spread),
          fixed(s.p50Ms.median, 3),
          fixed(s.p99Ms.median, 3),
          fixed(s.serverCpuMicrosPerRequest.median, 1),
          fixed(s.loadCpuMicrosPerRequest.median, 1),
        ]),
      ),
    );
  }
  const micro = [...Object.values(report.engine), ...(report.sampler ? [report.sampler] : [])].flatMap(
    (pair) =>
      Object.entries(pair.contenders).map(([name, summary]) => [
        `${pair.label}: ${name}`,
        thousands(summary.median),
        percent(summary.spread),
      ]),
  );
  if (micro.length > 0) parts.push(table(['in process', 'ops/s', 'spread'], micro));
  const ratioRows = Object.entries(report.ratios).map(([name, value]) => {
    const check = report.targets[name];
    return [
      name,
      fixed(value, 2),
      check ? check.target : '(info)',
      check ? (check.pass ? 'PASS' : 'FAIL') : '',
    ];
  });
  if (ratioRows.length > 0) parts.push(table(['ratio', 'value', 'target', ''], ratioRows));
  const failed = Object.entries(report.targets).filter(([, check]) => !check.pass);
  parts.push(
    failed.length === 0
      ? `all ${Object.keys(report.targets).length} measured targets met`
      : `targets missed: ${failed.map(([name]) => name).join(', ')}`,
  );
  return parts.join('\n\n');
}

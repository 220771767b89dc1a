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
  /** The main load generator's rounds (wrk, or autocannon when wrk is unavailable). */
  readonly http?: Readonly<Record<string, HttpScenarioRounds>>;
  /** autocannon's shorter rounds beside wrk's: a second opinion, never checked against a target. */
  readonly httpAutocannon?: Readonly<Record<string, HttpScenarioRounds>>;
  /**
   * Keyed by ENGINE_FORMULAS name; contenders `fairdice` (parsed every time), `fairdiceCached`
   * (through the parse cache, the service's default) and `rpgDiceRoller`.
   */
  readonly engine?: Readonly<Record<string, MicroPair>>;
  /** Contenders `pooledSampler`, `randomInt`, `mathRandom`. */
  readonly sampler?: MicroPair;
}

/**
 * The targets (docs/performance.md#targets), read from the main load generator's figures. Latency
 * quotients are "at most"; throughput ratios "at least".
 */
const TARGETS: Readonly<Record<string, Target>> = {
  rollGetVsBareFastify: { min: 0.65 },
  rollGetP99VsBareFastify: { max: 2 },
  rollGetVsTrpcToOpenapi: { min: 4 },
  // Metrics on, over metrics off: counting costs at most 5 % (docs/operations.md#metrics-and-readiness).
  rollGetMetricsVsRollGet: { min: 0.95 },
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
  /** autocannon's figures when wrk was the main generator, else null. */
  readonly httpAutocannon: Readonly<Record<string, HttpSummary>> | null;
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

/** The HTTP ratios of one load generator's rounds, named with `suffix` ('' for the main one). */
function httpRatios(
  http: Readonly<Record<string, HttpScenarioRounds>>,
  suffix: string,
  ratios: Record<string, number>,
): void {
  /**
   * `${ours}Vs${theirs}`: req/s, ours over theirs; with `p99`, `${ours}P99Vs${theirs}` (ours over
   * theirs); with `cpu`, `${ours}CpuVs${theirs}`: server CPU per request, theirs over ours (the same
   * question as req/s, blind to the load generator's ceiling). Absent when a side was not run.
   */
  const compare = (
    ours: string,
    a: readonly HttpRound[] | undefined,
    theirs: string,
    b: readonly HttpRound[] | undefined,
    also: { p99?: boolean; cpu?: boolean } = {},
  ) => {
    if (!a || !b) return;
    ratios[`${ours}Vs${theirs}${suffix}`] = ratioOfRounds(
      column(a, 'requestsPerSecond'),
      column(b, 'requestsPerSecond'),
    );
    if (also.p99)
      ratios[`${ours}P99Vs${theirs}${suffix}`] = ratioOfRounds(column(a, 'p99Ms'), column(b, 'p99Ms'));
    if (also.cpu) {
      ratios[`${ours}CpuVs${theirs}${suffix}`] = ratioOfRounds(
        column(b, 'serverCpuMicrosPerRequest'),
        column(a, 'serverCpuMicrosPerRequest'),
      );
    }
  };
  const rollGet = http.rollGet?.rounds;
  const bare = http.bareFastify?.rounds;
  const baseline = http.rollGetBaseline?.rounds;
  compare('rollGet', rollGet, 'BareFastify', bare, { p99: true, cpu: true });
  // Against the bare route answering fairdice's answer (informational): what fairdice's own work costs.
  compare('rollGet', rollGet, 'BareSameAnswer', http.bareSameAnswer?.rounds, { cpu: true });
  // With --baseline (informational): this build against the other, and the other against bare
  // fastify, measured in the same rounds as rollGet's own ratios.
  compare('rollGet', rollGet, 'Baseline', baseline, { cpu: true });
  compare('baseline', baseline, 'BareFastify', bare, { p99: true, cpu: true });
  compare('rollGet', rollGet, 'TrpcToOpenapi', http.trpcToOpenapiGet?.rounds);
  compare('rollGetMetrics', http.rollGetMetrics?.rounds, 'RollGet', rollGet, { p99: true, cpu: true });
}

/** Ratios of medians of per-round quotients (see ratioOfRounds); absent when a side was not run. */
function computeRatios(raw: RawResults): Record<string, number> {
  const ratios: Record<string, number> = {};
  httpRatios(raw.http ?? {}, '', ratios);
  httpRatios(raw.httpAutocannon ?? {}, 'Autocannon', ratios);
  for (const [name, pair] of Object.entries(raw.engine ?? {})) {
    const ours = pair.rounds.fairdice;
    const theirs = pair.rounds.rpgDiceRoller;
    const cached = pair.rounds.fairdiceCached;
    if (ours && theirs) ratios[`engine${name}VsRpgDiceRoller`] = ratioOfRounds(ours, theirs);
    // What the parse cache buys on a repeated formula (the ratio above never uses it).
    if (ours && cached) ratios[`engine${name}CachedVsUncached`] = ratioOfRounds(cached, ours);
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

function summariseHttp(scenarios: Readonly<Record<string, HttpScenarioRounds>>): Record<string, HttpSummary> {
  const http: Record<string, HttpSummary> = {};
  for (const [name, scenario] of Object.entries(scenarios)) {
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
  return http;
}

export function buildReport(
  raw: RawResults,
  context: { date: Date; machine: BenchReport['machine']; config: BenchReport['config'] },
): BenchReport {
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
    http: summariseHttp(raw.http ?? {}),
    httpAutocannon: raw.httpAutocannon ? summariseHttp(raw.httpAutocannon) : null,
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
      `load average ${report.machine.loadAverage1mAtStart} at start, ${report.machine.loadAverage1mAtEnd} at end; ` +
      `medians of ${rounds} interleaved rounds; spread = (max-min)/median across rounds`,
  );
  const httpTable = (title: string, scenarios: Readonly<Record<string, HttpSummary>>) =>
    table(
      [title, 'req/s', 'spread', 'p50 ms', 'p99 ms', 'server CPU us/req', 'load gen CPU us/req'],
      Object.values(scenarios).map((s) => [
        s.label,
        thousands(s.requestsPerSecond.median),
        percent(s.requestsPerSecond.spread),
        fixed(s.p50Ms.median, 3),
        fixed(s.p99Ms.median, 3),
        fixed(s.serverCpuMicrosPerRequest.median, 1),
        fixed(s.loadCpuMicrosPerRequest.median, 1),
      ]),
    );
  if (Object.keys(report.http).length > 0) {
    parts.push(`HTTP load generator: ${report.config.loadGenerator}; pinning: ${report.config.pinning}`);
    parts.push(httpTable(report.httpAutocannon ? 'HTTP (wrk)' : 'HTTP (autocannon)', report.http));
  }
  if (report.httpAutocannon) parts.push(httpTable('HTTP (autocannon)', report.httpAutocannon));
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

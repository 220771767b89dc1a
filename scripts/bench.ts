// `npm run bench`: fairdice against bare fastify, trpc-to-openapi's own adapter, rpg-dice-roller,
// crypto.randomInt and Math.random, interleaved round by round; a table, or with --json one object.
// HTTP load comes from wrk (installed with apt-get when missing; autocannon when that fails), with
// autocannon's shorter rounds beside it as a second opinion.
// Only ratios from one run mean anything: the machine is shared and its speed drifts.
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  fairdiceRoll,
  rpgDiceRollerRoll,
  samplerContenders,
  useCryptoEngineForRpgDiceRoller,
} from './bench/contenders.js';
import { corePinning, type Pinning, pinProcess } from './bench/cores.js';
import { checkScenario, runAutocannon, type ServerHandle, startServer } from './bench/http.js';
import { interleave } from './bench/micro.js';
import {
  type BenchReport,
  buildReport,
  formatReport,
  type HttpRound,
  type HttpScenarioRounds,
  type RawResults,
} from './bench/report.js';
import { SERVICE_SCRIPT } from './bench/service.js';
import { median, roundOrder } from './bench/stats.js';
import {
  BASELINE_SCENARIO,
  ENGINE_FORMULAS,
  HTTP_SCENARIOS,
  type HttpScenario,
  SAMPLER_SIDES,
} from './bench/workloads.js';
import { ensureWrk, runWrk, type WrkAvailability } from './bench/wrk.js';

const PARTS = ['http', 'engine', 'sampler'] as const;
type Part = (typeof PARTS)[number];
const LOAD_GENERATORS = ['auto', 'wrk', 'autocannon'] as const;
type LoadGeneratorChoice = (typeof LOAD_GENERATORS)[number];

interface BenchConfig {
  readonly rounds: number;
  /** wrk's load per scenario per round, whole seconds (wrk takes no fractions). */
  readonly httpSeconds: number;
  /** Unrecorded warm-up per scenario before round one (0: none). */
  readonly httpWarmupSeconds: number;
  /** autocannon's load per scenario per round: the second opinion, shorter. */
  readonly autocannonSeconds: number;
  readonly connections: number;
  /** Hard cap on requests per autocannon run (wrk runs are bounded by their duration). */
  readonly maxRequestsPerRun: number;
  /** Time slice per in-process contender per round, and its unrecorded warm-up. */
  readonly sliceMs: number;
  readonly warmupMs: number;
}

// Full: about 2 minutes of HTTP load and 45 s in process, so `npm run bench` ends within 4 minutes.
const FULL: BenchConfig = {
  rounds: 7,
  httpSeconds: 2,
  httpWarmupSeconds: 2,
  autocannonSeconds: 0.5,
  connections: 10,
  maxRequestsPerRun: 300_000,
  sliceMs: 300,
  warmupMs: 1000,
};
// For the test that keeps this script from rotting: every part runs, the numbers mean nothing.
const SMOKE: BenchConfig = {
  rounds: 1,
  httpSeconds: 1,
  httpWarmupSeconds: 0,
  autocannonSeconds: 0.2,
  connections: 2,
  maxRequestsPerRun: 2_000,
  sliceMs: 10,
  warmupMs: 10,
};
// Under a minute on a quiet machine, build included.
const QUICK: BenchConfig = {
  rounds: 3,
  httpSeconds: 1,
  httpWarmupSeconds: 1,
  autocannonSeconds: 0.25,
  connections: 10,
  maxRequestsPerRun: 150_000,
  sliceMs: 80,
  warmupMs: 250,
};

const CONFIGS = { full: FULL, quick: QUICK, smoke: SMOKE } as const;

// fairdice runs as a user starts it in production (./bench/service.ts: `node dist/server.js`,
// NODE_ENV=production, the default SQLite store and a generated signing key, its log at the
// default level to a pipe nobody reads) with only the limits lifted: the rate limiter and the
// throws budget still run on every request (they are part of each request's cost), with budgets
// of a billion per minute and per second, far above what one run can send, so they never answer 429.
const FAIRDICE_ENV: NodeJS.ProcessEnv = {
  RATE_LIMIT_MAX: String(1_000_000_000),
  THROWS_PER_SECOND: String(1_000_000_000),
  NODE_ENV: 'production',
};

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** One load generator's rounds over every scenario: the order rotates by one each round. */
async function interleavedRounds(
  scenarios: readonly HttpScenario[],
  rounds: number,
  generator: string,
  run: (scenario: HttpScenario) => Promise<HttpRound>,
): Promise<Map<string, HttpRound[]>> {
  const perScenario = new Map<string, HttpRound[]>(scenarios.map((scenario) => [scenario.name, []]));
  for (let round = 0; round < rounds; round++) {
    const line: string[] = [];
    for (const scenario of roundOrder(scenarios, round)) {
      const result = await run(scenario);
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(
          `${scenario.name} (${generator}): ${result.non2xx} answers >= 400 and ${result.errors} errors under load`,
        );
      }
      perScenario.get(scenario.name)!.push(result);
      line.push(`${scenario.name} ${Math.round(result.requestsPerSecond)}`);
    }
    log(`HTTP ${generator} round ${round + 1}/${rounds}: ${line.join(', ')} req/s`);
  }
  return perScenario;
}

function scenarioRounds(
  scenarios: readonly HttpScenario[],
  rounds: Map<string, HttpRound[]>,
): Record<string, HttpScenarioRounds> {
  return Object.fromEntries(
    scenarios.map((scenario) => [
      scenario.name,
      {
        label: scenario.label,
        method: scenario.method,
        path: scenario.path,
        server: scenario.server,
        rounds: rounds.get(scenario.name)!,
      },
    ]),
  );
}

interface HttpResults {
  /** wrk's rounds, or autocannon's when wrk is unavailable: the figures the targets read. */
  readonly main: Record<string, HttpScenarioRounds>;
  /** autocannon's shorter rounds next to wrk's; absent when autocannon is the main generator. */
  readonly autocannon?: Record<string, HttpScenarioRounds>;
}

async function runHttp(
  config: BenchConfig,
  profile: boolean,
  scenarios: readonly HttpScenario[],
  wrk: boolean,
  pinning: Pinning | undefined,
  baselineDir: string | undefined,
): Promise<HttpResults> {
  // One server process per scenario, fairdice's too: each heap sees one workload, as the bare
  // route's does, so the garbage of 1000d6 replies is never collected during another scenario.
  const servers = new Map<string, ServerHandle>();
  try {
    // Started together: each child spends a second or so loading tsx and its modules.
    const started = await Promise.allSettled(
      scenarios.map(async ({ name, server: kind }) => {
        const handle = await startServer(kind, {
          // One folder per server: every thread (tsx's loader has its own) writes a profile there.
          nodeFlags: profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve('profiles', name)}`] : [],
          env:
            kind === 'bareFastify' || kind === 'bareFastifySameAnswer'
              ? { NODE_ENV: 'production' }
              : kind === 'fairdiceMetrics'
                ? { ...FAIRDICE_ENV, METRICS_PORT: '0' }
                : FAIRDICE_ENV,
          // The service's own log (pino, stdout) is written as in production, never shown.
          quietStdout: kind !== 'bareFastify' && kind !== 'bareFastifySameAnswer',
          core: pinning?.serverCore,
          checkout: kind === 'baseline' ? baselineDir : undefined,
        });
        return [name, handle] as const;
      }),
    );
    // Every child that did start is registered first, so `finally` stops it even if another failed.
    for (const outcome of started) if (outcome.status === 'fulfilled') servers.set(...outcome.value);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    const serverOf = (scenario: HttpScenario) => servers.get(scenario.name)!;
    for (const scenario of scenarios) await checkScenario(serverOf(scenario), scenario);

    const wrkRun = (seconds: number) => (scenario: HttpScenario) =>
      runWrk(serverOf(scenario), scenario, { seconds, connections: config.connections, pinning });
    const autocannonRun = (seconds: number) => (scenario: HttpScenario) =>
      runAutocannon(serverOf(scenario), scenario, {
        seconds,
        connections: config.connections,
        maxRequests: config.maxRequestsPerRun,
      });
    const mainRun = wrk ? wrkRun : autocannonRun;
    const mainName = wrk ? 'wrk' : 'autocannon';
    if (config.httpWarmupSeconds > 0) {
      log(
        `HTTP: warming up ${scenarios.length} scenarios for ${config.httpWarmupSeconds} s each (${mainName})`,
      );
      for (const scenario of scenarios) await mainRun(config.httpWarmupSeconds)(scenario);
    }
    const main = await interleavedRounds(scenarios, config.rounds, mainName, mainRun(config.httpSeconds));
    if (!wrk) return { main: scenarioRounds(scenarios, main) };
    // autocannon runs in this process: on the load core, off the server's.
    if (pinning) pinProcess(process.pid, pinning.loadCore);
    for (const scenario of scenarios) await autocannonRun(config.autocannonSeconds)(scenario);
    const second = await interleavedRounds(
      scenarios,
      config.rounds,
      'autocannon',
      autocannonRun(config.autocannonSeconds),
    );
    return { main: scenarioRounds(scenarios, main), autocannon: scenarioRounds(scenarios, second) };
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

function runEngine(config: BenchConfig): NonNullable<RawResults['engine']> {
  useCryptoEngineForRpgDiceRoller();
  const engine: Record<string, { label: string; rounds: Record<string, number[]> }> = {};
  for (const { name, formula, peer } of ENGINE_FORMULAS) {
    const rounds = interleave(
      [fairdiceRoll(formula, false), fairdiceRoll(formula, true), rpgDiceRollerRoll(peer ?? formula)],
      config.rounds,
      config.sliceMs,
      config.warmupMs,
    );
    engine[name] = { label: `parse+roll ${formula}`, rounds };
    log(
      `engine ${formula}: ${Object.entries(rounds)
        .map(([name, perRound]) => `${name} ${perRound.map(Math.round).join(' ')}`)
        .join('; ')}`,
    );
  }
  return engine;
}

function runSampler(config: BenchConfig): NonNullable<RawResults['sampler']> {
  const rounds = interleave(samplerContenders(SAMPLER_SIDES), config.rounds, config.sliceMs, config.warmupMs);
  log(
    `sampler d${SAMPLER_SIDES}: ${Object.entries(rounds)
      .map(([name, r]) => `${name} ${Math.round(median(r))}`)
      .join(', ')}`,
  );
  return { label: `d${SAMPLER_SIDES} dice`, rounds };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      only: { type: 'string' },
      rounds: { type: 'string' },
      scenarios: { type: 'string' },
      'load-generator': { type: 'string', default: 'auto' },
      baseline: { type: 'string' },
    },
    strict: true,
  });
  const mode = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full';
  const base = CONFIGS[mode];
  const config: BenchConfig = values.rounds ? { ...base, rounds: Number.parseInt(values.rounds, 10) } : base;
  if (!Number.isInteger(config.rounds) || config.rounds < 1)
    throw new Error('--rounds takes a positive integer');
  const parts = new Set<Part>(
    values.only ? (values.only.split(',').map((part) => part.trim()) as Part[]) : PARTS,
  );
  for (const part of parts) if (!PARTS.includes(part)) throw new Error(`--only takes ${PARTS.join(',')}`);
  // For profiling one route: --scenarios rollGet loads only that scenario's server.
  const scenarioNames = values.scenarios?.split(',').map((name) => name.trim());
  const chosen = scenarioNames
    ? HTTP_SCENARIOS.filter((s) => scenarioNames.includes(s.name))
    : HTTP_SCENARIOS;
  if (scenarioNames && chosen.length !== scenarioNames.length) {
    throw new Error(`--scenarios takes ${HTTP_SCENARIOS.map((s) => s.name).join(',')}`);
  }
  // --baseline DIR: DIR's build answers GET /v1/roll?formula=1d20 as one more scenario of every round.
  const baselineDir = values.baseline === undefined ? undefined : resolve(values.baseline);
  if (baselineDir !== undefined && !existsSync(resolve(baselineDir, SERVICE_SCRIPT))) {
    throw new Error(`--baseline ${values.baseline}: no ${SERVICE_SCRIPT} there (build it: npm run build)`);
  }
  const scenarios = baselineDir === undefined ? chosen : [...chosen, BASELINE_SCENARIO];
  const choice = values['load-generator'] as LoadGeneratorChoice;
  if (!LOAD_GENERATORS.includes(choice)) {
    throw new Error(`--load-generator takes ${LOAD_GENERATORS.join(', ')}`);
  }

  const started = Date.now();
  const loadAverageAtStart = Number(loadavg()[0]!.toFixed(2));
  const raw: { -readonly [K in keyof RawResults]: RawResults[K] } = {};
  // In-process parts first, while no server child competes for the two cores.
  if (parts.has('sampler')) raw.sampler = runSampler(config);
  if (parts.has('engine')) raw.engine = runEngine(config);
  let loadGenerator = 'none (no HTTP part)';
  const pinning = corePinning();
  if (parts.has('http')) {
    let wrk: WrkAvailability = { missing: '--load-generator autocannon' };
    if (choice !== 'autocannon') wrk = await ensureWrk(true, log);
    if ('missing' in wrk) {
      if (choice === 'wrk') throw new Error(`--load-generator wrk: ${wrk.missing}`);
      log(`HTTP load generator: autocannon (${wrk.missing})`);
      loadGenerator = `autocannon (wrk unavailable: ${wrk.missing})`;
    } else {
      loadGenerator = `${wrk.version}, 1 thread (autocannon: second opinion, ${config.autocannonSeconds} s per run)`;
    }
    const http = await runHttp(config, values.profile, scenarios, 'version' in wrk, pinning, baselineDir);
    raw.http = http.main;
    if (http.autocannon) raw.httpAutocannon = http.autocannon;
  }

  const cpuList = cpus();
  const report: BenchReport = buildReport(raw, {
    date: new Date(),
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      loadAverage1mAtStart: loadAverageAtStart,
      loadAverage1mAtEnd: Number(loadavg()[0]!.toFixed(2)),
    },
    config: {
      mode,
      ...config,
      parts: [...parts].join(','),
      ...(baselineDir === undefined ? {} : { baseline: baselineDir }),
      loadGenerator,
      fairdice: `${SERVICE_SCRIPT} as started by a user, NODE_ENV=production, default SQLite store, generated signing key; only RATE_LIMIT_MAX and THROWS_PER_SECOND lifted`,
      pinning: pinning
        ? `server children on core ${pinning.serverCore}, load generator on core ${pinning.loadCore} (taskset)`
        : 'none (needs taskset and 2 cores)',
      seconds: Math.round((Date.now() - started) / 1000),
    },
  });
  if (values.json) {
    log(formatReport(report));
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(`${formatReport(report)}\n`);
  }
}

main().catch((error: unknown) => {
  log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});

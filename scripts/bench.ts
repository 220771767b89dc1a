// `npm run bench`: fairdice against bare fastify, trpc-to-openapi's own adapter, rpg-dice-roller,
// crypto.randomInt and Math.random, interleaved round by round; a table, or with --json one object.
// Only ratios from one run mean anything: the machine is shared and its speed drifts.
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  fairdiceRoll,
  rpgDiceRollerRoll,
  samplerContenders,
  useCryptoEngineForRpgDiceRoller,
} from './bench/contenders.js';
import { checkScenario, loadServer, type ServerHandle, startServer } from './bench/http.js';
import { interleave } from './bench/micro.js';
import {
  type BenchReport,
  buildReport,
  formatReport,
  type HttpRound,
  type HttpScenarioRounds,
  type RawResults,
} from './bench/report.js';
import { median, roundOrder } from './bench/stats.js';
import { ENGINE_FORMULAS, HTTP_SCENARIOS, type HttpScenario, SAMPLER_SIDES } from './bench/workloads.js';

const PARTS = ['http', 'engine', 'sampler'] as const;
type Part = (typeof PARTS)[number];

interface BenchConfig {
  readonly rounds: number;
  /** Load per scenario per round, and the unrecorded warm-up before round one. */
  readonly httpSeconds: number;
  readonly httpWarmupSeconds: number;
  readonly connections: number;
  readonly maxRequestsPerRun: number;
  /** Time slice per in-process contender per round, and its unrecorded warm-up. */
  readonly sliceMs: number;
  readonly warmupMs: number;
}

// Full: about 75 s of HTTP load and 25 s in process, so `npm run bench` ends within 3 minutes.
const FULL: BenchConfig = {
  rounds: 7,
  httpSeconds: 1.5,
  httpWarmupSeconds: 2,
  connections: 10,
  maxRequestsPerRun: 300_000,
  sliceMs: 300,
  warmupMs: 1000,
};
// For the test that keeps this script from rotting: every part runs, the numbers mean nothing.
const SMOKE: BenchConfig = {
  rounds: 1,
  httpSeconds: 0.2,
  httpWarmupSeconds: 0.1,
  connections: 2,
  maxRequestsPerRun: 2_000,
  sliceMs: 10,
  warmupMs: 10,
};
const QUICK: BenchConfig = {
  rounds: 3,
  httpSeconds: 0.75,
  httpWarmupSeconds: 1,
  connections: 10,
  maxRequestsPerRun: 150_000,
  sliceMs: 100,
  warmupMs: 400,
};

const CONFIGS = { full: FULL, quick: QUICK, smoke: SMOKE } as const;

// The rate limit stays on (it is part of every request's cost) but cannot trip during the load.
const FAIRDICE_ENV: NodeJS.ProcessEnv = {
  RATE_LIMIT_MAX: String(1_000_000_000),
  RATE_LIMIT_WINDOW_MS: '60000',
  LOG_LEVEL: 'info',
  NODE_ENV: 'production',
};

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function runHttp(
  config: BenchConfig,
  profile: boolean,
  scenarios: readonly HttpScenario[],
): Promise<Record<string, HttpScenarioRounds>> {
  // One server process per scenario, fairdice's too: each heap sees one workload, as the bare
  // route's does, so the garbage of 1000d6 replies is never collected during another scenario.
  const servers = new Map<string, ServerHandle>();
  try {
    // Started together: each child spends a second or so loading tsx and its modules.
    const started = await Promise.allSettled(
      scenarios.map(async ({ name, server: kind }) => {
        const handle = await startServer(kind, {
          // One folder per server: every thread (tsx's loader has its own) writes a profile there.
          nodeFlags: profile ? ['--cpu-prof', `--cpu-prof-dir=profiles/${name}`] : [],
          env: kind === 'bareFastify' ? { NODE_ENV: 'production' } : FAIRDICE_ENV,
          // The service's own log (pino, stdout) goes to /dev/null: written as in production, never shown.
          quietStdout: kind !== 'bareFastify',
        });
        return [name, handle] as const;
      }),
    );
    // Every child that did start is registered first, so `finally` stops it even if another failed.
    for (const outcome of started) if (outcome.status === 'fulfilled') servers.set(...outcome.value);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    const serverOf = (scenario: HttpScenario) => servers.get(scenario.name)!;
    for (const scenario of scenarios) await checkScenario(serverOf(scenario), scenario);
    const load = { connections: config.connections, maxRequests: config.maxRequestsPerRun };
    log(`HTTP: warming up ${scenarios.length} scenarios for ${config.httpWarmupSeconds} s each`);
    for (const scenario of scenarios) {
      await loadServer(serverOf(scenario), scenario, { ...load, seconds: config.httpWarmupSeconds });
    }
    const rounds = new Map<string, HttpRound[]>(scenarios.map((scenario) => [scenario.name, []]));
    for (let round = 0; round < config.rounds; round++) {
      const line: string[] = [];
      for (const scenario of roundOrder(scenarios, round)) {
        const run = await loadServer(serverOf(scenario), scenario, {
          ...load,
          seconds: config.httpSeconds,
        });
        if (run.non2xx > 0 || run.errors > 0) {
          throw new Error(
            `${scenario.name}: ${run.non2xx} non-2xx answers and ${run.errors} errors under load`,
          );
        }
        rounds.get(scenario.name)!.push(run);
        line.push(`${scenario.name} ${Math.round(run.requestsPerSecond)}`);
      }
      log(`HTTP round ${round + 1}/${config.rounds}: ${line.join(', ')} req/s`);
    }
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
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

function runEngine(config: BenchConfig): NonNullable<RawResults['engine']> {
  useCryptoEngineForRpgDiceRoller();
  const engine: Record<string, { label: string; rounds: Record<string, number[]> }> = {};
  for (const { name, formula, peer } of ENGINE_FORMULAS) {
    const rounds = interleave(
      [fairdiceRoll(formula), rpgDiceRollerRoll(peer ?? formula)],
      config.rounds,
      config.sliceMs,
      config.warmupMs,
    );
    engine[name] = { label: `parse+roll ${formula}`, rounds };
    log(
      `engine ${formula}: fairdice ${rounds.fairdice!.map(Math.round).join(' ')}; rpg-dice-roller ${rounds.rpgDiceRoller!.map(Math.round).join(' ')}`,
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
  const scenarios = scenarioNames
    ? HTTP_SCENARIOS.filter((s) => scenarioNames.includes(s.name))
    : HTTP_SCENARIOS;
  if (scenarioNames && scenarios.length !== scenarioNames.length) {
    throw new Error(`--scenarios takes ${HTTP_SCENARIOS.map((s) => s.name).join(',')}`);
  }

  const started = Date.now();
  const raw: { -readonly [K in keyof RawResults]: RawResults[K] } = {};
  // In-process parts first, while no server child competes for the two cores.
  if (parts.has('sampler')) raw.sampler = runSampler(config);
  if (parts.has('engine')) raw.engine = runEngine(config);
  if (parts.has('http')) raw.http = await runHttp(config, values.profile, scenarios);

  const cpuList = cpus();
  const report: BenchReport = buildReport(raw, {
    date: new Date(),
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    },
    config: {
      mode,
      ...config,
      parts: [...parts].join(','),
      loadGenerator: 'autocannon in the bench process; each server in its own child process',
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

// The report's shape and ratios from made-up rounds: the JSON keys consumers read must not rot.
import { describe, expect, it } from 'vitest';
import { interleave } from '../../../scripts/bench/micro.js';
import { buildReport, formatReport, type HttpRound, type RawResults } from '../../../scripts/bench/report.js';

function httpRounds(requestsPerSecond: number[], p99Ms: number[], cpu: number[]): HttpRound[] {
  return requestsPerSecond.map((rps, round) => ({
    requestsPerSecond: rps,
    p50Ms: p99Ms[round]! / 4,
    p99Ms: p99Ms[round]!,
    serverCpuMicrosPerRequest: cpu[round]!,
    loadCpuMicrosPerRequest: 30,
    requests: rps,
    non2xx: 0,
    errors: 0,
  }));
}

const scenario = (server: string, rounds: HttpRound[]) => ({
  label: server,
  method: 'GET',
  path: '/v1/roll?formula=1d20',
  server,
  rounds,
});

const raw: RawResults = {
  http: {
    bareFastify: scenario('bareFastify', httpRounds([40_000, 30_000, 44_000], [1, 1, 1], [20, 20, 20])),
    rollGet: scenario('fairdice', httpRounds([24_000, 12_000, 22_000], [1.5, 2.5, 1.8], [30, 40, 38])),
    rollGetMetrics: scenario(
      'fairdiceMetrics',
      httpRounds([24_000, 11_000, 22_880], [1.5, 2.5, 1.8], [30, 40, 40]),
    ),
    bareSameAnswer: scenario(
      'bareFastifySameAnswer',
      httpRounds([30_000, 16_000, 20_000], [1, 2, 2], [24, 36, 38]),
    ),
    trpcToOpenapiGet: scenario(
      'trpcToOpenapi',
      httpRounds([4_000, 4_000, 5_000], [9, 9, 9], [200, 200, 200]),
    ),
  },
  httpAutocannon: {
    bareFastify: scenario('bareFastify', httpRounds([20_000, 20_000, 20_000], [2, 2, 2], [20, 20, 20])),
    rollGet: scenario('fairdice', httpRounds([16_000, 18_000, 14_000], [3, 5, 4], [30, 30, 30])),
  },
  engine: {
    '4d6kh3': {
      label: 'parse+roll 4d6kh3+2',
      rounds: {
        fairdice: [600, 500, 700],
        fairdiceCached: [1800, 1000, 1960],
        rpgDiceRoller: [100, 100, 100],
      },
    },
    '999d6': { label: 'parse+roll 999d6', rounds: { fairdice: [90, 80, 100], rpgDiceRoller: [10, 10, 10] } },
  },
  sampler: {
    label: 'd20 dice',
    rounds: { pooledSampler: [30, 30, 30], randomInt: [10, 20, 10], mathRandom: [60, 60, 40] },
  },
};

describe('buildReport', () => {
  const report = buildReport(raw, {
    date: new Date('2026-01-02T03:04:05Z'),
    machine: { cpus: 2, cpuModel: 'test cpu', node: 'v20' },
    config: { rounds: 3 },
  });

  it('computes every required ratio from per-round quotients', () => {
    expect(report.ratios.rollGetVsBareFastify).toBeCloseTo(0.5, 12); // 0.6, 0.4, 0.5
    expect(report.ratios.rollGetP99VsBareFastify).toBeCloseTo(1.8, 12);
    expect(report.ratios.rollGetCpuVsBareFastify).toBeCloseTo(0.5263, 3); // 20/38
    expect(report.ratios.rollGetVsTrpcToOpenapi).toBeCloseTo(4.4, 12); // 6, 3, 4.4
    expect(report.ratios.rollGetVsBareSameAnswer).toBeCloseTo(0.8, 12); // 0.8, 0.75, 1.1
    expect(report.ratios.rollGetCpuVsBareSameAnswer).toBeCloseTo(0.9, 12); // 0.8, 0.9, 1
    // Metrics on over off, round by round: 1, 0.9167, 1.04.
    expect(report.ratios.rollGetMetricsVsRollGet).toBe(1);
    expect(report.targets.rollGetMetricsVsRollGet).toEqual({
      target: '>= 0.95',
      value: 1,
      pass: true,
    });
    // Informational: the reference carries no target.
    expect(report.targets.rollGetCpuVsBareSameAnswer).toBeUndefined();
    expect(report.ratios.engine4d6kh3VsRpgDiceRoller).toBe(6);
    expect(report.ratios.engine4d6kh3CachedVsUncached).toBe(2.8); // 3, 2, 2.8
    expect(report.ratios.rollGetVsBareFastifyAutocannon).toBeCloseTo(0.8, 12); // 0.8, 0.9, 0.7
    expect(report.ratios.rollGetP99VsBareFastifyAutocannon).toBe(2); // 1.5, 2.5, 2
    expect(report.ratios.engine999d6VsRpgDiceRoller).toBe(9);
    expect(report.ratios.samplerVsRandomInt).toBe(3); // 3, 1.5, 3
    expect(report.ratios.samplerVsMathRandom).toBe(0.5); // 0.5, 0.5, 0.75
  });

  it('marks each target pass or fail and the whole run by its worst', () => {
    expect(report.targets.rollGetVsBareFastify).toEqual({
      target: '>= 0.65',
      value: report.ratios.rollGetVsBareFastify,
      pass: false,
    });
    expect(report.targets.rollGetP99VsBareFastify?.pass).toBe(true);
    expect(report.targets.engine999d6VsRpgDiceRoller?.pass).toBe(false);
    expect(report.targets.samplerVsMathRandom?.pass).toBe(false);
    expect(report.targets.rollGetCpuVsBareFastify).toBeUndefined();
    // autocannon's figures are a second opinion: no target reads them.
    expect(report.targets.rollGetP99VsBareFastifyAutocannon).toBeUndefined();
    expect(report.pass).toBe(false);
  });

  it('keeps the raw rounds and the medians of rollGet and bare fastify, and survives JSON', () => {
    const parsed = JSON.parse(JSON.stringify(report)) as typeof report;
    expect(parsed.http.rollGet?.rounds).toHaveLength(3);
    expect(parsed.http.rollGet?.p99Ms.median).toBe(1.8);
    expect(parsed.http.bareFastify?.requestsPerSecond.median).toBe(40_000);
    expect(parsed.http.bareFastify?.requestsPerSecond.rounds).toEqual([40_000, 30_000, 44_000]);
    expect(parsed.httpAutocannon?.rollGet?.requestsPerSecond.median).toBe(16_000);
    expect(parsed.engine['999d6']?.contenders.fairdice?.median).toBe(90);
    expect(parsed.sampler?.contenders.randomInt?.rounds).toEqual([10, 20, 10]);
    expect(parsed.date).toBe('2026-01-02T03:04:05.000Z');
  });

  it('prints a table with each ratio, its target and its mark', () => {
    const text = formatReport(report);
    expect(text).toMatch(/rollGetVsBareFastify\s+0\.50\s+>= 0\.65\s+FAIL/);
    expect(text).toMatch(/rollGetVsBareFastifyAutocannon\s+0\.80\s+\(info\)/);
    expect(text).toMatch(/^HTTP \(wrk\)/m);
    expect(text).toMatch(/^HTTP \(autocannon\)/m);
    expect(text).toMatch(/engine999d6VsRpgDiceRoller\s+9\.00\s+>= 10\s+FAIL/);
    expect(text).toMatch(/rollGetCpuVsBareFastify\s+0\.53\s+\(info\)/);
    expect(text).toContain(
      'targets missed: rollGetVsBareFastify, engine999d6VsRpgDiceRoller, samplerVsMathRandom',
    );
  });

  it('compares with the baseline build only when --baseline ran it', () => {
    expect(Object.keys(report.ratios).filter((name) => /[Bb]aseline/.test(name))).toEqual([]);
    const withBaseline = buildReport(
      {
        http: {
          ...raw.http,
          rollGetBaseline: scenario(
            'baseline',
            httpRounds([20_000, 10_000, 22_000], [2, 2, 3], [40, 50, 38]),
          ),
        },
      },
      { date: new Date(0), machine: { cpus: 2 }, config: { rounds: 3 } },
    );
    expect(withBaseline.ratios.rollGetVsBaseline).toBeCloseTo(1.2, 12); // 1.2, 1.2, 1
    expect(withBaseline.ratios.rollGetCpuVsBaseline).toBeCloseTo(1.25, 12); // 1.333, 1.25, 1
    expect(withBaseline.ratios.baselineVsBareFastify).toBeCloseTo(0.5, 12); // 0.5, 0.333, 0.5
    expect(withBaseline.ratios.baselineP99VsBareFastify).toBe(2); // 2, 2, 3
    expect(withBaseline.ratios.baselineCpuVsBareFastify).toBeCloseTo(0.5, 12); // 0.5, 0.4, 0.53
    // Informational: the targets read this build's figures only.
    expect(withBaseline.targets.rollGetVsBaseline).toBeUndefined();
    expect(withBaseline.targets.rollGetVsBareFastify?.value).toBe(report.ratios.rollGetVsBareFastify);
    expect(formatReport(withBaseline)).toMatch(/rollGetCpuVsBaseline\s+1\.25\s+\(info\)/);
  });

  it('leaves out the ratios of parts that were not run', () => {
    const engineOnly = buildReport(
      { engine: raw.engine! },
      { date: new Date(0), machine: { cpus: 2 }, config: { rounds: 3 } },
    );
    expect(Object.keys(engineOnly.ratios).sort()).toEqual([
      'engine4d6kh3CachedVsUncached',
      'engine4d6kh3VsRpgDiceRoller',
      'engine999d6VsRpgDiceRoller',
    ]);
    expect(engineOnly.sampler).toBeNull();
    expect(engineOnly.httpAutocannon).toBeNull();
  });
});

describe('interleave', () => {
  it('gives every contender one number per round from a tiny slice', () => {
    let calls = 0;
    const rounds = interleave(
      [
        {
          name: 'a',
          run: (n) => {
            calls += n;
            return n;
          },
        },
        { name: 'b', run: (n) => n * 2 },
      ],
      3,
      2,
    );
    expect(rounds.a).toHaveLength(3);
    expect(rounds.b).toHaveLength(3);
    expect(rounds.a!.every((ops) => ops > 0 && Number.isFinite(ops))).toBe(true);
    expect(calls).toBeGreaterThan(0);
  });
});

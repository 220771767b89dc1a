// Runs the real benchmark script end to end with its --smoke config (one tiny round of every
// part: server children, autocannon, engine, sampler) and checks the one JSON object it prints.
// The numbers are not looked at: tests never assert on time.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../../scripts/bench/report.js';
import { ENGINE_FORMULAS, HTTP_SCENARIOS } from '../../../scripts/bench/workloads.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const REQUIRED_RATIOS = [
  'rollGetVsBareFastify',
  'rollGetVsTrpcToOpenapi',
  'engine4d6kh3VsRpgDiceRoller',
  'engine999d6VsRpgDiceRoller',
  'samplerVsRandomInt',
  'samplerVsMathRandom',
];

describe('npm run bench -- --smoke --json', () => {
  it('prints exactly one JSON object with every part, ratio and target', { timeout: 90_000 }, async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/bench.ts', '--smoke', '--json'],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!) as BenchReport;

    expect(report.benchmark).toBe('fairdice');
    expect(report.config.mode).toBe('smoke');
    expect(Object.keys(report.http).sort()).toEqual(HTTP_SCENARIOS.map((s) => s.name).sort());
    for (const scenario of Object.values(report.http)) {
      expect(scenario.rounds).toHaveLength(1);
      expect(scenario.rounds[0]!.non2xx).toBe(0);
      expect(scenario.rounds[0]!.requests).toBeGreaterThan(0);
      expect(scenario.p99Ms.median).toBeGreaterThanOrEqual(scenario.p50Ms.median);
    }
    expect(Object.keys(report.engine).sort()).toEqual(ENGINE_FORMULAS.map((f) => f.name).sort());
    expect(Object.keys(report.sampler?.contenders ?? {}).sort()).toEqual([
      'mathRandom',
      'pooledSampler',
      'randomInt',
    ]);
    for (const name of REQUIRED_RATIOS) {
      expect(report.ratios[name], name).toBeGreaterThan(0);
      expect(report.targets[name]?.pass, name).toBeTypeOf('boolean');
    }
    expect(report.targets.rollGetP99VsBareFastify?.target).toBe('<= 2');
    expect(report.pass).toBe(Object.values(report.targets).every((check) => check.pass));
  });
});

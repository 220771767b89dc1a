// bench:engine-vs: its arithmetic (medians of rounds, ratios paired by round), and one tiny run
// end to end with this checkout as its own baseline, so it works from a clean clone. The numbers
// are not looked at: tests never assert on time.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type EngineVsRow,
  engineVsRow,
  formatEngineVs,
  PLAIN_SUM_FORMULAS,
} from '../../scripts/bench-engine-vs.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('bench:engine-vs', () => {
  it('pairs the contenders round by round and takes medians', () => {
    const row = engineVsRow('1d20', {
      current: [100, 200, 300],
      currentCached: [400, 800, 600],
      baseline: [200, 200, 200],
    });
    expect(row.current).toBe(200);
    expect(row.currentCached).toBe(600);
    expect(row.uncachedVsBaseline).toBe(1);
    expect(row.cachedVsBaseline).toBe(3);
    expect(row.cachedVsUncached).toBe(4); // 4, 4, 2 per round: not the ratio of the medians (3)
    expect(row.spread).toBeCloseTo(1);
    const alone = engineVsRow('1d20', { current: [1], currentCached: [2] });
    expect(alone.baseline).toBeNull();
    expect(alone.cachedVsBaseline).toBeNull();
    expect(formatEngineVs([row, alone])).toMatch(/^1d20 +200 +600 +200 +1\.00 +3\.00 /m);
  });

  it('rolls only plain sums', () => {
    for (const formula of PLAIN_SUM_FORMULAS) expect(formula).toMatch(/^[0-9d%+\- a-z!<>=]+$/i);
    expect(PLAIN_SUM_FORMULAS).toEqual(expect.arrayContaining(['1d20+5', '4d6kh3+2', '999d6', '10d10!p']));
  });

  it('runs end to end against a baseline build and prints one JSON object', {
    timeout: 120_000,
  }, async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/bench-engine-vs.ts',
        '--baseline',
        '.',
        '--rounds',
        '2',
        '--slice-ms',
        '5',
        '--warmup-ms',
        '5',
        '--formulas',
        '1d20+5;1d%+10 fire',
        '--json',
      ],
      { cwd: root },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!) as { rounds: number; baseline: string; rows: EngineVsRow[] };
    expect(report.rounds).toBe(2);
    expect(report.baseline).toBe('.');
    expect(report.rows.map((row) => row.formula)).toEqual(['1d20+5', '1d%+10 fire']);
    for (const row of report.rows) {
      for (const value of [row.current, row.currentCached, row.baseline!, row.uncachedVsBaseline!]) {
        expect(value).toBeGreaterThan(0);
      }
    }
  });
});

// Runs the MCP bench end to end with its --smoke config (one tiny round against the built
// server) and checks the one JSON object it prints. The numbers are not looked at: tests never
// assert on time.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { McpBenchReport } from '../../scripts/bench-mcp.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run bench:mcp -- --smoke --json', () => {
  it('prints one JSON object with both loads, every request answered 200, and the ratio', {
    timeout: 90_000,
  }, async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/bench-mcp.ts', '--smoke', '--json'],
      { cwd: root },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!) as McpBenchReport;
    expect(report.benchmark).toBe('fairdice-mcp');
    for (const rounds of [report.rest, report.mcp]) {
      expect(rounds).toHaveLength(1);
      expect(rounds[0]!.requests).toBeGreaterThan(0);
      expect(rounds[0]!.non2xx).toBe(0);
    }
    expect(report.ratio).toBeGreaterThan(0);
    expect(report.target).toEqual({ max: 3, pass: report.ratio <= 3 });
  });
});

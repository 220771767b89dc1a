// The playground as a user runs it: a child process, its --json output and its caret display.

import { execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { readRollText } from '../support/roll-text.js';

// Child processes, started one after another: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const script = join(root, 'scripts', 'playground.ts');
const run = promisify(execFile);

async function playground(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      timeout: 60_000,
    });
    return { stdout, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { stdout: failed.stdout ?? '', code: failed.code ?? -1 };
  }
}

describe('playground', () => {
  it('--json prints the AST, the dice count and a roll', async () => {
    const { stdout, code } = await playground('4d6kh3+2', '--json');
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.diceCount).toBe(4);
    expect(out.ast.terms[0]).toMatchObject({ kind: 'dice', count: 4, sides: 6 });
    expect(out.roll.dice[0].results).toHaveLength(4);
    expect(out.roll.dice[0].keptFlags.filter(Boolean)).toHaveLength(3);
    expect(out.roll.total).toBe(out.roll.dice[0].total + 2);
  });

  it('--tags, --advantage and --bonus reach the roll', async () => {
    const { stdout } = await playground(
      '1d20+1 fire',
      '--json',
      '--tags',
      'fire,cold',
      '--advantage',
      'advantage',
      '--bonus',
      '2',
      '--bonus',
      '1d4',
    );
    const out = JSON.parse(stdout);
    expect(out.roll.tag).toBe('fire');
    expect(out.roll.advantageState).toBe('advantage');
    expect(out.diceCount).toBe(3);
    expect(out.roll.modifiers).toEqual([1, 2]);
    expect(out.roll.dice.map((g: { sides: number }) => g.sides)).toEqual([20, 4]);
  });

  it('--json reports an error with code, message and column, and exits non-zero', async () => {
    const { stdout, code } = await playground('4d6kh3+', '--json');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      error: {
        code: 'invalid_formula',
        message:
          'formula, column 8: Expected a term (dice like 2d6, or a number), but the formula ends there.',
        column: 8,
      },
    });
  });

  it('shows a caret under the error column', async () => {
    const { stdout, code } = await playground('2d6+<script>');
    expect(code).toBe(1);
    const lines = stdout.split('\n');
    const at = lines.findIndex((line) => line.includes('2d6+<script>'));
    expect(at).toBeGreaterThanOrEqual(0);
    const formulaLine = lines[at]!;
    const caretLine = lines[at + 1]!;
    expect(caretLine.trimEnd().endsWith('^')).toBe(true);
    expect(formulaLine[caretLine.indexOf('^')]).toBe('<');
    expect(stdout).toContain('Expected a term (dice like 2d6, or a number)');
  });

  it('prints a tree, the dice count and a marked sample roll', async () => {
    const { stdout } = await playground('4d6r1kh3!+2');
    expect(stdout).toMatch(/keep highest 3/);
    expect(stdout).toMatch(/reroll when = 1/);
    expect(stdout).toMatch(/dice: 4/);
    expect(stdout).toMatch(/total -?\d+/);
    // The roll as every face shows it: its text form adds up to its total.
    const line = /^ {2}as text: (.+)$/m.exec(stdout)?.[1] ?? '';
    expect(line).toMatch(/^4d6r1kh3! \[.+\] \+ 2 = \d+$/);
    expect(readRollText(line).rounded).toBe(Number(/total (-?\d+)/.exec(stdout)?.[1]));
    expect(line.match(/\(\d/g)).toHaveLength(1);
  });

  it('shows success pools, clamps, compounding and crit ranges', async () => {
    const pool = await playground('6d10>=8f1', '--json');
    const group = JSON.parse(pool.stdout).roll.dice[0];
    expect(group.successes).toBeGreaterThanOrEqual(0);
    const text = (await playground('6d10>=8f1+2d6min3+3d6!!+1d20cs>=19+4dF[fate]')).stdout;
    expect(text).toMatch(/success when >= 8/);
    expect(text).toMatch(/failure when = 1/);
    expect(text).toMatch(/min 3/);
    expect(text).toMatch(/compound on the largest face/);
    expect(text).toMatch(/critical success when >= 19/);
    expect(text).toMatch(/\(\d+ success(es)?, \d+ failures?\)/);
    expect(text).toMatch(/ 3d6!! \[\d+(!\+\d+)*(=\d+)? \d+(!\+\d+)*(=\d+)? \d+(!\+\d+)*(=\d+)?\]/);
    expect(text).toMatch(/4dF\[fate\] \[[-+0] [-+0] [-+0] [-+0]\]/);
    const clamped = (await playground('20d6min6')).stdout;
    expect(clamped).toMatch(/20d6min6 \[(6 ){19}6\]/);
    // A face clamped up is shown with the face that came up: 1↑3.
    const raised = (await playground('30d6min3r6')).stdout;
    expect(raised).toMatch(/[12]↑3/);
    // 100 dice: some extra shows a 2, recorded as 1 (missed with probability (8/9)^100 < 1e-5).
    const penetrated = (await playground('100d3min2!p')).stdout;
    expect(penetrated).toMatch(/!\+2↓1/);
  });

  it('shows unique dice, matching sets, !!p, powers, remainders, several keeps and computed counts', async () => {
    const text = (await playground('6d6mu+1d20^2%7+(4-2)d10!!p+4d10dh1dl2')).stdout;
    expect(text).toMatch(/list sets of at least 2 matching dice/);
    expect(text).toMatch(/unique/);
    expect(text).toMatch(/to the power/);
    expect(text).toMatch(/remainder after dividing by/);
    expect(text).toMatch(/dice \+ 2d10 {2}\(computed\)/);
    expect(text).toMatch(/compound and penetrate on the largest face/);
    expect(text).toMatch(/drop highest 1/);
    expect(text).toMatch(/drop lowest 2/);
    expect(text).toMatch(/6d6mu \[[^\]]*\] \((sets of [\d, ]+|no sets)\)/);
    expect(text).toMatch(/├─ \^ = \d+/);
  });

  it("prints the evaluated expression tree with each node's value", async () => {
    const { stdout, code } = await playground('{1d8!, 1d6!}kh1[trait]+floor((2d6+3)/2)');
    expect(code).toBe(0);
    expect(stdout).toMatch(/group, item totals \[trait\]/);
    expect(stdout).toMatch(/expression \(total = -?\d+, the root rounded down\)/);
    expect(stdout).toMatch(/group \[trait\] = \d+/);
    expect(stdout).toMatch(/item = \d+ kept/);
    expect(stdout).toMatch(/item = \d+ dropped/);
    expect(stdout).toMatch(/floor\(\) = \d+/);
    expect(stdout).toMatch(/\/ = \d+(\/2)?/);
    const json = JSON.parse((await playground('(1d8+4)*2', '--json')).stdout);
    expect(json.roll.expression).toMatchObject({ type: 'operation', operator: '*' });
    expect(json.roll.total).toBe(json.roll.expression.value);
  });

  it('--trace prints the rule trace of the runtime-compiled grammar', async () => {
    const { stdout } = await playground('d20', '--trace');
    expect(stdout).toMatch(/enter Formula/);
    expect(stdout).toMatch(/match Sides/);
  });

  it('with no formula it is an interactive prompt', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stdin.end('2d6\n1d\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('dice> ');
    expect(stdout).toMatch(/dice: 2/);
    expect(stdout).toMatch(/column 3: Expected a number of sides/);
  });

  it('--stats draws the exact distribution with its mean, sd and percentiles', async () => {
    const { stdout, code } = await playground('4d6kh3', '--stats');
    expect(code).toBe(0);
    expect(stdout).toContain('exact distribution of the total');
    // 18 is 21/1296 = 1.620%, and the tallest bar is 13 (172/1296).
    expect(stdout).toMatch(/^\s+18\s+1\.620% #+$/m);
    const bars = [...stdout.matchAll(/^\s+(\d+)\s+[\d.]+% (#*)$/gm)];
    expect(bars).toHaveLength(16);
    const tallest = bars.reduce((a, b) => (b[2]!.length > a[2]!.length ? b : a));
    expect(tallest[1]).toBe('13');
    expect(stdout).toContain('mean 12.2446 (15869/1296)');
    expect(stdout).toContain('percentiles  5%: 7  25%: 10  50%: 12  75%: 14  95%: 17');
  });

  it('--stats --json carries the distribution, and names a truncation', async () => {
    const { stdout } = await playground('1d6!', '--stats', '--json');
    const out = JSON.parse(stdout);
    expect(out.stats.truncation.tailProbability).toBeLessThan(1e-30);
    const text = await playground('1d6!', '--stats');
    expect(text.stdout).toMatch(/listed to depth \d+; the rest has probability [\d.]+e-3\d/);
  });
});

// Runs the abuse benchmark end to end with --smoke (every part, briefly) so it keeps working. The
// numbers are not looked at: tests never assert on time; the answers behind them are.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run bench:abuse -- --smoke', () => {
  it('measures every part, with the answers each part is about', { timeout: 180_000 }, async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'scripts/bench-abuse.ts', '--smoke'],
      { cwd: root, maxBuffer: 4 * 1024 * 1024 },
    );
    expect(stdout).toMatch(/GET 49d4294967296r<4294967295 \(4,949 throws\): 200, /);
    expect(stdout).toMatch(/GET 1000d4294967296r<4294967295 \(refused at the budget\): 400, /);
    expect(stdout).toMatch(/memory: the in-memory limiter holding 1000 IPv4 addresses: /);
    // Both attackers ran: some of the costliest batches answered, then the throws budget (or the
    // request limit) refused the rest, and the server's CPU was measured.
    for (const attacker of ['paced', 'flood']) {
      expect(stdout).toMatch(new RegExp(`attack \\(${attacker}\\): one address`));
    }
    expect(
      stdout.match(/answers: [1-9]\d* × 200, [1-9]\d* × 429; the first refusal after [\d.]+ s/g),
    ).toHaveLength(2);
    expect(stdout).toMatch(/its first 1 s: \d+ ms server CPU/);
    expect(stdout).toMatch(/the whole window \([\d.]+ s\): \d+ ms server CPU, [\d.]+ % of one core/);
    // The other clients were asked throughout; how many answers fall within each phase depends on
    // the machine's load (a loaded machine can take seconds per answer), so only the format and
    // the last phase, which waits for the answer in flight, are checked.
    for (const phase of ['before the attack', 'its first 1 s \\(the burst\\)', 'the whole attack'])
      expect(stdout).toMatch(new RegExp(`${phase}: \\d+ requests`));
    expect(stdout).toMatch(/after the attack: [1-9]\d* requests/);
    // The costliest constructs beyond plain sums (unique rerolls, a pool group) are in the list, answered.
    expect(stdout).toMatch(/GET 49d2u \(unique rerolls to the cap, about 4,850 throws\): 200, /);
    expect(stdout).toMatch(/GET \{500d6\+500d8\}kh500 \(a pool of 1000 dice, keep\): 200, /);
  });
});

// `npm run verify` as a user runs it: a child process on a saved receipt, a roll answer and a
// table log, with the key set from a file; exit code 0 for valid, 1 for invalid.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { GENESIS_PREV, receiptHashSync } from '../../src/store/chain.js';
import { loadSigningKeys, type SigningKeys } from '../../src/trust/keys.js';
import { signHead, signReceipt } from '../../src/trust/sign.js';

// Child processes, started one after another: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const script = join(root, 'scripts', 'verify.ts');
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'fairdice-verify-'));

async function verify(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? -1 };
  }
}

const save = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
};

const roll = {
  formula: '1d20',
  dice: [],
  modifier: 7,
  modifiers: [7],
  total: 7,
  advantageState: 'normal' as const,
};

let keys: SigningKeys;
let jwksFile: string;
beforeAll(async () => {
  keys = await loadSigningKeys();
  jwksFile = save('jwks.json', keys.jwks);
});

describe('npm run verify', () => {
  it('prints valid for a receipt and for a roll answer carrying one, invalid with the reason for an edited one', async () => {
    const receipt = signReceipt(keys, { request: { formula: '1d20' }, roll });
    const ok = await verify(save('receipt.json', receipt), '--jwks', jwksFile);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`^valid: receipt ${receipt.id}`));
    expect((await verify(save('answer.json', { ...roll, receipt }), '--jwks', jwksFile)).code).toBe(0);
    const edited = await verify(
      save('edited.json', { ...receipt, time: '2020-01-01T00:00:00.000Z' }),
      '--jwks',
      jwksFile,
    );
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(/^invalid: signature does not match/);
  });

  it('checks a whole table log as a chain, naming the entry where it breaks', async () => {
    const entries = [];
    let prev = GENESIS_PREV;
    for (let seq = 1; seq <= 3; seq++) {
      const entry = signReceipt(keys, {
        request: { formula: '1d20' },
        roll,
        table: 'tableidtableidtableid',
        seq,
        prev,
      });
      entries.push(entry);
      prev = receiptHashSync(entry);
    }
    const whole = await verify(
      save('log.json', { table: 't', entries: 3, rolls: entries }),
      '--jwks',
      jwksFile,
    );
    expect(whole.stdout).toMatch(/^valid: a chain of 3/);
    const hidden = await verify(save('hidden.json', { rolls: [entries[0], entries[2]] }), '--jwks', jwksFile);
    expect(hidden.code).toBe(1);
    expect(hidden.stdout).toMatch(/^invalid: entry 2/);

    // The log's last entry cut, while the file still carries the head of the whole log: invalid,
    // with how many entries the head promises and how many the log has (docs/trust.md#signed-heads).
    const head = signHead(keys, { table: 'tableidtableidtableid', entries: 3, lastHash: prev });
    const withHead = await verify(
      save('headed.json', { entries: 3, rolls: entries, head }),
      '--jwks',
      jwksFile,
    );
    expect(withHead.code).toBe(0);
    expect(withHead.stdout).toMatch(
      /^valid: a chain of 3 signed entries, none missing or altered, as long as its signed head promises \(3\)/,
    );
    const cut = await verify(
      save('cut.json', { entries: 3, rolls: entries.slice(0, 2), head }),
      '--jwks',
      jwksFile,
    );
    expect(cut.code).toBe(1);
    expect(cut.stdout).toBe(
      'invalid: entry 3: the head promises 3 entries but the log has 2: entries were cut from its end\n',
    );
    // A head kept from an earlier read (--head) holds a log to it even when the file has none.
    const bare = save('bare.json', { rolls: entries.slice(0, 2) });
    expect((await verify(bare, '--jwks', jwksFile)).code).toBe(0);
    const held = await verify(bare, '--head', save('head.json', head), '--jwks', jwksFile);
    expect(held.code).toBe(1);
    expect(held.stdout).toMatch(/the head promises 3 entries but the log has 2/);
  });

  it('exits 2 with the usage when it cannot check', async () => {
    const missing = await verify(join(dir, 'absent.json'), '--jwks', jwksFile);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/usage: npm run verify/);
    writeFileSync(join(dir, 'empty.json'), '');
    const notKeys = await verify(save('receipt-again.json', {}), '--jwks', join(dir, 'empty.json'));
    expect(notKeys.code).toBe(2);
    expect(notKeys.stderr).toMatch(/empty\.json is not JSON\nusage: npm run verify/);
  });
});

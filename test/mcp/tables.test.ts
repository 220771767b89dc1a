// Tables and receipts through MCP, the same story over both transports with the SDK's own
// client: over a real socket at /mcp (the service's SQLite store in a temporary DATA_DIR), and
// over stdio with `fairdice mcp` (its embedded store and its own signing key in a temporary
// DATA_DIR). Then the stdio command's life: it keeps its tables and key across restarts, picks
// the user's data directory without DATA_DIR, and exits 0 once the client closes stdin after a
// stats call and a table roll.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyChain } from '@fairdice/client/verify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LOCAL_KEY_FILE, localDataDir, localSigningKey } from '../../src/mcp/local.js';
import { loadSigningKeys } from '../../src/trust/keys.js';
import type { Jwks } from '../../src/trust/receipt.js';
import { listen, makeApp } from '../support/app.js';
import { send } from '../support/http.js';
import { playAtTable, textOf } from '../support/mcp-tables.js';

const cliJs = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const tempDir = () => mkdtempSync(join(tmpdir(), 'fairdice-mcp-'));

/** `fairdice mcp` through the SDK's stdio client, with this environment (and PATH). */
async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  if (!existsSync(cliJs)) throw new Error('dist/cli.js is missing: run `npm run build` (npm test does)');
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliJs, 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('tables and receipts over /mcp', () => {
  it('creates a table, rolls twice at it, reads back a valid chain, verifies a receipt and refuses an altered one', async () => {
    const app = await makeApp({ dataDir: tempDir() });
    const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
    try {
      const base = await listen(app);
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
      const jwks = JSON.parse((await send(base, { path: '/.well-known/jwks.json' })).body) as Jwks;
      await playAtTable(client, jwks);
    } finally {
      await client.close();
      await app.close();
    }
  });

  it('rolls sealed with table_roll, shows only the commitment in table_log, and reveals once with table_reveal', async () => {
    const app = await makeApp({ dataDir: tempDir() });
    const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
    try {
      const base = await listen(app);
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
      const jwks = JSON.parse((await send(base, { path: '/.well-known/jwks.json' })).body) as Jwks;
      const created = (await client.callTool({ name: 'table_create', arguments: {} })) as CallToolResult;
      const table = (created.structuredContent as { id: string }).id;
      const rolled = (await client.callTool({
        name: 'table_roll',
        arguments: { formula: '1d20+5', table, by: 'GM', note: 'ambush check', sealed: true },
      })) as CallToolResult;
      expect(rolled.isError, textOf(rolled)).toBeFalsy();
      const answer = rolled.structuredContent as {
        total: number;
        sealed: { entry: { seq: number; commitment: string }; revealToken: string };
      };
      const token = answer.sealed.revealToken;
      expect(textOf(rolled)).toContain('Sealed roll, table entry #1: GM: 1d20');
      expect(textOf(rolled)).toContain(`= ${answer.total} (for: ambush check)`);
      expect(textOf(rolled)).toContain(`call table_reveal with table ${table}, seq 1 and token ${token}`);

      const sealedLog = (await client.callTool({
        name: 'table_log',
        arguments: { table },
      })) as CallToolResult;
      expect(textOf(sealedLog)).toContain(
        `GM: 1d20+5, sealed: hidden until its roller reveals it (commitment ${answer.sealed.entry.commitment.slice(0, 12)}…)`,
      );
      expect(JSON.stringify(sealedLog)).not.toContain(token);
      expect(JSON.stringify(sealedLog)).not.toContain('ambush check');

      const wrong = (await client.callTool({
        name: 'table_reveal',
        arguments: { table, seq: 1, token: 'nope' },
      })) as CallToolResult;
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toContain('wrong_reveal_token');
      const revealed = (await client.callTool({
        name: 'table_reveal',
        arguments: { table, seq: 1, token },
      })) as CallToolResult;
      expect(revealed.isError, textOf(revealed)).toBeFalsy();
      expect(textOf(revealed)).toContain('Revealed table entry #1 (the reveal is entry #2): GM: 1d20');
      const again = (await client.callTool({
        name: 'table_reveal',
        arguments: { table, seq: 1, token },
      })) as CallToolResult;
      expect(textOf(again)).toContain('already_revealed');

      const log = (await client.callTool({ name: 'table_log', arguments: { table } })) as CallToolResult;
      expect(textOf(log)).toContain('revealed #1: GM: 1d20');
      const { rolls } = log.structuredContent as { rolls: unknown[] };
      expect(await verifyChain(rolls, jwks)).toEqual({ valid: true, entries: 2, sealed: 1, revealed: 1 });
    } finally {
      await client.close();
      await app.close();
    }
  });

  it('a table created through MCP is the same table over REST: rolls there show in the tool log', async () => {
    const app = await makeApp({ dataDir: tempDir() });
    const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
    try {
      const base = await listen(app);
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
      const created = (await client.callTool({ name: 'table_create', arguments: {} })) as CallToolResult;
      const { id } = created.structuredContent as { id: string };
      const rest = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        payload: { formula: '1d4', table: id },
      });
      expect(rest.statusCode).toBe(200);
      const logged = (await client.callTool({
        name: 'table_log',
        arguments: { table: id },
      })) as CallToolResult;
      expect((logged.structuredContent as { rolls: unknown[] }).rolls).toEqual([rest.json().receipt]);
    } finally {
      await client.close();
      await app.close();
    }
  });
});

describe('tables and receipts over stdio (fairdice mcp, its embedded store)', () => {
  it('plays the same story with its own key in DATA_DIR, which it keeps across restarts', async () => {
    const dataDir = tempDir();
    const first = await stdioClient({ DATA_DIR: dataDir });
    const keyFile = join(dataDir, LOCAL_KEY_FILE);
    let tableId = '';
    try {
      // The key it made on first start: readable by its owner only, and the key it signs with.
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const { jwks } = await loadSigningKeys({ keyFile });
      await playAtTable(first.client, jwks);
      expect(first.stderr()).toContain('made a signing key for receipts in the data directory');
      const created = (await first.client.callTool({
        name: 'table_create',
        arguments: {},
      })) as CallToolResult;
      tableId = (created.structuredContent as { id: string }).id;
      await first.client.callTool({ name: 'table_roll', arguments: { formula: '1d6', table: tableId } });
    } finally {
      await first.client.close();
    }

    // Started again by the client: the same table, the same key, and the chain goes on.
    const second = await stdioClient({ DATA_DIR: dataDir });
    try {
      const { jwks } = await loadSigningKeys({ keyFile });
      const rolled = (await second.client.callTool({
        name: 'table_roll',
        arguments: { formula: '1d6', table: tableId },
      })) as CallToolResult;
      expect(rolled.isError, textOf(rolled)).toBeFalsy();
      const log = (await second.client.callTool({ name: 'table_log', arguments: { table: tableId } }))
        .structuredContent as { rolls: unknown[] };
      expect(log.rolls).toHaveLength(2);
      expect(await verifyChain(log.rolls, jwks)).toEqual({ valid: true, entries: 2 });
      const verdict = (await second.client.callTool({
        name: 'verify_receipt',
        arguments: { receipt: log.rolls[0] },
      })) as CallToolResult;
      expect(verdict.structuredContent).toMatchObject({ valid: true });
      expect(second.stderr()).not.toContain('made a signing key');
    } finally {
      await second.client.close();
    }
  });

  it('with SIGNING_KEY_FILE set, signs with that key and makes none of its own', async () => {
    const dataDir = tempDir();
    const keyDir = tempDir();
    const keyFile = localSigningKey(keyDir).file;
    const { client } = await stdioClient({ DATA_DIR: dataDir, SIGNING_KEY_FILE: keyFile });
    try {
      const { jwks } = await loadSigningKeys({ keyFile });
      const rolled = (await client.callTool({ name: 'roll', arguments: { formula: '1d6', receipt: true } }))
        .structuredContent as { receipt: { kid: string } };
      expect(rolled.receipt.kid).toBe(jwks.keys[0]!.kid);
      expect(existsSync(join(dataDir, LOCAL_KEY_FILE))).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe("the stdio command's data directory", () => {
  it('is DATA_DIR when set, else $XDG_DATA_HOME/fairdice, else the platform per-user directory', () => {
    expect(localDataDir({ DATA_DIR: '/srv/dice', XDG_DATA_HOME: '/x' }, 'linux', '/home/ann')).toBe(
      '/srv/dice',
    );
    expect(localDataDir({ XDG_DATA_HOME: '/x/share' }, 'linux', '/home/ann')).toBe('/x/share/fairdice');
    // A relative XDG_DATA_HOME is to be ignored (XDG Base Directory specification).
    expect(localDataDir({ XDG_DATA_HOME: 'share' }, 'linux', '/home/ann')).toBe(
      '/home/ann/.local/share/fairdice',
    );
    expect(localDataDir({}, 'linux', '/home/ann')).toBe('/home/ann/.local/share/fairdice');
    expect(localDataDir({ DATA_DIR: '  ' }, 'freebsd', '/home/ann')).toBe('/home/ann/.local/share/fairdice');
    expect(localDataDir({}, 'darwin', '/Users/ann')).toBe('/Users/ann/Library/Application Support/fairdice');
    expect(localDataDir({ LOCALAPPDATA: 'C:/Users/ann/AppData/Local' }, 'win32', 'C:/Users/ann')).toMatch(
      /^C:.Users.ann.AppData.Local.fairdice$/,
    );
  });

  it('without DATA_DIR, the command keeps its store and key under $XDG_DATA_HOME/fairdice, not in its working directory', async () => {
    const xdg = tempDir();
    const cwd = tempDir();
    const child = spawn(process.execPath, [cliJs, 'mcp'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', XDG_DATA_HOME: xdg },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(existsSync(join(xdg, 'fairdice', LOCAL_KEY_FILE))).toBe(true);
    expect(existsSync(join(xdg, 'fairdice', 'fairdice.sqlite'))).toBe(true);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });
});

describe('fairdice mcp ends when its client closes stdin', () => {
  it('after a stats call and a table roll: every request answered, exit code 0, no signal', async () => {
    const child = spawn(process.execPath, [cliJs, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: tempDir() },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const message = (id: number, method: string, params: unknown) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
    const answers = () =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { id: number; result: CallToolResult });
    const answered = async (count: number) => {
      for (let i = 0; i < 200 && answers().length < count; i++) await new Promise((r) => setTimeout(r, 50));
      expect(answers().length).toBe(count);
    };
    child.stdin.write(
      message(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(message(2, 'tools/call', { name: 'table_create', arguments: {} }));
    await answered(2);
    const table = (answers()[1]!.result.structuredContent as { id: string }).id;
    // The stats call starts its worker thread; the table roll opens a write. Then stdin closes
    // at once, with both possibly still under way: they are answered before the process ends.
    child.stdin.write(message(3, 'tools/call', { name: 'stats', arguments: { formula: '3d6', target: 12 } }));
    child.stdin.write(
      message(4, 'tools/call', { name: 'table_roll', arguments: { formula: '1d20', table } }),
    );
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const { code, signal } = await exited;
    clearTimeout(timer);
    expect(signal, `killed after 20 s: something kept it alive. stderr: ${stderr}`).toBeNull();
    expect(code, stderr).toBe(0);
    const byId = new Map(answers().map((answer) => [answer.id, answer.result]));
    expect(byId.get(3)?.isError).toBeFalsy();
    expect(textOf(byId.get(3)!)).toContain('3d6 → mean 10.5');
    expect(byId.get(4)?.isError).toBeFalsy();
    expect(textOf(byId.get(4)!)).toMatch(/\[table entry #1, receipt /);
  });
});

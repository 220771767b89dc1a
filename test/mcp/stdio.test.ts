// `fairdice mcp` (the package's bin, dist/cli.js) through the SDK's own stdio client transport:
// the same tools as /mcp, rolling in the child process; a refused formula is a tool result; the
// child ends when the client closes its stdin; a bad environment stops it with one line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LANGUAGE_URI } from '../../src/mcp/markers.js';
import { ALL_TOOLS, textOf } from '../support/mcp-tables.js';

// Child processes, started one after another: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

/** The command's tables, receipts and key go to a directory of the test's, never the user's. */
const tempDir = () => mkdtempSync(join(tmpdir(), 'fairdice-stdio-'));

const cliJs = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  bin: Record<string, string>;
  files: string[];
};

describe('npx fairdice mcp: the stdio server', () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';
  beforeAll(async () => {
    if (!existsSync(cliJs)) throw new Error('dist/cli.js is missing: run `npm run build` (npm test does)');
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliJs, 'mcp'],
      env: { PATH: process.env.PATH ?? '', DICE_PER_ROLL: '50', DATA_DIR: tempDir() },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'fairdice-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(() => client?.close());

  it('is the package bin, and the package ships the docs it serves', () => {
    expect(packageJson.bin.fairdice).toBe('./dist/cli.js');
    expect(packageJson.files).toContain('docs');
    expect(readFileSync(cliJs, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('lists the same tools as /mcp and rolls in-process', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    const result = (await client.callTool({
      name: 'roll',
      arguments: { formula: '3d6+1', advantage: 'normal' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const roll = result.structuredContent as { total: number; dice: Array<{ results: number[] }> };
    const faces = roll.dice[0]?.results ?? [];
    expect(faces).toHaveLength(3);
    for (const face of faces) expect(face).toBeGreaterThanOrEqual(1);
    expect(roll.total).toBe(faces.reduce((sum, face) => sum + face, 1));
    expect(textOf(result)).toBe(`3d6 [${faces.join(' ')}] + 1 = ${roll.total}`);
  });

  it('reads its limits from the environment like the service (DICE_PER_ROLL=50)', async () => {
    const result = (await client.callTool({
      name: 'roll',
      arguments: { formula: '51d6' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const envelope = JSON.parse(textOf(result).split('\n').at(-1) ?? '') as { error: { code: string } };
    expect(envelope.error.code).toBe('invalid_formula');
  });

  it('tells the client at initialization to roll with the tools, check odds first, and roll at a table', () => {
    const instructions = client.getInstructions() ?? '';
    for (const tool of ['stats', 'table_create', 'table_roll']) expect(instructions).toContain(tool);
    expect(instructions).toContain(LANGUAGE_URI);
  });

  it('serves the language reference', async () => {
    const { contents } = await client.readResource({ uri: LANGUAGE_URI });
    const text = (contents[0] as { text: string }).text;
    expect(text).toContain('## Modifiers');
    // No service, so no pages: docs/language.md as it is, its links to the other docs as written.
    expect(text).toBe(readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'language.md'), 'utf8'));
  });

  it('keeps stdout for the protocol: nothing else was written there (the client parsed every line)', () => {
    expect(stderr).not.toMatch(/error/i);
  });
});

describe('the fairdice command line', () => {
  it('refuses an unknown command with the usage on stderr and status 2', () => {
    const run = spawnSync(process.execPath, [cliJs, 'serve'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('fairdice mcp');
    expect(run.stdout).toBe('');
  });

  it('stops on a bad environment variable with one line naming it', () => {
    const run = spawnSync(process.execPath, [cliJs, 'mcp'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', DICE_PER_ROLL: 'many' },
      input: '',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^fairdice: Invalid configuration: DICE_PER_ROLL must be/);
  });

  it('ends when the client closes stdin', () => {
    const run = spawnSync(process.execPath, [cliJs, 'mcp'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', DATA_DIR: tempDir() },
      input: '',
      timeout: 60_000,
    });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
  });
});

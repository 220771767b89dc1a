// src/tick-maps.ts: without it, full collections between ticks leave process.nextTick's object
// literal megamorphic; with the app imported first (as src/server.ts does), they do not. Each
// case runs in its own node, which prints nextTick's feedback (V8's %DebugPrint, natives syntax).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { holdTickMaps } from '../src/tick-maps.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'fairdice-tick-maps-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Ticks, then a full collection with no tick pending, six times over; then nextTick's feedback. */
const TICKS_THEN_COLLECT = `
  const noop = () => {};
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 200; i++) process.nextTick(noop);
    await new Promise((resolve) => setImmediate(resolve));
    globalThis.gc();
  }`;
const PRINT_FEEDBACK = `new Function('f', '%DebugPrint(f)')(process.nextTick);`;

let runs = 0;

/**
 * The states of nextTick's literal property definitions, as the child's V8 printed them. Its
 * stdout is a file: V8 prints with C's stdio, which a pipe that node made non-blocking can cut.
 */
async function literalStates(code: string): Promise<string[]> {
  const out = join(dataDir, `stdout-${++runs}.txt`);
  const fd = openSync(out, 'w');
  let stderr = '';
  try {
    const child = spawn(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', code],
      {
        stdio: ['ignore', fd, 'pipe'],
        timeout: 60_000,
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (status !== 0) throw new Error(`the child exited with ${status}:\n${stderr}`);
  } finally {
    closeSync(fd);
  }
  const printed = readFileSync(out, 'utf8');
  return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]!);
}

describe('tick maps', () => {
  it('without it, collections between ticks leave nextTick megamorphic (why it exists)', async () => {
    const states = await literalStates(`${TICKS_THEN_COLLECT}\n${PRINT_FEEDBACK}`);
    expect(states.length).toBeGreaterThanOrEqual(4);
    expect(
      states,
      "this node's V8 no longer loses nextTick's maps: src/tick-maps.ts may be removable",
    ).toContain('MEGAMORPHIC');
  }, 90_000);

  it('with the app imported first, nextTick stays monomorphic through collections and requests', async () => {
    const app = pathToFileURL(join(dist, 'http/app.js')).href;
    const config = pathToFileURL(join(dist, 'config.js')).href;
    const states = await literalStates(`
      const { buildApp } = await import(${JSON.stringify(app)});
      const { loadConfig } = await import(${JSON.stringify(config)});
      const app = await buildApp(loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)}, LOG_LEVEL: 'error' }));
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address();
      for (let round = 0; round < 4; round++) {
        // A new connection per request, as curl makes them.
        const answer = await fetch('http://127.0.0.1:' + port + '/v1/roll?formula=1d20', { headers: { connection: 'close' } });
        if (answer.status !== 200) throw new Error('status ' + answer.status);
        await answer.text();
        globalThis.gc();
      }
      ${TICKS_THEN_COLLECT}
      await app.close();
      ${PRINT_FEEDBACK}`);
    expect(states.length).toBeGreaterThanOrEqual(4);
    expect(new Set(states)).toEqual(new Set(['MONOMORPHIC']));
  }, 90_000);

  it('holds a tick object: node still hands it to an init hook', () => {
    expect(holdTickMaps()).toBe(true);
  });

  it('is the first import of both ways in: src/server.ts and src/http/app.ts', () => {
    for (const [file, specifier] of [
      ['../src/server.ts', './tick-maps.js'],
      ['../src/http/app.ts', '../tick-maps.js'],
    ] as const) {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8');
      const firstImport = /^import\s+(?:[^'"]*from\s+)?'([^']+)'/m.exec(source)?.[1];
      expect(firstImport, file).toBe(specifier);
    }
  });
});

// The servers the bench loads as fairdice (scripts/bench/service.ts): a checkout's own
// dist/server.js started as a user starts it, configured only by the environment, in a fresh
// working directory (so the default SQLite store opens there), its port read from its log.
// `--baseline DIR` runs DIR's: a stand-in build in a temporary folder shows it is DIR's file that
// runs, and this checkout's real build that a run of `fairdice` opens its SQLite store.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkScenario, startServer } from '../../../scripts/bench/http.js';
import { listeningPort } from '../../../scripts/bench/service.js';
import { BASELINE_SCENARIO, HTTP_SCENARIOS } from '../../../scripts/bench/workloads.js';

const fastifyUrl = pathToFileURL(createRequire(import.meta.url).resolve('fastify')).href;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A folder holding a stand-in build: dist/server.js only, serving what it was started with and
 * logging its address as src/server.ts does (a pino line).
 */
function standInBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fairdice-baseline-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(
    join(dir, 'dist/server.js'),
    [
      `import Fastify from ${JSON.stringify(fastifyUrl)};`,
      'const app = Fastify();',
      "app.get('/v1/roll', async (request) => ({ standIn: true, formula: request.query.formula, max: process.env.RATE_LIMIT_MAX, env: process.env.NODE_ENV, cwd: process.cwd() }));",
      'const address = await app.listen({ host: process.env.HOST, port: Number(process.env.PORT) });',
      "console.log(JSON.stringify({ level: 30, msg: 'Server listening at ' + address }));",
      "process.on('SIGTERM', () => app.close().then(() => process.exit(0)));",
      '',
    ].join('\n'),
  );
  return dir;
}

describe('the servers loaded as fairdice', () => {
  it('reads the port from the listening line src/server.ts writes', () => {
    expect(listeningPort('{"level":30,"msg":"Server listening at http://127.0.0.1:40123"}')).toBe(40123);
    expect(listeningPort('{"level":30,"msg":"Redis connected"}')).toBeUndefined();
  });

  it("runs DIR's dist/server.js with the bench's environment, in a working directory of its own", {
    timeout: 60_000,
  }, async () => {
    const dir = standInBuild();
    const server = await startServer('baseline', {
      checkout: dir,
      env: { RATE_LIMIT_MAX: '1234', NODE_ENV: 'production' },
    });
    let cwd: string;
    try {
      await checkScenario(server, BASELINE_SCENARIO);
      const answer = await fetch(`http://127.0.0.1:${server.port}${BASELINE_SCENARIO.path}`);
      const body = (await answer.json()) as { cwd: string };
      expect(body).toMatchObject({ standIn: true, formula: '1d20', max: '1234', env: 'production' });
      cwd = body.cwd;
      expect(cwd.startsWith(tmpdir())).toBe(true);
      expect(cwd).not.toBe(dir);
      expect(await server.cpuMicros()).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
    // Its working directory goes with it.
    expect(existsSync(cwd)).toBe(false);
  });

  it('refuses a folder with no build, naming what is missing', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-baseline-'));
    dirs.push(dir);
    await expect(startServer('baseline', { checkout: dir })).rejects.toThrow(
      /is not built: no .*dist\/server\.js/,
    );
  });

  it('starts this build as a user does: the default SQLite store opens under its working directory', {
    timeout: 60_000,
  }, async () => {
    const rollGet = HTTP_SCENARIOS.find((scenario) => scenario.name === 'rollGet')!;
    const server = await startServer('fairdice', {
      env: { NODE_ENV: 'production', RATE_LIMIT_MAX: '1000000000' },
      quietStdout: true,
    });
    try {
      await checkScenario(server, rollGet);
      const answer = await fetch(`http://127.0.0.1:${server.port}${rollGet.path}`);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('1000000000');
      // Receipts work: the generated key signs, the store answers.
      const signed = await fetch(`http://127.0.0.1:${server.port}/v1/roll?formula=1d20&receipt=true`);
      expect(signed.status).toBe(200);
      expect(((await signed.json()) as { receipt?: unknown }).receipt).toBeDefined();
      const data = join(server.workingDirectory!, 'data');
      expect(readdirSync(data).some((name) => name.endsWith('.sqlite'))).toBe(true);
    } finally {
      await server.stop();
    }
  });
});

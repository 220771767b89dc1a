// `npm run bench -- --baseline DIR`: the server child serves DIR's build (its own buildApp and
// loadConfig from DIR/dist, with the bench's environment), so a before/after claim is one run.
// A stand-in build in a temporary folder shows the child loads DIR's modules and not this build's.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkScenario, startServer } from '../../../scripts/bench/http.js';
import { BASELINE_DIR_VARIABLE, BASELINE_SCENARIO } from '../../../scripts/bench/workloads.js';

const fastifyUrl = pathToFileURL(createRequire(import.meta.url).resolve('fastify')).href;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding a stand-in build: dist/config.js and dist/http/app.js, nothing else. */
function standInBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fairdice-baseline-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist/http'), { recursive: true });
  writeFileSync(
    join(dir, 'dist/config.js'),
    'export const loadConfig = (env) => ({ max: env.RATE_LIMIT_MAX, level: env.LOG_LEVEL });\n',
  );
  writeFileSync(
    join(dir, 'dist/http/app.js'),
    [
      `import Fastify from ${JSON.stringify(fastifyUrl)};`,
      'export async function buildApp(config) {',
      '  const app = Fastify();',
      "  app.get('/v1/roll', async (request) => ({ standIn: true, formula: request.query.formula, ...config }));",
      '  return app;',
      '}',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('the baseline server', () => {
  it("serves DIR's build, configured from the bench's environment", { timeout: 60_000 }, async () => {
    const dir = standInBuild();
    const server = await startServer('baseline', {
      env: { [BASELINE_DIR_VARIABLE]: dir, RATE_LIMIT_MAX: '1234', LOG_LEVEL: 'info' },
    });
    try {
      await checkScenario(server, BASELINE_SCENARIO);
      const answer = await fetch(`http://127.0.0.1:${server.port}${BASELINE_SCENARIO.path}`);
      expect(await answer.json()).toEqual({ standIn: true, formula: '1d20', max: '1234', level: 'info' });
      expect(await server.cpuMicros()).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });

  it('refuses a folder with no build, naming what is missing', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-baseline-'));
    dirs.push(dir);
    await expect(startServer('baseline', { env: { [BASELINE_DIR_VARIABLE]: dir } })).rejects.toThrow(
      /is not built: no .*dist\/http\/app\.js/,
    );
  });
});

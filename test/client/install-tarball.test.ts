// docs/client.md's way to install the client before it is on the registry: `npm pack -w
// @fairdice/client` in the checkout, then `npm install` of that tarball (with the peer tRPC
// packages) in an app of its own, outside this repository. The app then loads the client with
// import and with require, and calls the service with it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, makeApp } from '../support/app.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The tRPC version this checkout installed, so the app's install needs nothing new. */
const installed = (name: string): string =>
  (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fairdice-client-tarball-'));
  app = join(work, 'app');
  // As docs/client.md says, but without the scripts: `prepack` would rebuild packages/client/dist
  // (the root build's own step) under the other test files that read it at the same time.
  const packed = await run(
    npm,
    ['pack', '-w', '@fairdice/client', '--pack-destination', work, '--ignore-scripts', '--json'],
    { cwd: root },
  );
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  expect(filename).toBe('fairdice-client-0.1.0.tgz');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
  await run(
    npm,
    [
      'install',
      join(work, filename),
      `@trpc/client@${installed('@trpc/client')}`,
      `@trpc/server@${installed('@trpc/server')}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ],
    { cwd: app },
  );
}, 180_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the client installed from its packed tarball', () => {
  it('is a copy in the app, not a link into this checkout', () => {
    const manifest = JSON.parse(
      readFileSync(join(app, 'node_modules', '@fairdice', 'client', 'package.json'), 'utf8'),
    ) as { name: string };
    expect(manifest.name).toBe('@fairdice/client');
    const dependencies = (
      JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies;
    expect(dependencies['@fairdice/client']).toMatch(/^file:.*fairdice-client-0\.1\.0\.tgz$/);
  });

  it('loads with require and calls the service with import', async () => {
    const required = await run(
      process.execPath,
      ['--input-type=commonjs', '-e', "console.log(typeof require('@fairdice/client').createDiceClient)"],
      { cwd: app },
    );
    expect(required.stdout.trim()).toBe('function');

    const service = await makeApp();
    try {
      const url = await listen(service);
      const called = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createDiceClient } from '@fairdice/client';
           const roll = await createDiceClient(${JSON.stringify(url)}).roll.query({ formula: '3d6' });
           console.log(roll.dice[0].results.length, roll.total >= 3 && roll.total <= 18);`,
        ],
        { cwd: app },
      );
      expect(called.stdout.trim()).toBe('3 true');
    } finally {
      await service.close();
    }
  });
});

// scripts/build-state.mjs: `npm install && npm start` builds once (the install's `prepare`), and
// `npm start` still builds whenever the sources differ from what dist/ was built from. Run in a
// throwaway package whose `build` is a fast stand-in that counts its runs and writes the outputs;
// the real package.json must wire the script the same way.
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'build-state.mjs');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The stand-in build: one line in builds.log per run, then every output a real build leaves. */
const FAKE_BUILD = `
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
appendFileSync('builds.log', 'built\\n');
if (process.env.FAIL_BUILD) process.exit(1);
for (const dir of ['dist/page', 'dist/reference', 'packages/client/dist']) mkdirSync(dir, { recursive: true });
writeFileSync('dist/server.js', "console.log('serving');\\n");
for (const file of ['dist/cli.js', 'dist/index.js', 'dist/page/index.html', 'dist/reference/reference.json', 'packages/client/dist/index.js']) {
  writeFileSync(file, '');
}
`;

let dir: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

const builds = (): number => {
  try {
    return readFileSync(join(dir, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

/** `node scripts/build-state.mjs ensure` in the package: runs its `npm run build` when stale. */
const ensure = (env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, [SCRIPT, 'ensure'], { cwd: dir, env: { ...process.env, ...env } }).catch(
    (error: { code?: number }) => error,
  );

/** `check`'s exit code: 0 when dist/ is what the sources build. */
const check = () =>
  run(process.execPath, [SCRIPT, 'check'], { cwd: dir }).then(
    () => 0,
    (error: { code?: number }) => error.code,
  );

/** The fixture's build without npm: what `npm run build` runs. */
async function buildByHand(): Promise<void> {
  await run(process.execPath, [SCRIPT, 'begin'], { cwd: dir });
  await run(process.execPath, ['build.mjs'], { cwd: dir });
  await run(process.execPath, [SCRIPT, 'end'], { cwd: dir });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fairdice-build-state-'));
  const state = JSON.stringify(SCRIPT);
  write(
    'package.json',
    JSON.stringify({
      name: 'build-state-fixture',
      version: '1.0.0',
      private: true,
      scripts: {
        build: `node ${state} begin && node build.mjs && node ${state} end`,
        prepare: 'npm run build',
        start: `node ${state} ensure && node dist/server.js`,
      },
    }),
  );
  write('build.mjs', FAKE_BUILD);
  write('src/index.ts', 'export const a = 1;\n');
  write('src/http/app.ts', 'export const b = 2;\n');
  write('grammar/dice.peggy', 'Formula = "d"\n');
  write('page/main.ts', 'export {};\n');
  write('packages/client/src/index.ts', 'export {};\n');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('build-state', () => {
  it('npm install && npm start: one build, then it serves', async () => {
    await run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts=false'], { cwd: dir });
    expect(builds()).toBe(1);
    const { stdout, stderr } = await run(npm, ['start'], { cwd: dir });
    expect(stdout).toContain('serving');
    expect(stderr).toContain('up to date');
    expect(builds()).toBe(1);
  }, 120_000);

  it('from a clean state npm start builds once; started again, it does not build', async () => {
    expect((await run(npm, ['start'], { cwd: dir })).stdout).toContain('serving');
    expect(builds()).toBe(1);
    expect((await run(npm, ['start'], { cwd: dir })).stdout).toContain('serving');
    expect(builds()).toBe(1);
  }, 120_000);

  it('is stale after an edit, a new file, a rename, a deletion, other dependencies or scripts', async () => {
    await ensure();
    expect(builds()).toBe(1);
    const changes: Array<[string, () => void]> = [
      ['an edit', () => appendFileSync(join(dir, 'src/http/app.ts'), '// more\n')],
      ['a new file', () => write('page/odds.ts', 'export {};\n')],
      ['a rename', () => renameSync(join(dir, 'src/index.ts'), join(dir, 'src/main.ts'))],
      ['a deletion', () => rmSync(join(dir, 'page/odds.ts'))],
      ['the grammar', () => write('grammar/dice.peggy', 'Formula = "D"\n')],
      ['the client', () => write('packages/client/src/index.ts', 'export const c = 3;\n')],
      ['the dependencies', () => write('node_modules/.package-lock.json', '{"packages":{}}\n')],
      ['the scripts', () => appendFileSync(join(dir, 'package.json'), '\n')],
    ];
    for (const [what, change] of changes) {
      expect(await check(), `before ${what}`).toBe(0);
      change();
      expect(await check(), what).toBe(1);
      await buildByHand();
    }
    expect(await check()).toBe(0);
    expect(builds()).toBe(1 + changes.length);
  }, 120_000);

  it('builds when an output is gone, and after a build that failed', async () => {
    await ensure();
    rmSync(join(dir, 'dist/page/index.html'));
    expect(await check()).toBe(1);
    await ensure();
    expect(builds()).toBe(2);
    appendFileSync(join(dir, 'src/index.ts'), '// edit\n');
    expect(await ensure({ FAIL_BUILD: '1' })).toMatchObject({ code: 1 });
    expect(builds()).toBe(3);
    // The failed build left the outputs of the one before: they are not taken for this build.
    expect(await check()).toBe(1);
    await ensure();
    expect(builds()).toBe(4);
    expect(await check()).toBe(0);
  }, 120_000);

  it('ignores the generated parser, which the build writes into src/', async () => {
    await ensure();
    write('src/formula/generated/parser.js', '// written by the build\n');
    expect(await check()).toBe(0);
  }, 120_000);
});

describe("the repo's own scripts", () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };

  it('start and test build only when stale; install and pack always build', () => {
    expect(scripts.start).toBe('node scripts/build-state.mjs ensure && node dist/server.js');
    expect(scripts.test?.startsWith('node scripts/build-state.mjs ensure && ')).toBe(true);
    expect(scripts.prepare).toBe('npm run build');
  });

  it('the build notes its inputs first and marks itself complete last', () => {
    const steps = scripts.build?.split(' && ') ?? [];
    expect(steps.slice(0, 2)).toEqual(['npm run clean', 'node scripts/build-state.mjs begin']);
    expect(steps.at(-1)).toBe('node scripts/build-state.mjs end');
  });
});

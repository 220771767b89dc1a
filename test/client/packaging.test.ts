// What `npm publish` would ship: @fairdice/client (a front end installs only it) and the root
// package, whose `fairdice/client` entry is the same built client. Checked with `npm pack
// --dry-run`, and by loading both entries from Node with `import` and with `require`.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const clientDir = join(root, 'packages', 'client');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface PackManifest {
  name?: string;
  license?: string;
  keywords?: string[];
  homepage?: string;
  repository?: { url?: string; directory?: string };
  bugs?: { url?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  exports?: Record<string, unknown>;
}

/** The files `npm pack` would put in the tarball (scripts off: the build already ran). */
async function packedFiles(cwd: string): Promise<string[]> {
  const { stdout } = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd });
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return pack!.files.map((file) => file.path);
}

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackManifest;

/** Every source a shipped source map names is shipped too. */
function missingMapSources(dir: string, files: readonly string[]): string[] {
  const missing: string[] = [];
  for (const file of files.filter((path) => path.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sources: string[] };
    for (const source of map.sources) {
      const shipped = posix.normalize(posix.join(posix.dirname(file), source));
      if (!files.includes(shipped)) missing.push(`${file} -> ${shipped}`);
    }
  }
  return missing;
}

/** The packages a built module of the client loads at run time, following its own modules. */
function packagesLoadedBy(entry: string): string[] {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(clientDir, file), 'utf8');
    for (const [, specifier] of code.matchAll(/^(?:import|export) (?:.* from )?['"]([^'"]+)['"]/gm)) {
      if (specifier!.startsWith('.')) visit(posix.join(posix.dirname(file), specifier!));
      else packages.add(specifier!);
    }
  };
  visit(entry);
  return [...packages].sort();
}

describe('@fairdice/client as published', () => {
  it('ships the built client, its sources, its licence and nothing else', async () => {
    const files = await packedFiles(clientDir);
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'package.json', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(files.filter((file) => file.endsWith('.tsbuildinfo'))).toEqual([]);
    expect(
      files.filter((file) => !/^(LICENSE|README\.md|package\.json|dist\/.+|src\/.+)$/.test(file)),
    ).toEqual([]);
    expect(missingMapSources(clientDir, files)).toEqual([]);
  });

  it('depends on zod and a peer tRPC client, runs no install script, and says where it lives', () => {
    const manifest = manifestOf(clientDir);
    expect(manifest.name).toBe('@fairdice/client');
    // zod: the answers' types are inferred from its schemas, which @fairdice/client/schemas exports.
    expect(manifest.dependencies ?? {}).toEqual({ zod: manifestOf(root).dependencies?.zod });
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual(['@trpc/client', '@trpc/server']);
    // npm counts `prepare` as an install script of a package installed from a tarball, and warns.
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => /install|^prepare$/.test(name))).toEqual([]);
    expect(manifest.scripts?.prepack).toBe('npm run build');
    expect(manifest.license).toBe('MIT');
    expect(manifest.keywords?.length).toBeGreaterThan(0);
    expect(manifest.repository?.directory).toBe('packages/client');
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs?.url).toMatch(/^https:\/\//);
  });

  it('imports nothing at run time but @trpc/client and its own modules', () => {
    const built = readFileSync(join(clientDir, 'dist', 'index.js'), 'utf8');
    const imports = [...built.matchAll(/^(?:import|export) .* from ['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(imports.sort()).toEqual([
      './describe.js',
      './types.js',
      './types.js',
      './verify.js',
      '@trpc/client',
    ]);
    // The description of a roll imports nothing but its own modules.
    const describe = readFileSync(join(clientDir, 'dist', 'describe.js'), 'utf8');
    const described = [...describe.matchAll(/^(?:import|export) .* from ['"]([^'"]+)['"]/gm)].map(
      (m) => m[1],
    );
    expect(described.sort()).toEqual(['./notation.js', './odds.js']);
  });

  it('loads zod only from its schemas entry: the main entry and the verifier load none', () => {
    expect(packagesLoadedBy('dist/index.js')).toEqual(['@trpc/client']);
    expect(packagesLoadedBy('dist/types.js')).toEqual([]);
    expect(packagesLoadedBy('dist/verify.js')).toEqual([]);
    expect(packagesLoadedBy('dist/shapes/index.js')).toEqual(['zod']);
  });
});

describe('the root package', () => {
  it('ships dist/, the client entry and the licence, with no build state', async () => {
    const files = await packedFiles(root);
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'dist/index.js',
        'dist/server.js',
        'packages/client/dist/index.js',
        'packages/client/dist/index.d.ts',
      ]),
    );
    expect(files.filter((file) => file.endsWith('.tsbuildinfo'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('examples/'))).toEqual([]);
    expect(missingMapSources(root, files)).toEqual([]);
    const manifest = manifestOf(root);
    expect(manifest.scripts?.prepare).toBe('npm run build');
    expect(manifest.repository?.url).toMatch(/^git\+https:\/\//);
  });
});

describe('loading the client from Node', () => {
  const load = async (code: string) =>
    (await run(process.execPath, ['--input-type=commonjs', '-e', code], { cwd: root })).stdout.trim();
  const loadEsm = async (code: string) =>
    (await run(process.execPath, ['--input-type=module', '-e', code], { cwd: root })).stdout.trim();

  it("works with require('fairdice/client') and require('@fairdice/client')", async () => {
    const probe = (name: string) =>
      `const c = require('${name}'); console.log([typeof c.createDiceClient, typeof c.isDiceError, c.API_ERROR_CODES.length].join(' '))`;
    // Every code of the service's vocabulary (src/errors.ts).
    const codes = Object.keys(ERROR_CODES).length;
    expect(await load(probe('fairdice/client'))).toBe(`function function ${codes}`);
    expect(await load(probe('@fairdice/client'))).toBe(`function function ${codes}`);
  });

  it('works with import, and both names give the same module', async () => {
    const out = await loadEsm(
      "const a = await import('fairdice/client'); const b = await import('@fairdice/client'); console.log(a.createDiceClient === b.createDiceClient)",
    );
    expect(out).toBe('true');
    expect(dirname(fileURLToPath(import.meta.resolve('@fairdice/client')))).toBe(join(clientDir, 'dist'));
  });

  it('loads its other entries, built: the schemas, the verifier alone, the types alone', async () => {
    const out = await loadEsm(
      "const s = await import('@fairdice/client/schemas'); const v = await import('@fairdice/client/verify'); " +
        "const t = await import('@fairdice/client/types'); " +
        'console.log([typeof s.RollResponseSchema.parse, typeof v.verifyChain, t.ADVANTAGE_STATES.join()].join(" "))',
    );
    expect(out).toBe('function function normal,advantage,disadvantage');
    expect(await load("console.log(require('@fairdice/client/verify').GENESIS_PREV)")).toBe('0'.repeat(64));
    expect(fileURLToPath(import.meta.resolve('@fairdice/client/schemas'))).toBe(
      join(clientDir, 'dist', 'shapes', 'index.js'),
    );
  });
});

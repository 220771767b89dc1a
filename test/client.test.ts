// The `fairdice/client` entry: exported from package.json, and its built module pulls in no
// server code (only @trpc/client), so a browser or CLI bundle stays small.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);

describe('fairdice/client', () => {
  it('is an exports entry pointing at the built client', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      exports: Record<string, { import: string; types: string }>;
    };
    expect(pkg.exports['./client']).toEqual({ types: './dist/client.d.ts', import: './dist/client.js' });
  });

  it('imports nothing but @trpc/client at run time', () => {
    const built = new URL('dist/client.js', root);
    expect(existsSync(built), 'run `npm run build` first (npm test does)').toBe(true);
    const imports = [...readFileSync(built, 'utf8').matchAll(/^import .* from ['"]([^'"]+)['"]/gm)].map(
      (m) => m[1],
    );
    expect(imports).toEqual(['@trpc/client']);
  });
});

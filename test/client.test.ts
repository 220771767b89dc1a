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

  it('imports nothing but @trpc/client and the WebCrypto receipt verifier at run time', () => {
    const built = new URL('dist/client.js', root);
    expect(existsSync(built), 'run `npm run build` first (npm test does)').toBe(true);
    // Imports and re-exports, followed through the package's own modules.
    const specifiers = (file: URL) =>
      [...readFileSync(file, 'utf8').matchAll(/^(?:import|export) .* from ['"]([^'"]+)['"]/gm)].map(
        (m) => m[1]!,
      );
    expect(specifiers(built)).toEqual(['@trpc/client', './trust/verify.js']);
    const seen = new Set<string>();
    const walk = (file: URL) => {
      for (const specifier of specifiers(file)) {
        if (!specifier.startsWith('.')) {
          seen.add(specifier);
          continue;
        }
        walk(new URL(specifier, file));
      }
    };
    walk(built);
    // No node: module and no server code: the same file runs in a browser.
    expect([...seen].sort()).toEqual(['@trpc/client', 'canonicalize']);
  });
});

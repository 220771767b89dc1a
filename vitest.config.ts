import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * @fairdice/client's entries, each to its source (the "@fairdice/source" condition of its
 * package.json), so the tests run the client's code as it is, built or not. An alias rather than
 * a resolve condition: Vitest passes conditions on to every Node process and worker thread it
 * starts, and those load the built server, which must find the built client.
 */
function clientSources() {
  const root = new URL('./packages/client/', import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.entries(manifest.exports).flatMap(([entry, targets]) => {
    const source = typeof targets === 'string' ? undefined : targets['@fairdice/source'];
    if (source === undefined) return [];
    const name = `@fairdice/client${entry.slice(1)}`.replace(/[/.]/g, '\\$&');
    return [{ find: new RegExp(`^${name}$`), replacement: new URL(source, root).pathname }];
  });
}

export default defineConfig({
  resolve: { alias: clientSources() },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits on other processes and browsers (an event stream reaching a second tab,
    // WebCrypto checks): vitest's default of 1 s is too short for a loaded two-core CI machine.
    expect: { poll: { timeout: 20_000 } },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/formula/generated/**'],
      reporter: ['text-summary', 'text'],
    },
  },
});

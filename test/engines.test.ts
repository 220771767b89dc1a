// The dependency tree keeps the promise of package.json's `engines`: every package the lockfile
// installs accepts every Node the range admits, read at the low end of each of its alternatives
// (20.19.0 and 22.13.0) and at the Node CI also runs (24), so `npm install` warns of no engine on
// any of them. A package whose newer release drops a Node the README names (cookie 2, which
// light-my-request asks for, needs Node 22) is held back by an `overrides` entry in package.json.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
const pkg = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/** The lowest version of each alternative of a range: `^20.19.0 || >=22.13.0` gives 20.19.0 and 22.13.0. */
const lowEnds = (range: string): string[] =>
  new semver.Range(range).set.map(
    (alternative) => semver.minVersion(alternative.map(String).join(' '))!.version,
  );

/** The Node CI runs besides the low ends (README.md: Node 20 and Node 24). */
const CI_NODE = '24.0.0';

describe('engines', () => {
  const nodes = [...lowEnds(pkg.engines.node), CI_NODE];

  it('names the Nodes the README names', () => {
    expect(nodes).toEqual(['20.19.0', '22.13.0', CI_NODE]);
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`engines\`: \`${pkg.engines.node}\``);
    for (const node of nodes) expect(semver.satisfies(node, pkg.engines.node)).toBe(true);
  });

  it('every package of the lockfile accepts each of them', () => {
    const refusals: string[] = [];
    let checked = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      // Old lockfiles may hold engines as a list of strings: none here, but never read them as a range.
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || range === undefined) continue;
      checked++;
      for (const node of nodes) {
        if (!semver.satisfies(node, range))
          refusals.push(`${path}@${entry.version}: node ${range} refuses ${node}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(refusals).toEqual([]);
  });
});

describe('light-my-request with cookie 1 (package.json overrides)', () => {
  it("writes inject's cookies as with cookie 2: the one function it calls has the same form", async () => {
    const app = Fastify();
    app.get('/', async (request) => ({ cookie: request.headers.cookie }));
    try {
      const answer = await app.inject({ url: '/', cookies: { a: 'b c', other: 'x' } });
      expect(answer.json()).toEqual({ cookie: 'a=b%20c; other=x' });
    } finally {
      await app.close();
    }
  });
});

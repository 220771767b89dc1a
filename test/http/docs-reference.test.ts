// The reference served at /docs/<name> (docs/*.md rendered by scripts/reference.ts at build time),
// over HTTP without a browser: every doc is a page with its headings' anchors, every link between
// docs leads to a served page and an anchor it has, nothing leaves the origin, it is counted apart
// from the API, and a browser refused by the rate limit on a page route reads a page, not JSON.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_DOCS, renderReference } from '../../scripts/reference.js';
import {
  PAGE_CONTENT_SECURITY_POLICY,
  REFUSAL_CONTENT_SECURITY_POLICY,
  waitInWords,
} from '../../src/http/for-people.js';
import { REFERENCE_DIR } from '../../src/http/reference.js';
import { LIMITS } from '../../src/limits.js';
import { expectError, makeApp } from '../support/app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

// `npm test` builds first; a bare `vitest run` on a fresh checkout has no reference to serve.
if (!existsSync(join(REFERENCE_DIR, 'reference.json'))) {
  throw new Error(`${REFERENCE_DIR}reference.json is missing: run npm run build before these tests`);
}

const markdownOf = (name: string): string => readFileSync(join(ROOT, 'docs', `${name}.md`), 'utf8');

/** The ids of a page's elements. */
const idsOf = (html: string): Set<string> => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));

/** The href of every link in the article of a served page. */
const articleLinks = (html: string): string[] => {
  const article = html.slice(html.indexOf('<article>'), html.indexOf('</article>'));
  return [...article.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]!.replace(/&amp;/g, '&'));
};

describe('the reference at /docs/<name>', () => {
  let app: FastifyInstance;
  const pages = new Map<string, string>();
  beforeAll(async () => {
    app = await makeApp();
    for (const { name } of REFERENCE_DOCS) {
      const page = await app.inject({ url: `/docs/${name}`, headers: { accept: BROWSER_ACCEPT } });
      expect(page.statusCode, name).toBe(200);
      pages.set(name, page.body);
    }
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves every doc of docs/ as a page under the page’s strict CSP', async () => {
    // Every doc of the repository is served: a link between docs never dangles.
    const files = readdirSync(join(ROOT, 'docs')).filter((file) => file.endsWith('.md'));
    expect(files.map((file) => file.replace(/\.md$/, '')).sort()).toEqual(
      REFERENCE_DOCS.map((doc) => doc.name).sort(),
    );
    const page = await app.inject({ url: '/docs/language' });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(PAGE_CONTENT_SECURITY_POLICY);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    for (const [name, html] of pages) {
      // Whatever loads comes from this origin: no script at all, one stylesheet, an empty icon.
      expect(html, name).not.toMatch(/<script/i);
      expect(html, name).not.toMatch(/\sstyle="/i);
      const loaded = [...html.matchAll(/<link [^>]*href="([^"]+)"/g)].map((match) => match[1]);
      expect(loaded, name).toEqual([
        'data:,',
        expect.stringMatching(/^\/docs\/assets\/[0-9a-f]{16}\/reference\.css$/),
      ]);
    }
  });

  it('keeps every heading of the markdown, with GitHub’s anchor as its id', () => {
    for (const { name } of REFERENCE_DOCS) {
      const html = pages.get(name)!;
      const headings = markdownOf(name)
        .replace(/```[\s\S]*?```/g, '')
        .split('\n')
        .filter((line) => /^#{1,6} /.test(line));
      const rendered = [...html.matchAll(/<h([1-6]) id="[^"]+">/g)];
      expect(rendered.length, name).toBe(headings.length);
      const ids = idsOf(html);
      // The anchors other docs and code comments cite (`stats.md#cost-too_complex-and-caching`).
      if (name === 'stats') expect(ids.has('cost-too_complex-and-caching')).toBe(true);
      if (name === 'operations') expect(ids.has('rate-limiting')).toBe(true);
    }
  });

  it('links each doc to the others as served pages, to anchors they have; source files unlinked', async () => {
    let between = 0;
    for (const [name, html] of pages) {
      for (const href of articleLinks(html)) {
        if (/^https?:/.test(href)) continue; // another site, as the doc wrote it
        expect(href, `${name}: ${href}`).not.toMatch(/\.md(?:#|$)/);
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path === '' ? name : path;
        if (target.startsWith('/')) {
          // A path of the service itself (/docs, /v1/...): it must answer.
          const answer = await app.inject({ url: target, headers: { accept: BROWSER_ACCEPT } });
          expect(answer.statusCode, `${name}: ${href}`).toBe(200);
          continue;
        }
        expect(pages.has(target), `${name}: ${href}`).toBe(true);
        if (anchor !== undefined)
          expect(idsOf(pages.get(target)!).has(anchor), `${name}: ${href}`).toBe(true);
        if (path !== '') between++;
      }
      // A link into the source tree cannot be followed from a hosted service: its text stays.
      expect(html, name).not.toMatch(/href="\.\.\//);
    }
    expect(between).toBeGreaterThan(50);
    expect(pages.get('language')).toContain(
      '<span class="source-path" title="grammar/dice.peggy, in the fairdice source"><code>grammar/dice.peggy</code></span>',
    );
  });

  it('lists the reference on every page, the page shown marked, with the roller and /docs', () => {
    for (const [name, html] of pages) {
      const contents = [...html.matchAll(/<a href="\/docs\/(\w+)"( aria-current="page")?>/g)];
      expect(
        contents.map((match) => match[1]),
        name,
      ).toEqual(REFERENCE_DOCS.map((doc) => doc.name));
      expect(
        contents.filter((match) => match[2]).map((match) => match[1]),
        name,
      ).toEqual([name]);
      expect(html).toContain('<a href="/">Roll dice</a>');
      expect(html).toContain('<a href="/docs">API reference (try it)</a>');
    }
  });

  it('is linked from /docs, the page at / and the index', async () => {
    const swagger = await app.inject({ url: '/docs' });
    for (const doc of REFERENCE_DOCS.filter((d) => d.group === 'use')) {
      expect(swagger.body).toContain(`<a href="/docs/${doc.name}">`);
    }
    const page = await app.inject({ url: '/', headers: { accept: BROWSER_ACCEPT } });
    expect(page.body).toContain('<a href="/docs/language">');
    const index = await app.inject({ url: '/' });
    expect((index.json() as { links: Record<string, string> }).links.language).toBe('/docs/language');
  });

  it('answers a doc it does not have with the 404 envelope; the /docs assets still resolve', async () => {
    expectError(await app.inject({ url: '/docs/nothing-here' }), 404, 'not_found');
    expectError(await app.inject({ url: '/docs/assets' }), 404, 'not_found');
    const css = (pages.get('api') ?? '').match(/href="(\/docs\/assets\/[^"]+)"/)?.[1];
    const asset = await app.inject({ url: css ?? '' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('counts its pages in a budget of their own, never the API’s', async () => {
    const fresh = await makeApp({ rateLimitMax: 5 });
    try {
      const first = await fresh.inject({ url: '/docs/stats' });
      expect(Number(first.headers['x-ratelimit-remaining'])).toBe(LIMITS.referencePagesPerWindow - 1);
      await fresh.inject({ url: '/docs/trust' });
      const roll = await fresh.inject({ url: '/v1/roll?formula=1d6' });
      expect(Number(roll.headers['x-ratelimit-remaining'])).toBe(4);
    } finally {
      await fresh.close();
    }
  });
});

describe('a refusal of the rate limit, for a person and for a program', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ rateLimitMax: 1 });
    // The one request of the window: everything after it is refused.
    expect((await app.inject({ url: '/v1/health' })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  for (const url of ['/', '/docs']) {
    it(`${url}: a browser reads a page saying how long to wait; a program, the envelope`, async () => {
      const page = await app.inject({ url, headers: { accept: BROWSER_ACCEPT } });
      expect(page.statusCode).toBe(429);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(REFUSAL_CONTENT_SECURITY_POLICY);
      expect(page.headers.vary).toMatch(/\baccept\b/i);
      const wait = Number(page.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(page.body).toContain(`Please wait <strong>${waitInWords(wait)}</strong>`);
      expect(page.body).toContain(`<title>Too many requests: wait ${waitInWords(wait)}</title>`);
      const envelope = await app.inject({ url, headers: { accept: 'application/json' } });
      expectError(envelope, 429, 'rate_limited');
      expect(envelope.headers.vary).toMatch(/\baccept\b/i);
      expect(envelope.headers['retry-after']).toBeDefined();
    });
  }

  it('says the wait in words', () => {
    expect([1, 2, 59, 60, 61, 125].map(waitInWords)).toEqual([
      '1 second',
      '2 seconds',
      '59 seconds',
      '1 minute',
      '1 minute and 1 second',
      '2 minutes and 5 seconds',
    ]);
  });

  it('an API route asked by a browser still answers the envelope (it is no page)', async () => {
    expectError(
      await app.inject({ url: '/v1/roll?formula=1d6', headers: { accept: BROWSER_ACCEPT } }),
      429,
      'rate_limited',
    );
  });

  it('the reference’s own budget refuses as a page too', async () => {
    let last = await app.inject({ url: '/docs/language', headers: { accept: BROWSER_ACCEPT } });
    for (let index = 0; index < LIMITS.referencePagesPerWindow && last.statusCode === 200; index++) {
      last = await app.inject({ url: '/docs/language', headers: { accept: BROWSER_ACCEPT } });
    }
    expect(last.statusCode).toBe(429);
    expect(last.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(last.body).toContain('Please wait');
  });
});

describe('rendering the reference (scripts/reference.ts)', () => {
  const sources = new Map(REFERENCE_DOCS.map(({ name }) => [name, `# ${name}\n`]));
  const render = (markdown: string): string =>
    renderReference(new Map([...sources, ['language', markdown]])).pages[0]!.html;

  it('shows raw HTML as text, never as markup', () => {
    expect(render('# T\n\n<script>alert(1)</script> and <b>bold</b>\n')).not.toMatch(/<script|<b>/);
  });

  it('numbers repeated headings as GitHub does, and slugs code spans by their text', () => {
    const html = render('# T\n\n## Errors\n\n## Errors\n\n### `/v1/stats` and `x-y`\n');
    expect([...html.matchAll(/id="([^"]+)"/g)].map((m) => m[1])).toEqual([
      't',
      'errors',
      'errors-1',
      'v1stats-and-x-y',
    ]);
  });

  it('gives table alignment as a class (the CSP allows no inline style) and wraps tables to scroll', () => {
    const html = render('# T\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n');
    expect(html).not.toContain('style=');
    expect(html).toContain('<td class="align-right">2</td>');
    expect(html).toMatch(/<div class="wide" tabindex="0" role="region" aria-label="[^"]+">\n<table>/);
  });

  it('rewrites links: docs to served paths, source files to text, other sites and anchors as written', () => {
    const html = render(
      '# T\n\n[a](stats.md#x) [b](./api.md) [c](../src/limits.ts) [d](https://example.org/x.md) [e](#t) [f](nothing.md) [stats.md](stats.md)\n',
    );
    // A link that reads as the file's name reads as the doc's title (here its heading, `# stats`).
    expect(html).toContain('<a href="stats">stats</a>');
    expect(html).toContain('<a href="stats#x">a</a>');
    expect(html).toContain('<a href="api">b</a>');
    expect(html).toContain(
      '<span class="source-path" title="src/limits.ts, in the fairdice source">c</span>',
    );
    expect(html).toContain('<a href="https://example.org/x.md">d</a>');
    expect(html).toContain('<a href="#t">e</a>');
    // A doc that is not served is no page: left as a source path.
    expect(html).toContain('<span class="source-path" title="nothing.md, in the fairdice source">f</span>');
  });
});

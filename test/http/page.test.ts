// GET / without a browser: the page for `Accept: text/html`, the JSON index for every other
// Accept, the page's assets hashed and cached for a year, and the page's CSP.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_CACHE_CONTROL, PAGE_CACHE_CONTROL } from '../../src/http/docs.js';
import { PAGE_CONTENT_SECURITY_POLICY } from '../../src/http/for-people.js';
import { loadPage, PAGE_DIR } from '../../src/http/page.js';
import { VERSION } from '../../src/version.js';
import { makeApp } from '../support/app.js';

const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const INDEX = {
  name: 'fairdice',
  version: VERSION,
  links: {
    openapi: '/openapi.json',
    health: '/v1/health',
    docs: '/docs',
    language: '/docs/language',
    mcp: '/mcp',
  },
};

// `npm test` builds first; a bare `vitest run` on a fresh checkout has no page to serve.
if (!existsSync(join(PAGE_DIR, 'index.html'))) {
  throw new Error(`${PAGE_DIR}index.html is missing: run npm run build before these tests`);
}

describe('GET /', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves the page to a browser, with a strict CSP and no caching of the HTML', async () => {
    const response = await app.inject({ url: '/', headers: { accept: BROWSER_ACCEPT } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(PAGE_CONTENT_SECURITY_POLICY);
    expect(PAGE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|https?:|\*/);
    expect(response.headers['cache-control']).toBe(PAGE_CACHE_CONTROL);
    expect(response.headers.vary).toMatch(/\baccept\b/);
    expect(response.body).toContain('<h2 id="roll-heading">Roll</h2>');
    // Nothing inline the CSP would refuse, nothing from another host.
    expect(response.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|https?:\/\//);
  });

  for (const accept of [
    undefined,
    '*/*',
    'application/json',
    'text/html;q=0, application/json',
    'text/plain',
  ]) {
    it(`answers the JSON index, unchanged, to Accept: ${accept ?? '(none)'}`, async () => {
      const response = await app.inject({ url: '/', headers: accept === undefined ? {} : { accept } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers.vary).toMatch(/\baccept\b/);
      expect(response.json()).toEqual(INDEX);
    });
  }

  it('serves every asset the page names, hashed, immutable, gzipped on request, not counted by the API limit', async () => {
    const first = await app.inject({ url: '/', headers: { accept: 'text/html' } });
    const html = first.body;
    const paths = [...html.matchAll(/(?:href|src)="(\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(paths.length).toBeGreaterThanOrEqual(2);
    expect(paths.some((path) => path.endsWith('.js'))).toBe(true);
    expect(paths.some((path) => path.endsWith('.css'))).toBe(true);
    const page = loadPage();
    for (const path of paths.filter((p) => p.startsWith('/assets/'))) {
      expect(path).toMatch(/^\/assets\/[\w.-]+-[\w-]{8}\.(?:js|css)$/);
      const plain = await app.inject({ url: path });
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
      expect(plain.headers['x-content-type-options']).toBe('nosniff');
      expect(plain.rawPayload.equals(page?.assets.get(path)?.body ?? Buffer.alloc(0))).toBe(true);
      const zipped = await app.inject({ url: path, headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    }
    // The assets spent their own budget, not the API's: the next page load is one request more.
    const second = await app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
    // Links to the reference (/docs, /docs/<name>) aside, every path the page names is one of its assets.
    expect(paths.filter((p) => !p.startsWith('/assets/') && !/^\/docs(?:\/[a-z]+)?$/.test(p))).toEqual([]);
  });

  it('an unknown asset name is the usual 404 envelope', async () => {
    const response = await app.inject({ url: '/assets/index-00000000.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('GET / without a built page', () => {
  it('answers the JSON index to a browser too', async () => {
    const app = await makeApp({}, { page: null });
    try {
      const response = await app.inject({ url: '/', headers: { accept: BROWSER_ACCEPT } });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toEqual(INDEX);
    } finally {
      await app.close();
    }
  });

  it('loadPage says so for a directory with no page', () => {
    expect(loadPage(join(PAGE_DIR, 'no-such-dir'))).toBeUndefined();
  });
});

// The /docs plugin over HTTP without a browser: which routes exist, their cache headers, and which
// requests count against the caller's rate limit.
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import {
  ASSET_CACHE_CONTROL,
  DOCS_CONTENT_SECURITY_POLICY,
  docsPlugin,
  PAGE_CACHE_CONTROL,
} from '../../src/http/docs.js';
import { LIMITS } from '../../src/limits.js';

// The service's defaults: the page load is proven to fit the limit every caller gets.
const config = defaultConfig({ logLevel: 'silent' });

const ASSET_PATH = /(?:href|src)="(\/docs\/assets\/[0-9a-f]{16}\/[\w.-]+)"/g;

function assetPaths(html: string): string[] {
  return [...html.matchAll(ASSET_PATH)].map((match) => match[1] ?? '');
}

function remaining(headers: Record<string, unknown>): number {
  return Number(headers['x-ratelimit-remaining']);
}

describe('GET /docs', () => {
  let app: FastifyInstance;
  beforeEach(async () => {
    app = await buildApp(config);
  });
  afterEach(async () => {
    await app.close();
  });

  it('serves an HTML page that loads only assets of this server', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe(PAGE_CACHE_CONTROL);
    expect(page.headers['content-security-policy']).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(page.body).not.toMatch(/(?:https?:)?\/\/[a-z]/i);
    const paths = assetPaths(page.body);
    expect(paths.map((path) => path.split('/').pop())).toEqual([
      'favicon-32x32.png',
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'docs-init.js',
    ]);
  });

  it('serves every asset with a year-long immutable cache, an ETag, and a budget of its own', async () => {
    const paths = assetPaths((await app.inject({ method: 'GET', url: '/docs' })).body);
    const contentTypes: Record<string, string> = {
      'favicon-32x32.png': 'image/png',
      'swagger-ui.css': 'text/css; charset=utf-8',
      'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      'docs-init.js': 'text/javascript; charset=utf-8',
    };
    expect(paths).toHaveLength(4);
    let spent = 0;
    // A browser loading the page twice: the first time in full, the second revalidating.
    const etags: string[] = [];
    for (const path of paths) {
      const asset = await app.inject({ method: 'GET', url: path });
      spent += 1;
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
      expect(asset.headers['content-type']).toBe(contentTypes[path.split('/').pop() ?? '']);
      expect(asset.rawPayload.length).toBeGreaterThan(0);
      expect(remaining(asset.headers)).toBe(LIMITS.docsAssetsPerWindow - spent);
      etags.push(String(asset.headers.etag));
    }
    for (const [index, path] of paths.entries()) {
      const revalidated = await app.inject({
        method: 'GET',
        url: path,
        headers: { 'if-none-match': etags[index]! },
      });
      spent += 1;
      expect(revalidated.statusCode).toBe(304);
      expect(revalidated.rawPayload.length).toBe(0);
      expect(revalidated.headers.etag).toBe(etags[index]);
    }
    // Another tag (another deploy's, or the gzipped form's) gets the bytes.
    const other = await app.inject({ method: 'GET', url: paths[0]!, headers: { 'if-none-match': '"0000"' } });
    spent += 1;
    expect(other.statusCode).toBe(200);
    // A client looping on the assets meets their own 429, and the API budget is untouched.
    while (spent < LIMITS.docsAssetsPerWindow) {
      expect((await app.inject({ method: 'GET', url: paths[1]! })).statusCode).toBe(200);
      spent += 1;
    }
    const over = await app.inject({ method: 'GET', url: paths[1]! });
    expect(over.statusCode).toBe(429);
    expect(JSON.parse(over.body).error.code).toBe('rate_limited');
    const again = await app.inject({ method: 'GET', url: '/docs' });
    expect(remaining(again.headers)).toBe(config.rateLimitMax - 2);
  });

  it('one page load costs two limited requests: the page and the OpenAPI document', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    expect(remaining(page.headers)).toBe(config.rateLimitMax - 1);
    for (const path of assetPaths(page.body)) {
      await app.inject({ method: 'GET', url: path });
    }
    const document = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(remaining(document.headers)).toBe(config.rateLimitMax - 2);
    // An API operation is never exempt.
    const roll = await app.inject({ method: 'GET', url: '/v1/roll?formula=1d20' });
    expect(remaining(roll.headers)).toBe(config.rateLimitMax - 3);
  });

  it('gzips text assets for clients that accept it, and strips source map comments', async () => {
    const paths = assetPaths((await app.inject({ method: 'GET', url: '/docs' })).body);
    const bundlePath = paths.find((path) => path.endsWith('/swagger-ui-bundle.js')) ?? '';
    const plain = await app.inject({ method: 'GET', url: bundlePath });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('SwaggerUIBundle');
    expect(plain.body).not.toContain('sourceMappingURL');
    const zipped = await app.inject({
      method: 'GET',
      url: bundlePath,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
  });

  it('points the page at the configured OpenAPI document', async () => {
    const paths = assetPaths((await app.inject({ method: 'GET', url: '/docs' })).body);
    const init = await app.inject({
      method: 'GET',
      url: paths.find((path) => path.endsWith('/docs-init.js')) ?? '',
    });
    expect(init.body).toContain('fetch("/openapi.json"');
    expect(init.body).toContain('validatorUrl: null');
  });

  it('answers an asset under a stale hash with 404, counted against the assets budget', async () => {
    const stale = await app.inject({ method: 'GET', url: '/docs/assets/0000000000000000/swagger-ui.css' });
    expect(stale.statusCode).toBe(404);
    expect(remaining(stale.headers)).toBe(LIMITS.docsAssetsPerWindow - 1);
  });
});

describe('docsPlugin options', () => {
  it('serves under another prefix, escapes the title, and coexists with ignoreTrailingSlash', async () => {
    const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    await app.register(docsPlugin, {
      openapiUrl: '/spec.json',
      routePrefix: '/reference',
      title: 'Dice <&> "API"',
    });
    try {
      const page = await app.inject({ method: 'GET', url: '/reference' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<title>Dice &#60;&#38;&#62; &#34;API&#34;</title>');
      expect(page.body).toMatch(/src="\/reference\/assets\/[0-9a-f]{16}\/docs-init\.js"/);
      expect((await app.inject({ method: 'GET', url: '/reference/' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/docs' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});

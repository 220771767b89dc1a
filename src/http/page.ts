// The page for people at `/` (built by Vite from page/ into dist/page/ by `npm run build`): its
// HTML for a browser's `Accept: text/html`, its hashed assets under /assets/ cached for a year.
// Same rules as /docs: every asset from this origin, a CSP that refuses anything else.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ASSET_CACHE_CONTROL, PAGE_CACHE_CONTROL } from './docs.js';
import { PAGE_CONTENT_SECURITY_POLICY, wantsHtml } from './for-people.js';
import { countingItself } from './rate-limit.js';

/** Where `npm run build` writes the page: dist/page, from src/http or dist/http alike. */
export const PAGE_DIR = fileURLToPath(new URL('../../dist/page/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface PageAsset {
  readonly contentType: string;
  readonly body: Buffer;
  readonly gzipped: Buffer | undefined;
}

export interface BuiltPage {
  readonly html: string;
  /** URL path (`/assets/index-<hash>.js`) to the asset. */
  readonly assets: ReadonlyMap<string, PageAsset>;
}

/** The built page, or undefined when `npm run build` has not built it into `dir`. */
export function loadPage(dir: string = PAGE_DIR): BuiltPage | undefined {
  let html: string;
  try {
    html = readFileSync(join(dir, 'index.html'), 'utf8');
  } catch {
    return undefined;
  }
  const assets = new Map<string, PageAsset>();
  for (const name of readdirSync(join(dir, 'assets'))) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    const body = readFileSync(join(dir, 'assets', name));
    const gzipped = contentType.startsWith('text/') ? gzipSync(body) : undefined;
    assets.set(`/assets/${name}`, { contentType, body, gzipped });
  }
  return { html, assets };
}

function sendAsset(asset: PageAsset, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply
    .header('content-type', asset.contentType)
    .header('cache-control', ASSET_CACHE_CONTROL)
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  const accepted = request.headers['accept-encoding'];
  if (asset.gzipped && typeof accepted === 'string' && /\bgzip\b/.test(accepted)) {
    return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  }
  return reply.send(asset.body);
}

export interface PageOptions {
  /** The service's logger: the line saying the page is not built. */
  log: FastifyBaseLogger;
  /** The index (JSON text): what `/` answers anyone who does not ask for HTML. */
  index: string;
  /** The built page; absent: none. */
  page: BuiltPage | undefined;
  /** Asset requests per rate-limit window per address, a budget of their own; absent: unlimited. */
  assetsPerWindow?: number | undefined;
}

async function pageRoutes(app: FastifyInstance, options: PageOptions): Promise<void> {
  const { log, index, page, assetsPerWindow } = options;
  if (page === undefined) {
    log.warn({ dir: PAGE_DIR }, 'the page for / is not built (npm run build); / answers the JSON index');
  } else {
    // One route for every asset, so they share one per-address budget (as /docs' assets do).
    await countingItself(app, (scope) => {
      scope.get<{ Params: { file: string } }>(
        '/assets/:file',
        { config: { rateLimit: assetsPerWindow === undefined ? false : { max: assetsPerWindow } } },
        (request, reply) => {
          const asset = page.assets.get(`/assets/${request.params.file}`);
          if (asset === undefined) return reply.callNotFound();
          return sendAsset(asset, request, reply);
        },
      );
    });
  }
  // A browser refused by the rate limit reads why and how long to wait (src/http/for-people.ts).
  app.get('/', { config: { pageForPeople: true } }, (request, reply) => {
    reply.header('vary', 'accept');
    if (page !== undefined && wantsHtml(request)) {
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', PAGE_CACHE_CONTROL)
        .header('content-security-policy', PAGE_CONTENT_SECURITY_POLICY)
        .header('x-content-type-options', 'nosniff')
        .send(page.html);
    }
    return reply.type('application/json; charset=utf-8').send(index);
  });
}

/**
 * `GET /`: the page for a browser, the index for anyone else, and the page's assets (counted in a
 * budget of their own, as /docs' are). Without a built page, `/` is the index for everyone and
 * the log says how to build the page.
 */
export const pagePlugin = fp(pageRoutes, { name: 'fairdice-page', fastify: '5.x', encapsulate: true });

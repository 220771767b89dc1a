// Interactive API reference at /docs: Swagger UI served entirely by this process (no CDN, no fonts,
// no telemetry), so the reference works with no internet and its "try it" calls this same server.
// Beside it, at /docs/<name>, the reference itself: docs/<name>.md as rendered by the build
// (src/http/reference.ts), under the strict CSP of the page at `/`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_CONTENT_SECURITY_POLICY } from './for-people.js';
import { countingItself } from './rate-limit.js';
import { type BuiltReference, escapeHtml, referencePages } from './reference.js';

export interface DocsOptions {
  /** Where the page fetches the OpenAPI document from (same origin), e.g. `/openapi.json`. */
  readonly openapiUrl: string;
  /** Path of the page; its assets live under `${routePrefix}/assets/`. Default `/docs`. */
  readonly routePrefix?: string;
  /** The page's `<title>`. */
  readonly title?: string;
  /**
   * Asset requests per rate-limit window per address, counted apart from the API's limit (a page
   * load takes 4, a revalidation answered 304 counts too). Unset: the assets are not limited.
   */
  readonly assetsPerWindow?: number;
  /** The reference served at `${routePrefix}/<name>`; absent: none. */
  readonly reference?: BuiltReference | undefined;
  /** Requests for the reference's pages per rate-limit window per address; unset: not limited. */
  readonly referencePagesPerWindow?: number;
}

/** Asset URLs carry a content hash, so a browser may keep them for a year without revalidating. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The page names the current asset hashes, so it must be fetched again after a deploy. */
export const PAGE_CACHE_CONTROL = 'no-cache';

/**
 * The browser enforces what the tests check: anything not from this origin is refused. Swagger UI
 * sets inline `style` attributes and its CSS carries data: SVG icons, hence those two allowances.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The links above Swagger UI, to the page and the reference, in a style element (this page's CSP
 * allows inline style for Swagger UI already) rather than one more asset to load.
 */
const LINKS_STYLE =
  '.docs-links{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;max-width:1460px;margin:0 auto;' +
  'padding:.75rem 20px;font-family:sans-serif;font-size:14px}.docs-links a{color:#1d4ed8}';

interface DocsAsset {
  readonly fileName: string;
  readonly contentType: string;
  readonly body: Buffer;
  readonly hash: string;
  gzipped?: Buffer;
}

const requireFromHere = createRequire(import.meta.url);

// A source map comment makes devtools fetch a file we do not serve; a 404 would count against the
// caller's rate limit, so the comment is removed instead.
const SOURCE_MAP_COMMENT = /\n?\/[/*]# sourceMappingURL=\S+(?:\s*\*\/)?\s*$/;

function makeAsset(fileName: string, contentType: string, body: Buffer): DocsAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { fileName, contentType, body, hash };
}

function vendorAsset(fileName: string, contentType: string, isText: boolean): DocsAsset {
  const raw = readFileSync(requireFromHere.resolve(`swagger-ui-dist/${fileName}`));
  const body = isText ? Buffer.from(raw.toString('utf8').replace(SOURCE_MAP_COMMENT, '\n')) : raw;
  return makeAsset(fileName, contentType, body);
}

interface VendorAssets {
  readonly bundle: DocsAsset;
  readonly stylesheet: DocsAsset;
  readonly favicon: DocsAsset;
}

// Read once per process, not once per app: tests build many apps and the bundle is ~1.7 MB.
let vendorAssets: VendorAssets | undefined;
function loadVendorAssets(): VendorAssets {
  vendorAssets ??= {
    bundle: vendorAsset('swagger-ui-bundle.js', 'text/javascript; charset=utf-8', true),
    stylesheet: vendorAsset('swagger-ui.css', 'text/css; charset=utf-8', true),
    favicon: vendorAsset('favicon-32x32.png', 'image/png', false),
  };
  return vendorAssets;
}

/**
 * Swagger UI would send "try it" requests to the document's `servers`, which may name another
 * host or port than the one serving the page; pointing it at the page's own origin keeps every
 * request on this server.
 */
function initScript(openapiUrl: string): string {
  return `// Starts Swagger UI on the document served by this same server.
(function () {
  var root = document.getElementById('swagger-ui');
  function fail(text) {
    var message = document.createElement('p');
    message.className = 'docs-load-error';
    message.textContent = text;
    root.appendChild(message);
  }
  fetch(${JSON.stringify(openapiUrl)}, { headers: { accept: 'application/json' } })
    .then(function (response) {
      if (!response.ok) {
        return response.json().then(
          function (body) {
            var detail = body && body.error && body.error.message ? ': ' + body.error.message : '';
            fail('Could not load the API document (HTTP ' + response.status + detail + ')');
          },
          function () { fail('Could not load the API document (HTTP ' + response.status + ')'); }
        );
      }
      return response.json().then(function (spec) {
        spec.servers = [{ url: window.location.origin, description: 'this server' }];
        window.ui = SwaggerUIBundle({
          spec: spec,
          dom_id: '#swagger-ui',
          deepLinking: true,
          tryItOutEnabled: true,
          displayRequestDuration: true,
          validatorUrl: null,
          presets: [SwaggerUIBundle.presets.apis],
          layout: 'BaseLayout'
        });
      });
    })
    .catch(function () { fail('Could not load the API document (network error)'); });
})();
`;
}

function acceptsGzip(request: FastifyRequest): boolean {
  const accepted = request.headers['accept-encoding'];
  return typeof accepted === 'string' && /\bgzip\b/.test(accepted);
}

/** Whether `If-None-Match` names `etag` (or is `*`): the browser's copy is current. */
function matches(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((tag) => {
    const value = tag.trim().replace(/^W\//, '');
    return value === '*' || value === etag;
  });
}

function sendAsset(asset: DocsAsset, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // PNGs are already compressed; text shrinks to about a third.
  const gzip = asset.contentType.startsWith('text/') && acceptsGzip(request);
  // One tag per representation: the gzipped bytes differ from the plain ones.
  const etag = gzip ? `"${asset.hash}-gzip"` : `"${asset.hash}"`;
  reply
    .header('content-type', asset.contentType)
    .header('cache-control', ASSET_CACHE_CONTROL)
    .header('etag', etag)
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  if (matches(request, etag)) return reply.code(304).send();
  if (gzip) {
    asset.gzipped ??= gzipSync(asset.body);
    return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  }
  return reply.send(asset.body);
}

/**
 * Registers `GET ${routePrefix}` (the page, rate-limited like any route) and its hashed assets
 * (cached for a year, answering `If-None-Match` with 304, and limited apart from the API by
 * `assetsPerWindow`). One page load therefore costs the caller two API requests (the page and the
 * OpenAPI document it fetches) and four asset requests. With `reference`, each doc is a page at
 * `${routePrefix}/<name>`, counted in a budget of its own (`referencePagesPerWindow`), its
 * stylesheet one more asset; both pages link each other.
 */
export const docsPlugin: FastifyPluginAsync<DocsOptions> = async (app, options) => {
  const routePrefix = options.routePrefix ?? '/docs';
  const title = options.title ?? 'API reference';
  const { bundle, stylesheet, favicon } = loadVendorAssets();
  const init = makeAsset(
    'docs-init.js',
    'text/javascript; charset=utf-8',
    Buffer.from(initScript(options.openapiUrl)),
  );
  const { reference } = options;
  const referenceStyle =
    reference === undefined
      ? undefined
      : makeAsset('reference.css', 'text/css; charset=utf-8', reference.stylesheet);
  const assets = [bundle, stylesheet, favicon, init, ...(referenceStyle ? [referenceStyle] : [])];
  const assetUrl = (asset: DocsAsset): string => `${routePrefix}/assets/${asset.hash}/${asset.fileName}`;

  const byPath = new Map(assets.map((asset) => [`${asset.hash}/${asset.fileName}`, asset]));
  // One route for every asset, so they share one per-address budget.
  await countingItself(app, (scope) => {
    scope.get<{ Params: { hash: string; file: string } }>(
      `${routePrefix}/assets/:hash/:file`,
      {
        config: {
          rateLimit: options.assetsPerWindow === undefined ? false : { max: options.assetsPerWindow },
        },
      },
      (request, reply) => {
        const asset = byPath.get(`${request.params.hash}/${request.params.file}`);
        if (asset === undefined) return reply.callNotFound();
        return sendAsset(asset, request, reply);
      },
    );
  });

  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${assetUrl(favicon)}">
<link rel="stylesheet" href="${assetUrl(stylesheet)}">
<style>${LINKS_STYLE}</style>
</head>
<body>
<nav class="docs-links" aria-label="fairdice">
<a href="/">Roll dice</a>
${(reference?.docs ?? [])
  .filter((doc) => doc.group === 'use')
  .map((doc) => `<a href="${routePrefix}/${doc.name}">${escapeHtml(doc.title)}</a>`)
  .join('\n')}
</nav>
<div id="swagger-ui"></div>
<script src="${assetUrl(bundle)}"></script>
<script src="${assetUrl(init)}"></script>
</body>
</html>
`;
  const servePage = (_request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', PAGE_CACHE_CONTROL)
      .header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .send(page);
  // Only the bare path: a second route for `${routePrefix}/` would collide in an app that sets
  // ignoreTrailingSlash, and fastify offers no typed way to ask whether it does. A browser
  // refused by the rate limit reads a page saying how long to wait (src/http/for-people.ts).
  app.get(routePrefix, { config: { pageForPeople: true } }, servePage);

  if (reference === undefined || referenceStyle === undefined) return;
  const pages = referencePages(reference, { docsPath: routePrefix, stylesheetUrl: assetUrl(referenceStyle) });
  // One route for every doc, so they share one per-address budget, apart from the API's.
  await countingItself(app, (scope) => {
    scope.get<{ Params: { name: string } }>(
      `${routePrefix}/:name`,
      {
        config: {
          pageForPeople: true,
          rateLimit:
            options.referencePagesPerWindow === undefined ? false : { max: options.referencePagesPerWindow },
        },
      },
      (request, reply) => {
        const page = pages.get(request.params.name);
        if (page === undefined) return reply.callNotFound();
        return reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', PAGE_CACHE_CONTROL)
          .header('content-security-policy', PAGE_CONTENT_SECURITY_POLICY)
          .header('x-content-type-options', 'nosniff')
          .send(page);
      },
    );
  });
};

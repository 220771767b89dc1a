// What a person in a browser is answered, beside what a program is: whether a request asks for
// HTML, and the page a browser gets instead of the JSON envelope when the rate limit refuses a
// page route (`/`, `/docs`, `/docs/<name>`), saying in words how long to wait (docs/api.md, "The
// page at /"). A program asking the same routes (no text/html in Accept) still gets the envelope.
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route is a page people open in a browser: a 429 asked with text/html in Accept is
     * answered as an HTML page that says how long to wait (src/http/errors.ts), not the envelope.
     */
    pageForPeople?: boolean;
  }
}

/** Whether the request names text/html among what it accepts (with a non-zero quality). */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (typeof accept !== 'string') return false;
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.trim().split(';');
    if (type?.trim().toLowerCase() !== 'text/html') return false;
    const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

/** Whether an error answer to this request is for a person: a page route, asked by a browser. */
export const answersPeople = (request: FastifyRequest): boolean =>
  request.routeOptions.config?.pageForPeople === true && wantsHtml(request);

/**
 * The pages for people (the page at `/` and the reference at /docs/<name>): no inline script or
 * style, no other host. The page's histogram is SVG drawn by its script (attributes, not style),
 * the icon an empty data: URL so the browser asks for no favicon.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The refusal page loads nothing at all: no script, no style, no image. */
export const REFUSAL_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `1 second`, `42 seconds`, `2 minutes and 5 seconds`. */
export function waitInWords(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  const unit = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  if (whole < 60) return unit(whole, 'second');
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  return rest === 0 ? unit(minutes, 'minute') : `${unit(minutes, 'minute')} and ${unit(rest, 'second')}`;
}

/** The HTML of a 429 for a person: what happened, how long to wait, and what then. */
export function refusalPage(retryAfterSeconds: number): string {
  const wait = waitInWords(retryAfterSeconds);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Too many requests: wait ${wait}</title>
<link rel="icon" href="data:,">
</head>
<body>
<main>
<h1>Too many requests from your address</h1>
<p>This fairdice service answers a set number of requests from each address in a given time, and yours has had them all. Please wait <strong>${wait}</strong>, then reload this page.</p>
<p>Everyone behind the same home or office router shares one address, and so shares the limit.</p>
</main>
</body>
</html>
`;
}

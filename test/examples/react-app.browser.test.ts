// The example front end (examples/react-app) as a user meets it: built with `vite build` (after
// its own type-check), served from one origin, calling a real fairdice server on another, driven
// in headless Debian Chromium. It rolls and draws the roll from the client's description (each
// die marked, groups, the text form), shows a typed invalid_formula error and a 429 with its
// retry time, and logs no console error of its own.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { listen } from '../support/app.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';
import { readRollText } from '../support/roll-text.js';

const run = promisify(execFile);
const appDir = fileURLToPath(new URL('../../examples/react-app/', import.meta.url));
const distDir = join(appDir, 'dist');

/** Small, so the test reaches the 429 in a few clicks. */
const RATE_LIMIT_MAX = 8;

const runs = chromiumFor("the example app's browser test");

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Serves the built app from `dir` on a loopback port, as any static host would. */
async function serveStatic(dir: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dir)) {
      response.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) =>
        response
          .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
          .end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe.skipIf(!runs)('examples/react-app in headless Chromium', () => {
  let api: FastifyInstance;
  let apiOrigin: string;
  let site: { server: Server; origin: string };
  let browser: Chromium;
  let screenshotDir: string;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: { text: string; url: string }[] = [];
  const failed: string[] = [];

  beforeAll(async () => {
    // The example's own build: `tsc` over its sources, then `vite build`.
    await run('npm', ['run', 'build'], { cwd: appDir, timeout: 180_000 });
    api = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: RATE_LIMIT_MAX }));
    apiOrigin = await listen(api);
    site = await serveStatic(distDir);
    screenshotDir = await mkdtemp(join(tmpdir(), 'fairdice-example-'));
    browser = await launchChromium({ width: 1000, height: 700 });
    context = browser.context;
    context.on('requestfailed', (request) => {
      failed.push(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`);
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error')
        consoleErrors.push({ text: message.text(), url: message.location().url });
    });
    page.on('pageerror', (error) => {
      consoleErrors.push({ text: `page error: ${error.message}`, url: '' });
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await new Promise((resolve) => site?.server.close(resolve));
  });

  /** Console errors other than Chromium's notice of a refused call to the API (400 or 429). */
  const ownConsoleErrors = () =>
    consoleErrors.filter(
      ({ text, url }) =>
        !(
          url.startsWith(`${apiOrigin}/trpc/`) &&
          /^Failed to load resource: the server responded with a status of (400|429) /.test(text)
        ),
    );

  /** Types `formula`, presses Roll, and waits until the app has shown the answer. */
  async function roll(formula: string): Promise<void> {
    const answered = page.waitForResponse((response) =>
      response.url().startsWith(`${apiOrigin}/trpc/rollWith`),
    );
    await page.locator('input[name="formula"]').fill(formula);
    await page.locator('button[type="submit"]').click();
    await answered;
    await page.locator('button[type="submit"]:enabled').waitFor();
    await page.locator('[data-testid="result"], [data-testid="error"]').first().waitFor();
  }

  it('loads from its own origin and asks the service on another for its health', async () => {
    expect(new URL(site.origin).origin).not.toBe(new URL(apiOrigin).origin);
    const response = await page.goto(`${site.origin}/?api=${encodeURIComponent(apiOrigin)}`);
    expect(response?.status()).toBe(200);
    await expect
      .poll(() => page.getByTestId('service').textContent())
      .toMatch(/^Service \d+\.\d+\.\d+ is up\.$/);
  });

  it('may read the rate-limit headers of the service on the other origin', async () => {
    const seen = await page.evaluate(async (url) => {
      const response = await fetch(url);
      return ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) =>
        response.headers.get(name),
      );
    }, `${apiOrigin}/v1/health`);
    expect(seen[0]).toBe(String(RATE_LIMIT_MAX));
    expect(Number(seen[1])).toBeLessThan(RATE_LIMIT_MAX);
    expect(Number(seen[2])).toBeGreaterThan(0);
  });

  it('rolls a formula and marks each die kept or dropped', async () => {
    await roll('4d6kh3+2');
    const dice = page.getByTestId('die');
    await expect.poll(() => dice.count()).toBe(4);
    const kept = await page.locator('[data-testid="die"][data-kept="true"]').allTextContents();
    const dropped = page.locator('[data-testid="die"][data-kept="false"]');
    expect(kept).toHaveLength(3);
    expect(await dropped.count()).toBe(1);
    // The dropped die is the lowest and is struck through; the total counts only the kept ones.
    const droppedFace = Number(await dropped.textContent());
    expect(Math.min(...kept.map(Number))).toBeGreaterThanOrEqual(droppedFace);
    expect(
      await dropped.evaluate(
        (element) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { textDecorationLine: string } }
          ).getComputedStyle(element).textDecorationLine,
      ),
    ).toBe('line-through');
    const total = Number(await page.getByTestId('total').textContent());
    expect(total).toBe(kept.map(Number).reduce((sum, face) => sum + face, 0) + 2);
    const screenshot = join(screenshotDir, 'react-app-roll.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`examples/react-app screenshot (a roll): ${screenshot}`);
    expect(ownConsoleErrors()).toEqual([]);
  });

  it('shows a refused formula with its API code and message', async () => {
    await roll('2d');
    const error = page.getByTestId('error');
    await expect.poll(() => error.getAttribute('data-code')).toBe('invalid_formula');
    expect(await error.textContent()).toMatch(/^invalid_formula formula, column \d+: /);
    expect(await page.getByTestId('result').count()).toBe(0);
    expect(ownConsoleErrors()).toEqual([]);
  });

  it('draws a success pool and a group from the description: marks, dropped item, a text form that adds up', async () => {
    await roll('6d10>=8f1');
    const text = (await page.getByTestId('roll-text').textContent()) ?? '';
    const total = Number(await page.getByTestId('total').textContent());
    expect(readRollText(text).rounded).toBe(total);
    const marks = await page.getByTestId('die').evaluateAll((dice) => dice.map((die) => die.className));
    expect(marks).toHaveLength(6);
    const successes = marks.filter((c) => c.includes('success')).length;
    const failures = marks.filter((c) => c.includes('failure')).length;
    expect(successes - failures).toBe(total);
    expect(text).toMatch(/ = \d+ successe?s? - \d+ failures? = -?\d+$/);

    await roll('{1d8!,1d6!}kh1+2');
    const items = await page
      .locator('.item')
      .evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.kept));
    expect(items.sort()).toEqual(['false', 'true']);
    const line = (await page.getByTestId('roll-text').textContent()) ?? '';
    expect(line).toMatch(/^\{1d8! \[[^\]]+\]( dropped)?, 1d6! \[[^\]]+\]( dropped)?\}kh1 \+ 2 = \d+$/);
    expect(line).toContain(' dropped');
    expect(readRollText(line).rounded).toBe(Number(await page.getByTestId('total').textContent()));
    expect(ownConsoleErrors()).toEqual([]);
  });

  it('shows a 429 with the seconds to wait, read from the error', async () => {
    const error = page.getByTestId('error');
    for (let attempt = 0; attempt < RATE_LIMIT_MAX; attempt++) {
      await roll('1d20');
      if ((await error.count()) > 0 && (await error.getAttribute('data-code')) === 'rate_limited') break;
    }
    expect(await error.getAttribute('data-code')).toBe('rate_limited');
    const retry = page.getByTestId('retry-after');
    const seconds = Number(await retry.getAttribute('data-seconds'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(await retry.textContent()).toBe(` Try again in ${seconds} s.`);

    const screenshot = join(screenshotDir, 'react-app-429.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`examples/react-app screenshot (a 429): ${screenshot}`);

    expect(ownConsoleErrors()).toEqual([]);
    expect(failed).toEqual([]);
  });
});

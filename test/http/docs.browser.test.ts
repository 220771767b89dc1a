import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { LIMITS } from '../../src/limits.js';
import { listen } from '../support/app.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';

// The service's defaults: the page load is proven to fit the limit every caller gets.
const config = defaultConfig({ logLevel: 'silent' });

interface OpenApiOperation {
  readonly parameters?: readonly { readonly name: string }[];
  readonly requestBody?: unknown;
  readonly responses: Record<string, unknown>;
}
interface OpenApiDocument {
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
}

/** Swagger UI's block for one operation, found by its method and exact path. */
function operationBlock(page: Page, method: string, path: string): Locator {
  return page.locator(`.opblock-${method}`, {
    has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
  });
}

const runs = chromiumFor('the /docs browser test');

describe.skipIf(!runs)('/docs in headless Chromium', () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Chromium;
  let screenshotDir: string;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const failed: string[] = [];
  const consoleErrors: string[] = [];
  const limitedResponses: { url: string; remaining: number }[] = [];
  let openapi: OpenApiDocument;
  const foreignRequests = (): string[] =>
    requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));

  beforeAll(async () => {
    app = await buildApp(config);
    origin = await listen(app);
    screenshotDir = await mkdtemp(join(tmpdir(), 'fairdice-docs-'));
    browser = await launchChromium({ width: 1280, height: 1000 });
    context = browser.context;
    context.on('request', (request) => {
      requested.push(request.url());
    });
    context.on('requestfailed', (request) => {
      failed.push(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`);
    });
    context.on('response', (response) => {
      const header = response.headers()['x-ratelimit-remaining'];
      if (header !== undefined) {
        limitedResponses.push({ url: response.url(), remaining: Number(header) });
      }
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => {
      consoleErrors.push(`page error: ${error.message}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('loads the page and the document, asking nothing of any other host', async () => {
    const documentResponse = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/openapi.json',
    );
    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    openapi = (await (await documentResponse).json()) as OpenApiDocument;
    await page.locator('.opblock').first().waitFor();
    await page.waitForLoadState('networkidle');

    const summaries = await page.locator('.opblock-summary-path').allTextContents();
    expect(summaries.map((text) => text.trim())).toEqual(
      expect.arrayContaining(['/v1/roll', '/v1/roll/batch']),
    );

    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreignRequests()).toEqual([]);
    // The page and the document count against the API's limit; the four assets against their own.
    const isAsset = (entry: { url: string }) => new URL(entry.url).pathname.startsWith('/docs/assets/');
    const api = limitedResponses.filter((entry) => !isAsset(entry));
    expect(api.map((entry) => new URL(entry.url).pathname)).toEqual(['/docs', '/openapi.json']);
    expect(api.map((entry) => entry.remaining)).toEqual([config.rateLimitMax - 1, config.rateLimitMax - 2]);
    const assets = limitedResponses.filter(isAsset).map((entry) => entry.remaining);
    expect(assets.sort((a, b) => b - a)).toEqual([1, 2, 3, 4].map((n) => LIMITS.docsAssetsPerWindow - n));
  });

  it('renders every operation of the document with its parameters, body and responses', async () => {
    const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(2);
    for (const { path, method, operation } of operations) {
      const block = operationBlock(page, method, path);
      await expect.poll(() => block.count(), { message: `${method} ${path}` }).toBe(1);
      await block.locator('.opblock-summary').click();
      for (const parameter of operation.parameters ?? []) {
        await block.locator(`tr[data-param-name="${parameter.name}"]`).waitFor();
      }
      if (operation.requestBody) {
        await block.locator('.opblock-section-request-body').waitFor();
      }
      const codes = Object.keys(operation.responses);
      expect(codes.length).toBeGreaterThan(0);
      for (const code of codes) {
        await block.locator(`.responses-table tr.response[data-code="${code}"]`).waitFor();
      }
      // Collapse again so the next test starts from the page as a reader first sees it.
      await block.locator('.opblock-summary').click();
      await block.locator('.opblock-body').waitFor({ state: 'detached' });
    }
    expect(consoleErrors).toEqual([]);
  });

  /** Presses Execute on an expanded operation; returns the answer as the browser got it and as shown. */
  async function execute(
    block: Locator,
    method: string,
  ): Promise<{ status: number; body: unknown; shown: unknown }> {
    const answer = page.waitForResponse(
      (response) => response.request().method() === method && new URL(response.url()).pathname === '/v1/roll',
    );
    await block.locator('button.execute').click();
    const answered = await answer;
    expect(new URL(answered.url()).origin).toBe(origin);
    const liveResponse = block.locator('.live-responses-table .response');
    await liveResponse.waitFor();
    expect((await liveResponse.locator('.response-col_status').textContent())?.trim()).toBe(
      String(answered.status()),
    );
    const shownText = await liveResponse.locator('.response-col_description pre').first().textContent();
    return { status: answered.status(), body: await answered.json(), shown: JSON.parse(shownText ?? '') };
  }

  it('rolls dice from the page with "try it" on GET /v1/roll and shows the answer', async () => {
    const block = operationBlock(page, 'get', '/v1/roll');
    await block.locator('.opblock-summary').click();
    // A `+` typed into the form must reach the server as a plus, not as a space.
    await block.locator('tr[data-param-name="formula"] input').fill('1d20+3');

    const { status, body, shown } = await execute(block, 'GET');
    expect(status).toBe(200);
    const roll = body as { formula?: unknown; total?: unknown };
    expect(roll.formula).toBe('1d20+3');
    expect(typeof roll.total).toBe('number');
    expect(shown).toEqual(body);

    const screenshot = join(screenshotDir, 'docs.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`/docs screenshot: ${screenshot}`);

    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreignRequests()).toEqual([]);
  });

  it('rolls with the example JSON body of POST /v1/roll as the form offers it', async () => {
    const block = operationBlock(page, 'post', '/v1/roll');
    await block.locator('.opblock-summary').click();
    await block.locator('.opblock-section-request-body textarea').waitFor();

    const { status, body, shown } = await execute(block, 'POST');
    expect(status).toBe(200);
    expect(typeof (body as { total?: unknown }).total).toBe('number');
    expect(shown).toEqual(body);

    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreignRequests()).toEqual([]);
  });
});

// What the table's browser tests (test/http/page-table*.browser.test.ts) stand on: a real server
// with its SQLite store in a fresh DATA_DIR, its Trust at hand so a test can write to the store
// as the service does, and headless Chromium whose tabs report their console errors.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import type { Receipt } from '../../src/trust/receipt.js';
import { Trust } from '../../src/trust/service.js';
import { listen } from './app.js';
import { type Chromium, launchChromium } from './chromium.js';
import { openPage } from './page-rolls.js';

export interface TablePages {
  /** The server's DATA_DIR, where its SQLite file is. */
  readonly dataDir: string;
  /** The server's receipts and tables; set before the suite's tests run. */
  trust: Trust;
  /** `http://127.0.0.1:<port>`; set before the suite's tests run. */
  origin: string;
  /** The browser's context; set before the suite's tests run. */
  context: BrowserContext;
  /** Console errors and uncaught exceptions of every tab opened by openPage. */
  readonly consoleErrors: string[];
  /** A new 1280 × 900 tab at `url`, ready. */
  openPage(url: string): Promise<Page>;
}

/**
 * Starts the server and Chromium before the tests of the `describe` it is called in, and stops
 * them after. `name` names the temporary DATA_DIR.
 */
export function tablePages(name: string): TablePages {
  const dataDir = mkdtempSync(join(tmpdir(), `fairdice-${name}-`));
  const config = defaultConfig({ logLevel: 'silent', rateLimitMax: 10_000, dataDir });
  let app: FastifyInstance | undefined;
  let browser: Chromium | undefined;
  const consoleErrors: string[] = [];
  const pages = {
    dataDir,
    consoleErrors,
    openPage: (url: string) => openPage(pages.context, url, { width: 1280, height: 900 }, consoleErrors),
  } as TablePages;
  beforeAll(async () => {
    pages.trust = await Trust.fromConfig(config, { warn() {}, info() {} });
    app = await buildApp(config, { trust: pages.trust });
    pages.origin = await listen(app);
    browser = await launchChromium();
    pages.context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await pages.trust?.close();
  });
  return pages;
}

/** Rolls `formula` with the page's Roll button at its table; the receipt the service answered. */
export async function rollOnPage(page: Page, formula: string): Promise<Receipt> {
  await page.locator('#formula').fill(formula);
  const answer = page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/v1/roll',
  );
  await page.locator('#roll-button').click();
  const body = (await (await answer).json()) as { receipt?: Receipt };
  expect(body.receipt?.seq).toBeDefined();
  return body.receipt!;
}

// The reference at /docs/<name> in headless Chromium: every doc loads from this server alone
// under its CSP with no console error and its headings present, a link between docs leads to
// the other page's heading, it fits a 390 px phone, and axe-core finds no serious violation.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_DOCS } from '../../scripts/reference.js';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { listen } from '../support/app.js';
import { seriousViolations } from '../support/axe.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';

const runs = chromiumFor('the reference browser test');

describe.skipIf(!runs)('the reference at /docs/<name>, in headless Chromium', () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Chromium;
  let screenshotDir: string;
  const requested: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // The service's defaults: reading the whole reference fits the budget of its pages.
    app = await buildApp(defaultConfig({ logLevel: 'silent' }));
    origin = await listen(app);
    screenshotDir = await mkdtemp(join(tmpdir(), 'fairdice-reference-'));
    browser = await launchChromium({ width: 390, height: 844 });
    browser.context.on('request', (request) => {
      requested.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows every doc with its headings, at 390 px with nothing overflowing, from this server alone', {
    timeout: 120_000,
  }, async () => {
    const page = await browser.context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    for (const { name } of REFERENCE_DOCS) {
      const answer = await page.goto(`${origin}/docs/${name}`);
      expect(answer?.status(), name).toBe(200);
      expect(await page.locator('article h1').count(), name).toBe(1);
      expect(await page.locator('article h2').count(), name).toBeGreaterThan(0);
      // Styled by its stylesheet (the CSP lets it load): the article is a card.
      expect(
        await page.locator('article').evaluate((node) => getComputedStyle(node).borderTopStyle),
        name,
      ).toBe('solid');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name}: horizontal overflow at 390 px`).toBeLessThanOrEqual(0);
    }
    await page.goto(`${origin}/docs/language`);
    await page.screenshot({ path: join(screenshotDir, 'language-390.png') });
    expect(await seriousViolations(page)).toEqual([]);

    // A link to another doc's heading leads there.
    const link = page.locator('article a[href^="api#"]').first();
    const anchor = (await link.getAttribute('href'))!.split('#')[1]!;
    await link.click();
    await page.waitForURL(`${origin}/docs/api#${anchor}`);
    expect(await page.locator(`[id="${anchor}"]`).isVisible()).toBe(true);
    expect(await page.locator('a[aria-current="page"]').textContent()).toBe(
      await page.locator('article h1').textContent(),
    );
    console.log(`reference screenshot: ${screenshotDir}`);
    await page.close();
    expect(consoleErrors).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
  });
});

// The page at `/` when the rate limit refuses, in headless Chromium: the refused roll says so in
// plain words and counts down the seconds of `retry-after` with the Roll button off; and a
// browser opening `/` or `/docs` while refused reads a page saying how long to wait, not JSON.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { listen } from '../support/app.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';

const runs = chromiumFor('the page rate-limit browser test');

describe.skipIf(!runs)('the page at / refused by the rate limit, in headless Chromium', () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Chromium;
  let screenshotDir: string;

  beforeAll(async () => {
    // Four requests a window: the page load takes 2 (the page, /openapi.json), a first roll 2.
    app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 4 }));
    origin = await listen(app);
    screenshotDir = await mkdtemp(join(tmpdir(), 'fairdice-limit-'));
    browser = await launchChromium({ width: 390, height: 844 });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('counts down the wait on the page, then a browser opening / or /docs reads how long to wait', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${origin}/`);
    await page.locator('body[data-ready="true"]').waitFor();
    const refused = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/v1/roll' && response.status() === 429,
    );
    // Rolls until refused (bounded: the fourth request of the window is the last one answered).
    for (let attempt = 1; attempt <= 4; attempt++) {
      await page.locator('#formula').fill(`${attempt}d6`);
      await page.locator('#roll-button').click();
      await page.waitForFunction(
        (shown) =>
          document.body.dataset.rolls === String(shown) ||
          document.getElementById('roll-wait')?.hidden === false,
        attempt,
      );
      if (await page.locator('#roll-wait').isVisible()) break;
    }
    const retryAfter = Number((await refused).headers()['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#roll-wait').isVisible()).toBe(true);
    expect(await page.locator('#roll-failure').textContent()).toMatch(/^Too many requests from your address/);
    const shown = Number(await page.locator('#roll-wait').getAttribute('data-seconds'));
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(retryAfter);
    expect(await page.locator('#roll-wait').textContent()).toBe(
      `You can roll again in ${shown} second${shown === 1 ? '' : 's'}.`,
    );
    expect(await page.locator('#roll-button').isDisabled()).toBe(true);
    await page.screenshot({ path: join(screenshotDir, 'roll-refused-390.png'), fullPage: true });
    // It counts down.
    await expect
      .poll(async () => Number(await page.locator('#roll-wait').getAttribute('data-seconds')), {
        timeout: 5000,
      })
      .toBeLessThan(shown);

    for (const path of ['/', '/docs']) {
      const other = await browser.context.newPage();
      const answer = await other.goto(`${origin}${path}`);
      expect(answer?.status(), path).toBe(429);
      expect(answer?.headers()['content-type'], path).toBe('text/html; charset=utf-8');
      expect(await other.locator('h1').textContent(), path).toBe('Too many requests from your address');
      expect(await other.locator('main').textContent(), path).toMatch(
        /Please wait \d+ seconds?|Please wait 1 minute/,
      );
      await other.screenshot({ path: join(screenshotDir, `refused${path.replace(/\//g, '-')}-390.png`) });
      await other.close();
    }
    console.log(`rate-limit screenshots: ${screenshotDir}`);
    await page.close();
  });
});

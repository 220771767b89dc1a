// Waiting for the page at `/` to show a roll in full: after its dice and its odds (asked of
// /v1/stats, or known already and asked for nothing), the page counts the roll in
// `document.body.dataset.rolls` (page/main.ts). A test waits on that, never on a request that a
// cached answer may spare.
import type { BrowserContext, Page } from 'playwright-core';

/** How many rolls the page has shown in full so far. */
export const rollsShown = (page: Page): Promise<number> =>
  page.evaluate(() => Number(document.body.dataset.rolls ?? '0'));

/** Runs `act` (which starts a roll) and resolves once the page has shown that roll in full. */
export async function showingRoll(page: Page, act: () => Promise<void>): Promise<void> {
  const before = await rollsShown(page);
  await act();
  await page.locator(`body[data-rolls="${before + 1}"]`).waitFor();
}

/**
 * Opens `url` in a new page of `context` once the page has read what the server offers
 * (`body[data-ready]`); every console error and page error goes to `errors`, which a test holds empty.
 */
export async function openReadyPage(context: BrowserContext, url: string, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => {
    errors.push(`page error: ${error.message}`);
  });
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

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
 * A new tab of `context` at `width` × `height` on the page at `url`, ready (its features read);
 * its console errors and uncaught exceptions are pushed to `errors`.
 */
export async function openPage(
  context: BrowserContext,
  url: string,
  { width, height }: { width: number; height: number },
  errors: string[],
): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

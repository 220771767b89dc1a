/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page at `/` in a real browser (Debian's Chromium, headless) against a real server: the dice
// shown are the dice answered, a bad formula shows the API's own message before any request, the
// odds and the table when the server offers them, axe-core finds nothing serious, and nothing is
// asked of any other host.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { listen } from '../support/app.js';
import { seriousViolations } from '../support/axe.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';
import { showingRoll } from '../support/page-rolls.js';

const config = defaultConfig({ logLevel: 'silent', rateLimitMax: 10_000 });

interface Group {
  results: number[];
  kept: number[];
  keptFlags: boolean[];
  throws?: { die: number; kind: string; value: number }[];
  compounded?: true;
}
interface Roll {
  formula: string;
  total: number;
  dice: Group[];
}

const runs = chromiumFor('the page browser test');

describe.skipIf(!runs)('the page at / in headless Chromium', () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Chromium;
  let screenshotDir: string;
  let context: BrowserContext;
  let page: Page;
  let paths: Record<string, unknown>;
  const requested: string[] = [];
  const failed: string[] = [];
  const consoleErrors: string[] = [];
  const foreignRequests = (): string[] =>
    requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));

  async function openPage(): Promise<Page> {
    const opened = await context.newPage();
    opened.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    opened.on('pageerror', (error) => {
      consoleErrors.push(`page error: ${error.message}`);
    });
    return opened;
  }

  beforeAll(async () => {
    app = await buildApp(config);
    origin = await listen(app);
    paths = ((await (await fetch(`${origin}/openapi.json`)).json()) as { paths: Record<string, unknown> })
      .paths;
    screenshotDir = await mkdtemp(join(tmpdir(), 'fairdice-page-'));
    browser = await launchChromium();
    context = browser.context;
    context.on('request', (request) => {
      requested.push(request.url());
    });
    context.on('requestfailed', (request) => {
      failed.push(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`);
    });
    page = await openPage();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Rolls what the form holds (with Enter, from the keyboard); resolves with the server's answer. */
  async function rollFromForm(target: Page): Promise<Roll> {
    const answer = target.waitForResponse(
      (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/v1/roll',
    );
    // The roll's odds come after it: waiting until they are shown too keeps one address's odds
    // computations from queueing up behind each other (past a few, /v1/stats answers 429).
    await showingRoll(target, () => target.locator('#formula').press('Enter'));
    const response = await answer;
    expect(response.status()).toBe(200);
    const roll = (await response.json()) as Roll;
    expect(await target.locator('#total').textContent()).toBe(String(roll.total));
    return roll;
  }

  /** The dice as the page shows them: per group, each throw's chip, its value and state, in order. */
  async function shownDice(target: Page): Promise<{ value: number; state: string; kind: string }[][]> {
    return target.locator('#dice .term').evaluateAll((terms) =>
      terms
        .sort((a, b) => Number((a as HTMLElement).dataset.group) - Number((b as HTMLElement).dataset.group))
        .map((term) =>
          [...term.querySelectorAll<HTMLElement>('.chip')].map((chip) => ({
            value: Number(chip.dataset.value),
            state: chip.dataset.state ?? '',
            kind: chip.dataset.kind ?? '',
          })),
        ),
    );
  }

  /** What the answer says each chip must be: each throw's value, and kept, dropped or rerolled away. */
  function expectedDice(roll: Roll): { value: number; state: string }[][] {
    return roll.dice.map((group) => {
      if (group.throws === undefined) {
        return group.results.map((value, index) => ({
          value,
          state: group.keptFlags[index] ? 'kept' : 'dropped',
        }));
      }
      const throws = group.throws;
      return throws.map((thrown, index) => {
        const next = throws[index + 1];
        if (next !== undefined && next.die === thrown.die && next.kind === 'reroll') {
          return { value: thrown.value, state: 'rerolled' };
        }
        // With `!!` a die's kept flag is at its own index; else at the throw's.
        const kept = group.compounded ? group.keptFlags[thrown.die] : group.keptFlags[index];
        return { value: thrown.value, state: kept ? 'kept' : 'dropped' };
      });
    });
  }

  it('loads from this server only, and serves the page (not the index) to the browser', async () => {
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await page.locator('body[data-ready="true"]').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.locator('#odds').isHidden()).toBe(!('/v1/stats' in paths));
    expect(await page.locator('#table').isHidden()).toBe(!('/v1/tables' in paths));
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreignRequests()).toEqual([]);
  });

  it('rolls from the keyboard and shows exactly the dice and total of the answer', async () => {
    // Tab from the top of the page to the formula box: keyboard only.
    for (let presses = 0; presses < 10; presses++) {
      if ((await page.evaluate(() => document.activeElement?.id)) === 'formula') break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('formula');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('4d6kh3+2');
    await page.locator('#bonuses').fill('1, 1d4');
    const roll = await rollFromForm(page);
    expect(roll.dice.length).toBe(2);
    expect(roll.dice[0]?.results.length).toBe(4);
    const shown = await shownDice(page);
    expect(shown.map((group) => group.map(({ value, state }) => ({ value, state })))).toEqual(
      expectedDice(roll),
    );
    expect(shown[0]?.filter((chip) => chip.state === 'dropped').length).toBe(1);
    expect(await page.locator('#total').getAttribute('aria-live')).toBe('polite');

    // Advantage on a d20: two dice, one kept.
    await page.locator('#formula').fill('1d20');
    await page.locator('#bonuses').fill('');
    await page.locator('input[name="advantage"][value="advantage"]').check();
    const advantaged = await rollFromForm(page);
    expect(advantaged.dice[0]?.results.length).toBe(2);
    expect((await shownDice(page)).map((g) => g.map(({ value, state }) => ({ value, state })))).toEqual(
      expectedDice(advantaged),
    );
    await page.locator('input[name="advantage"][value="normal"]').check();

    // Rerolls and explosions: every throw is a chip, each die's chain in order.
    await page.locator('#formula').fill('12d6r1!');
    const chained = await rollFromForm(page);
    const chips = await shownDice(page);
    expect(chips.map((g) => g.map(({ value, state }) => ({ value, state })))).toEqual(expectedDice(chained));
    const throws = chained.dice[0]?.throws;
    if (throws) {
      // Where the server records throws, their kinds are shown too.
      expect(chips[0]?.map((chip) => chip.kind)).toEqual(throws.map((thrown) => thrown.kind));
    }

    // Unique rerolls are shown as rerolls, each throw a chip in order.
    await page.locator('#formula').fill('5d6u');
    const unique = await rollFromForm(page);
    const uniqueChips = await shownDice(page);
    expect(uniqueChips[0]?.map((chip) => chip.kind)).toEqual(
      unique.dice[0]?.throws?.map((thrown) => thrown.kind),
    );
    expect(uniqueChips.map((g) => g.map(({ value, state }) => ({ value, state })))).toEqual(
      expectedDice(unique),
    );

    if ('/v1/stats' in paths) {
      // /v1/stats refuses unique rerolls (docs/stats.md): the page's own engine refuses them in
      // the same words, without asking the service (no refused request in the console).
      await expect
        .poll(() => page.locator('#odds-failure').textContent())
        .toMatch(/are not computed by \/v1\/stats/);
      expect(consoleErrors).toEqual([]);
    }

    // Matching sets: the values shown by two or more dice, as the answer lists them.
    await page.locator('#formula').fill('8d6m');
    const matched = await rollFromForm(page);
    const matches = (matched.dice[0] as { matches?: number[] }).matches;
    expect(matches).toBeDefined();
    const matchLine = await page.locator('#dice .matches').textContent();
    expect(matchLine).toBe(
      matches!.length === 0 ? 'no matching set' : `matching sets of ${matches!.join(', ')}`,
    );
    if ('/v1/stats' in paths) {
      // `m` leaves the total alone: its odds are those of 8d6.
      await expect.poll(() => page.locator('#odds-body').isHidden()).toBe(false);
      expect(await page.locator('#odds-failure').textContent()).toBe('');
    }
    expect(consoleErrors).toEqual([]);
  });

  it('explains an invalid formula as it is typed, with the API message, and sends nothing', async () => {
    const before = requested.length;
    await page.locator('#formula').fill('');
    await page.locator('#formula').pressSequentially('2d6+');
    const api = (await (await fetch(`${origin}/v1/roll?formula=${encodeURIComponent('2d6+')}`)).json()) as {
      error: { message: string };
    };
    expect(api.error.message).toMatch(/^formula, column 5: /);
    await expect.poll(() => page.locator('#formula-error').textContent()).toBe(api.error.message);
    expect(await page.locator('#formula').getAttribute('aria-invalid')).toBe('true');
    await page.locator('#formula').press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('formula');
    expect(requested.slice(before)).toEqual([]);
    // The roll still on screen is the one before: it says so, never read as this one's answer.
    expect(await page.locator('#roll-result').getAttribute('data-stale')).toBe('true');
    expect(await page.locator('#roll-stale').textContent()).toBe(
      'This formula was not rolled: the roll below is the one before.',
    );

    await page.locator('#bonuses').fill('1d');
    const bonusApi = (await (
      await fetch(`${origin}/v1/roll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ formula: '1d6', bonuses: ['1d'] }),
      })
    ).json()) as { error: { message: string } };
    await expect.poll(() => page.locator('#bonuses-error').textContent()).toBe(bonusApi.error.message);
    await page.locator('#bonuses').fill('');
    await page.locator('#formula').fill('2d6');
    await expect.poll(() => page.locator('#formula-error').textContent()).toBe('');
    // A roll made clears the mark; one the service refuses (past its dice limit) sets it again.
    await rollFromForm(page);
    expect(await page.locator('#roll-result').getAttribute('data-stale')).toBeNull();
    expect(await page.locator('#roll-stale').isHidden()).toBe(true);
    const shownTotal = await page.locator('#total').textContent();
    await page.locator('#formula').fill('600d6+600d6');
    const refused = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/roll');
    await page.locator('#formula').press('Enter');
    expect((await refused).status()).toBe(400);
    await expect.poll(() => page.locator('#roll-failure').textContent()).toMatch(/dice/);
    expect(await page.locator('#roll-result').getAttribute('data-stale')).toBe('true');
    expect(await page.locator('#roll-stale').textContent()).toBe(
      'This roll was refused: the roll below is the one before.',
    );
    expect(await page.locator('#total').textContent()).toBe(shownTotal);
    expect(consoleErrors.splice(0)).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await page.locator('#formula').fill('2d6');
  });

  it('draws the odds: one bar per possible total, the rolled total marked', async (test) => {
    if (!('/v1/stats' in paths)) {
      console.warn('SKIPPING the odds test: this server has no /v1/stats (the Odds section stays hidden).');
      test.skip();
    }
    await page.locator('#formula').fill('3d6');
    const roll = await rollFromForm(page);
    // The page computes the odds itself (page/odds-worker.ts); they are the service's.
    const distribution = (await (await fetch(`${origin}/v1/stats?formula=3d6`)).json()) as {
      outcomes: { total: number }[];
    };
    expect(distribution.outcomes.map((o) => o.total)).toEqual(Array.from({ length: 16 }, (_, i) => i + 3));
    await expect.poll(() => page.locator('#histogram-wrap rect.bar').count()).toBe(16);
    const marked = await page
      .locator('#histogram-wrap rect.bar.rolled')
      .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('data-total'))));
    expect(marked).toEqual([roll.total]);
    await page.locator('#histogram-wrap rect.bar').first().focus();
    await expect.poll(() => page.locator('#odds-detail').textContent()).toMatch(/^Total 3\b.*at least 100%,/);
    expect(consoleErrors).toEqual([]);
  });

  it('passes an axe-core scan with no serious or critical violation', async () => {
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('fits 1280 px and 375 px wide; screenshots saved', async () => {
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
      const screenshot = join(screenshotDir, `page-${width}.png`);
      await page.screenshot({ path: screenshot, fullPage: true });
      console.log(`page screenshot (${width} px): ${screenshot}`);
      expect(existsSync(screenshot)).toBe(true);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreignRequests()).toEqual([]);
  });
});

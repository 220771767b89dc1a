// The odds on the page at `/` in a real browser against a real server: a roll of a new formula
// costs one request, its odds computed in the page's worker and exactly the service's answer;
// formulas compared with
// the roll are fetched in one POST /v1/stats/batch and drawn over its bars as series whose marks
// are exactly the batch answer's (one per total each can roll in the drawn range, with its
// probability), told apart by line and marker shape and named in a legend; the whole drawn at
// 390 px, by keyboard, with no serious axe-core violation.
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oddsWindow, percentText } from '../../packages/client/src/odds.js';
import type { StatsResponse } from '../../packages/client/src/types.js';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { listen } from '../support/app.js';
import { seriousViolations } from '../support/axe.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';
import { openPage, showingRoll } from '../support/page-rolls.js';

const runs = chromiumFor('the page odds browser test');

describe.skipIf(!runs)('the odds on the page at /, in headless Chromium', () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Chromium;
  const consoleErrors: string[] = [];
  const arrived: string[] = [];

  beforeAll(async () => {
    app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 10_000 }));
    origin = await listen(app);
    // What reaches the server (a browser cache hit never arrives).
    app.server.on('request', (request: IncomingMessage) => {
      arrived.push(`${request.method} ${(request.url ?? '').split('?')[0]}`);
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = (width: number, height: number): Promise<Page> =>
    openPage(browser.context, `${origin}/`, { width, height }, consoleErrors);

  async function roll(page: Page, formula: string): Promise<number> {
    await page.locator('#formula').fill(formula);
    const rolled = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/roll');
    await showingRoll(page, () => page.locator('#formula').press('Enter'));
    return ((await (await rolled).json()) as { total: number }).total;
  }

  async function compare(page: Page, formulas: string): Promise<void> {
    await page.locator('#compare').fill(formulas);
    await page.evaluate(() => {
      delete document.body.dataset.compared;
    });
    await page.locator('#compare').press('Enter');
    await page.locator('body[data-compared]').waitFor();
  }

  /** Each series' marks as drawn: per series, the totals and probabilities in order. */
  const drawnSeries = (page: Page) =>
    page.locator('#histogram-wrap svg').evaluate((svg) => {
      const read = (nodes: Iterable<Element>) =>
        [...nodes].map((node) => ({
          total: Number(node.getAttribute('data-total')),
          probability: Number(node.getAttribute('data-probability')),
        }));
      const series = [read(svg.querySelectorAll('rect.bar'))];
      for (const group of svg.querySelectorAll('g.series'))
        series.push(read(group.querySelectorAll('.point')));
      return series;
    });

  it("costs one request a roll of a new formula: its odds computed in the page are the service's exact answer", async () => {
    const page = await open(1280, 900);
    for (const formula of ['4d6kh3', '8d10>=8!>=10', '{1d8!,1d6!}kh1+2']) {
      arrived.splice(0);
      await roll(page, formula);
      expect(arrived, formula).toEqual(['POST /v1/roll']);
      expect(await page.evaluate(() => document.body.dataset.oddsFrom)).toBe('page');
      const stats = (await (
        await fetch(`${origin}/v1/stats?${new URLSearchParams({ formula })}`)
      ).json()) as StatsResponse;
      const [first, last] = oddsWindow(stats.outcomes);
      const [bars] = await drawnSeries(page);
      expect(bars, formula).toEqual(
        stats.outcomes.slice(first, last + 1).map(({ total, probability }) => ({ total, probability })),
      );
      expect(await page.locator('#odds-caption').textContent()).toContain(
        `${stats.outcomes.length} possible totals, from ${stats.min} to ${stats.max}`,
      );
    }
    await page.close();
    expect(consoleErrors).toEqual([]);
  });

  it('asks the service when the page has no worker: the same odds, one request more', async () => {
    const page = await browser.context.newPage();
    // The worker's script refused: the page cannot compute, and says nothing is wrong.
    await page.route(/\/assets\/odds-worker-[\w-]+\.js$/, (route) => route.abort());
    await page.goto(`${origin}/`);
    await page.locator('body[data-ready="true"]').waitFor();
    arrived.splice(0);
    await roll(page, '3d6+1');
    expect(arrived).toEqual(['POST /v1/roll', 'GET /v1/stats']);
    expect(await page.evaluate(() => document.body.dataset.oddsFrom)).toBe('service');
    expect(await page.locator('#histogram-wrap rect.bar').count()).toBe(16);
    // The next new formula goes straight to the service, without trying the worker again.
    arrived.splice(0);
    await roll(page, '2d4');
    expect(arrived).toEqual(['POST /v1/roll', 'GET /v1/stats']);
    await page.close();
  });

  it("says too_complex in the service's words, decided in the page before any work, without a request", async () => {
    const page = await open(1280, 900);
    arrived.splice(0);
    await roll(page, '1000d20');
    expect(arrived).toEqual(['POST /v1/roll']);
    const refused = (await (await fetch(`${origin}/v1/stats?formula=1000d20`)).json()) as {
      error: { code: string; message: string };
    };
    expect(refused.error.code).toBe('too_complex');
    expect(await page.locator('#odds-failure').textContent()).toBe(
      `No odds for this roll: ${refused.error.message}`,
    );
    expect(await page.locator('#odds-body').isHidden()).toBe(true);
    await page.close();
    expect(consoleErrors).toEqual([]);
  });

  it('writes a tiny chance as "< 0.0001%", never in e-notation', async () => {
    const page = await open(1280, 900);
    await roll(page, '3d6!');
    const stats = (await (
      await fetch(`${origin}/v1/stats?formula=${encodeURIComponent('3d6!')}`)
    ).json()) as StatsResponse;
    const tail = stats.truncation!.tailProbability;
    expect(tail).toBeLessThan(1e-6);
    const beyond = page.locator('#odds-beyond');
    const shown = (await beyond.textContent()) ?? '';
    expect(shown).toContain('longer chains, not listed, have a chance of < 0.0001% together.');
    expect(shown).toContain(`have a chance of ${percentText(tail)} together.`);
    expect(shown).not.toMatch(/\de[-+]\d/);
    // A bar's own label and the detail line that reads it say the same, with the same figures.
    const last = page.locator('#histogram-wrap rect.bar').last();
    await last.focus();
    const label = (await last.getAttribute('aria-label')) ?? '';
    expect(label).toMatch(/^Total \d+: exactly \d[\d.]*%, at least \d[\d.]*%, at most \d[\d.]*%$/);
    expect(await page.locator('#odds-detail').textContent()).toBe(label);
    await page.close();
    expect(consoleErrors).toEqual([]);
  });

  it('draws compared formulas from one batch request as overlaid series, each mark the exact answer', async () => {
    const page = await open(1280, 900);
    await roll(page, '2d6+3');
    expect(await page.locator('#odds-legend').isHidden()).toBe(true);
    arrived.splice(0);
    const batch = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/stats/batch');
    await compare(page, '1d12+4; 3d4+2');
    const answer = (await (await batch).json()) as { results: StatsResponse[] };
    expect(arrived).toEqual(['POST /v1/stats/batch']);
    expect(answer.results.map((r) => r.formula)).toEqual(['1d12+4', '3d4+2']);

    const series = await drawnSeries(page);
    expect(series).toHaveLength(3);
    // The drawn totals span every series' own 99.9 % window; here every total of all three.
    const low = Math.min(5, ...answer.results.map((r) => r.min));
    const high = Math.max(15, ...answer.results.map((r) => r.max));
    expect(series[0]!.map((bar) => bar.total)).toEqual(
      Array.from({ length: high - low + 1 }, (_, i) => low + i),
    );
    answer.results.forEach((result, k) => {
      const drawn = series[k + 1]!;
      const expected = result.outcomes.filter((o) => o.total >= low && o.total <= high);
      expect(drawn.map((point) => point.total)).toEqual(expected.map((o) => o.total));
      // The probability the page holds is the answer's, to the last bit.
      expect(drawn.map((point) => point.probability)).toEqual(expected.map((o) => o.probability));
    });
    // 1d12+4 at 16: exactly 1/12, read from the drawn point.
    const sixteen = series[1]!.find((point) => point.total === 16)!;
    expect(sixteen.probability).toBe(1 / 12);
    // The roll's own bars: 2d6+3 cannot make 4 or 16 (exactly 0), 10 is 6/36.
    expect(series[0]!.find((bar) => bar.total === 16)!.probability).toBe(0);
    expect(series[0]!.find((bar) => bar.total === 10)!.probability).toBe(6 / 36);

    // A legend names each series and how it is drawn, in words as well as a sample.
    expect(await page.locator('#odds-legend').isVisible()).toBe(true);
    const legend = await page.locator('#odds-legend li').allTextContents();
    expect(legend).toEqual([
      expect.stringMatching(/^2d6\+3 \(bars, your roll\)$/),
      '1d12+4 (solid line, circles)',
      '3d4+2 (dashed line, squares)',
    ]);
    // Told apart without colour: each compared line has its own dash pattern and marker shape.
    const looks = await page.locator('#histogram-wrap g.series').evaluateAll((groups) =>
      groups.map((g) => ({
        dash: g.querySelector('.series-line')?.getAttribute('stroke-dasharray'),
        shape: g
          .querySelector('.point')
          ?.getAttribute('d')
          ?.replace(/[-\d. ]+/g, ' '),
      })),
    );
    expect(new Set(looks.map((l) => l.dash)).size).toBe(2);
    expect(new Set(looks.map((l) => l.shape)).size).toBe(2);

    // Each bar tells every series at its total.
    await page.locator('#histogram-wrap rect.bar[data-total="16"]').focus();
    expect(await page.locator('#odds-detail').textContent()).toMatch(
      /^Total 16: exactly 0%, at least 0%, at most 100%; 1d12\+4: exactly 8\.3%, at least 8\.3%, at most 100%; 3d4\+2: exactly 0%, at least 0%, at most 100%$/,
    );

    // At least: every series drawn from the same readings, falling as the total rises.
    await page.locator('input[name="odds-mode"][value="atLeast"]').check();
    const heights = await page
      .locator('#histogram-wrap g.series-1 .point')
      .evaluateAll((points) => points.map((p) => p.getBoundingClientRect().top));
    expect(heights).toEqual([...heights].sort((a, b) => a - b));

    // Rolling again keeps the comparison and asks for nothing but the roll and its odds.
    arrived.splice(0);
    await roll(page, '2d6+3');
    expect(arrived).toEqual(['POST /v1/roll']);
    expect(await drawnSeries(page)).toHaveLength(3);

    // Emptied: the roll alone again, the legend hidden, nothing asked.
    arrived.splice(0);
    await compare(page, '');
    expect(arrived).toEqual([]);
    expect(await drawnSeries(page)).toHaveLength(1);
    expect(await page.locator('#odds-legend').isHidden()).toBe(true);
    await page.close();
    expect(consoleErrors).toEqual([]);
  });

  it('says a bad or sixth formula before asking anything', async () => {
    const page = await open(1280, 900);
    await roll(page, '1d20');
    arrived.splice(0);
    await page.locator('#compare').fill('1d6; 2d');
    await page.locator('#compare').press('Enter');
    await expect.poll(() => page.locator('#compare-error').textContent()).toMatch(/^2d: /);
    await page.locator('#compare').fill('1d4; 1d6; 1d8; 1d10; 1d12');
    await page.locator('#compare').press('Enter');
    await expect
      .poll(() => page.locator('#compare-error').textContent())
      .toBe('At most 4 formulas can be compared with your roll; this has 5.');
    expect(arrived).toEqual([]);
    await page.close();
  });

  it('draws four compared formulas at 390 px with nothing overflowing, by keyboard, and passes axe-core', async () => {
    const page = await open(390, 844);
    await roll(page, '4d6kh3');
    await page.locator('#compare').focus();
    await page.keyboard.type('3d6; 2d8+2; 1d20; 8d10>=8!>=10');
    await page.keyboard.press('Enter');
    await page.locator('body[data-compared="4"]').waitFor();
    await page.screenshot({ path: join(tmpdir(), 'fairdice-odds-compared-390.png'), fullPage: true });
    const series = await drawnSeries(page);
    expect(series).toHaveLength(5);
    // The exploding pool's range (0 successes and up) widens the axis to every series' window.
    expect(series[0]![0]!.total).toBe(0);
    expect(await page.locator('#odds-beyond').textContent()).toMatch(/Of 8d10>=8!>=10: Totals above \d+/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const dashes = await page
      .locator('#histogram-wrap g.series .series-line')
      .evaluateAll((lines) => lines.map((l) => l.getAttribute('stroke-dasharray')));
    expect(new Set(dashes).size).toBe(4);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
    expect(consoleErrors).toEqual([]);
  });
});

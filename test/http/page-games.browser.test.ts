import { mkdtemp } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { listen } from '../support/app.js';
import { seriousViolations } from '../support/axe.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';
import { openPage, showingRoll } from '../support/page-rolls.js';
import { readRollText } from '../support/roll-text.js';

/** The faces the next roll throws, in order; a roll asking for more is a test failure. */
const queue: number[] = [];

interface Game {
  name: string;
  formula: string;
  bonuses?: string;
  advantage?: 'advantage' | 'disadvantage';
  faces: number[];
  /** The text form the page shows. */
  text: string;
  /** More to check on the page. */
  check?(page: Page): Promise<void>;
}

/** The chips of the term of `group`: shown text, state and marks. */
const chipsOf = (page: Page, group: number) =>
  page.locator(`#dice .term[data-group="${group}"] .chip`).evaluateAll((chips) =>
    chips.map((chip) => ({
      shown: chip.querySelector('.face')?.textContent ?? '',
      said: chip.querySelector('.sr')?.textContent ?? '',
      state: (chip as HTMLElement).dataset.state,
      marks: ((chip as HTMLElement).dataset.marks ?? '').split(' ').filter(Boolean),
    })),
  );

const flowText = (page: Page) =>
  page
    .locator('#dice .flow')
    .evaluate((flow) =>
      [...flow.querySelectorAll('.op > [aria-hidden], .num, .punct, .term-name, .fn, .group-mods')]
        .map((node) => node.textContent)
        .join(' '),
    );

const GAMES: Game[] = [
  {
    name: 'd20',
    formula: '1d20+5',
    faces: [13],
    text: '1d20 [13] + 5 = 18',
    async check(page) {
      expect(await flowText(page)).toBe('1d20 + 5');
    },
  },
  {
    name: 'keep-highest',
    formula: '4d6kh3+2',
    faces: [6, 5, 3, 1],
    text: '4d6kh3 [6 5 3 (1)] + 2 = 16',
    async check(page) {
      expect((await chipsOf(page, 0)).map((chip) => chip.state)).toEqual(['kept', 'kept', 'kept', 'dropped']);
    },
  },
  {
    name: 'arithmetic',
    formula: '(1d8+4)*2',
    bonuses: '2, 1d4',
    faces: [5, 3],
    text: '(1d8 [5] + 4) * 2 + 2 + 1d4 [3] = 23',
    async check(page) {
      expect(await flowText(page)).toBe('( 1d8 + 4 ) × 2 + 2 + 1d4');
      expect(await page.locator('#roll-title').textContent()).toBe('(1d8+4)*2 with bonuses 2, 1d4');
      // The odds include the bonuses, and say so.
      expect(await page.locator('#odds-caption').textContent()).toMatch(
        /^Exact distribution of \(1d8\+4\)\*2 with bonuses 2, 1d4: 18 possible totals, from 13 to 30\./,
      );
    },
  },
  {
    name: 'world-of-darkness',
    formula: '8d10>=8!>=10',
    faces: [10, 9, 8, 3, 1, 2, 7, 4, 5],
    text: '8d10>=8!>=10 [10✓!+9✓ 8✓ 3 1 2 7 4 5] = 3 successes',
    async check(page) {
      const chips = await chipsOf(page, 0);
      expect(chips.map((chip) => chip.marks.filter((m) => m !== 'kept'))).toEqual([
        ['exploded', 'success'],
        ['extra', 'success'],
        ['success'],
        ...[3, 1, 2, 7, 4, 5].map(() => []),
      ]);
      expect(chips[0]?.said).toBe('10, kept, exploded, success');
      expect(chips[1]?.said).toBe('9, kept, explosion extra, success');
      expect(await page.locator('#total-note').textContent()).toBe('successes');
    },
  },
  {
    name: 'pool-with-failures',
    formula: '6d10>=8f1',
    faces: [9, 8, 1, 5, 3, 2],
    text: '6d10>=8f1 [9✓ 8✓ 1✗ 5 3 2] = 2 successes - 1 failure = 1',
    async check(page) {
      const chips = await chipsOf(page, 0);
      expect(chips.map((chip) => chip.marks.filter((m) => m === 'success' || m === 'failure'))).toEqual([
        ['success'],
        ['success'],
        ['failure'],
        [],
        [],
        [],
      ]);
      expect(await page.locator('#dice .term-total').textContent()).toBe('2 successes, 1 failure');
      expect(await page.locator('#total-note').textContent()).toBe('(2 successes, 1 failure)');
    },
  },
  {
    name: 'savage-worlds',
    formula: '{1d8!,1d6!}kh1+2',
    faces: [3, 6, 4],
    text: '{1d8! [3] dropped, 1d6! [6!+4]}kh1 + 2 = 12',
    async check(page) {
      const items = await page
        .locator('#dice .group-box > .item')
        .evaluateAll((nodes) => nodes.map((node) => [(node as HTMLElement).dataset.kept, node.textContent]));
      expect(items.map(([kept]) => kept)).toEqual(['false', 'true']);
      expect(items[0]?.[1]).toContain('dropped');
      expect(await page.locator('#dice .group-mods').textContent()).toBe('kh1');
    },
  },
  {
    name: 'fate',
    formula: '4dF+2',
    faces: [1, 2, 3, 3],
    text: '4dF [- 0 + +] + 2 = 3',
    async check(page) {
      const chips = await chipsOf(page, 0);
      expect(chips.map((chip) => chip.shown)).toEqual(['−', '', '+', '+']);
      expect(chips.map((chip) => chip.said.split(',')[0])).toEqual(['minus', 'blank', 'plus', 'plus']);
      expect(await page.locator('#dice .term-name').textContent()).toBe('4dF');
    },
  },
  {
    name: 'advantage-not-taken',
    formula: '2d20kh1+5',
    advantage: 'advantage',
    faces: [4, 17],
    text: '2d20kh1 [(4) 17] + 5 = 22',
    async check(page) {
      // A keep is no plain d20: advantage changes nothing, and the page says so.
      expect(await page.locator('#advantage-note').isVisible()).toBe(true);
      expect(await page.locator('#advantage-note').textContent()).toMatch(/no plain d20 term/);
    },
  },
  {
    name: 'reroll',
    formula: '4d6r1kh3',
    faces: [1, 4, 6, 2, 5],
    text: '4d6r1kh3 [1→4 6 (2) 5] = 15',
    async check(page) {
      expect((await chipsOf(page, 0)).map((chip) => chip.state)).toEqual([
        'rerolled',
        'kept',
        'kept',
        'dropped',
        'kept',
      ]);
    },
  },
  {
    name: 'compound',
    formula: '3d6!!',
    faces: [6, 6, 2, 3, 5],
    text: '3d6!! [6!+6!+2=14 3 5] = 22',
    async check(page) {
      expect(
        await page
          .locator('#dice .merged')
          .evaluateAll((m) => m.map((n) => (n as HTMLElement).dataset.value)),
      ).toEqual(['14']);
    },
  },
];

const runs = chromiumFor('the page games browser test');

describe.skipIf(!runs)('every game on the page at /, in headless Chromium', () => {
  let app: FastifyInstance;
  let origin: string;
  let browser: Chromium;
  let screenshotDir: string;
  const consoleErrors: string[] = [];
  const arrived: string[] = [];

  beforeAll(async () => {
    app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 10_000 }), {
      random: {
        die(sides: number) {
          const face = queue.shift();
          if (face === undefined || face > sides) throw new Error(`no scripted face for a d${sides}`);
          return face;
        },
      },
    });
    origin = await listen(app);
    // What reaches the server, to count a roll's requests (a browser cache hit never arrives).
    app.server.on('request', (request: IncomingMessage) => {
      arrived.push(`${request.method} ${(request.url ?? '').split('?')[0]}`);
    });
    screenshotDir = await mkdtemp(join(tmpdir(), 'fairdice-games-'));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = (width: number, height: number): Promise<Page> =>
    openPage(browser.context, `${origin}/`, { width, height }, consoleErrors);

  async function play(page: Page, game: Game): Promise<void> {
    queue.splice(0, queue.length, ...game.faces);
    await page.locator('#formula').fill(game.formula);
    await page.locator('#bonuses').fill(game.bonuses ?? '');
    await page.locator(`input[name="advantage"][value="${game.advantage ?? 'normal'}"]`).check();
    const rolled = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/roll');
    await showingRoll(page, () => page.locator('#formula').press('Enter'));
    const roll = (await (await rolled).json()) as { total: number };
    expect(queue).toEqual([]);
    await expect.poll(() => page.locator('#roll-text').textContent()).toBe(game.text);
    expect(await page.locator('#total').textContent()).toBe(String(roll.total));
    expect(readRollText(game.text).rounded).toBe(roll.total);
    // The heading of each term is written as in the formula.
    for (const name of await page.locator('#dice .term-name').allTextContents()) {
      expect(`${game.formula},${game.bonuses ?? ''}`.replace(/ /g, '')).toContain(name.replace('−', '-'));
    }
    await game.check?.(page);
  }

  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ] as const) {
    it(`shows each game's roll at ${width} px wide, with nothing overflowing`, async () => {
      const page = await open(width, height);
      for (const game of GAMES) {
        await play(page, game);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${game.name}: horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
        const path = join(screenshotDir, `${game.name}-${width}.png`);
        await page.screenshot({ path, fullPage: true });
      }
      console.log(`page screenshots of every game (${width} px): ${screenshotDir}`);
      await page.close();
      expect(consoleErrors).toEqual([]);
    });
  }

  it('costs one request a roll: the odds are computed in the page, neither asked for nor after a reload', async () => {
    const once: Game = { name: 'once', formula: '2d8+3', faces: [4, 5], text: '2d8 [4 5] + 3 = 12' };
    const withBonus: Game = {
      name: 'with-bonus',
      formula: '1d12',
      bonuses: '1',
      faces: [7],
      text: '1d12 [7] + 1 = 8',
    };
    const page = await open(1280, 900);
    arrived.splice(0);
    for (const game of [once, once, once, withBonus, withBonus]) await play(page, game);
    const count = (what: string) => arrived.filter((line) => line === what).length;
    expect(count('POST /v1/roll')).toBe(5);
    // The odds of both requests, with and without bonuses, computed in the page's worker.
    expect(arrived.length).toBe(5);
    expect(await page.locator('#odds-body').isVisible()).toBe(true);
    expect(await page.evaluate(() => document.body.dataset.oddsFrom)).toBe('session');

    // A new page load: the odds of `2d8+3` computed again in the page.
    arrived.splice(0);
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    await play(page, once);
    expect(arrived.filter((line) => !line.startsWith('GET /assets/'))).toEqual([
      'GET /',
      'GET /openapi.json',
      'POST /v1/roll',
    ]);
    expect(await page.locator('#histogram-wrap rect.bar.rolled').getAttribute('data-total')).toBe('12');
    await page.close();
    expect(consoleErrors).toEqual([]);
  });

  it('passes axe-core with a success pool, a group and the odds drawn, at 390 px', async () => {
    const page = await open(390, 844);
    for (const game of [GAMES[4]!, GAMES[5]!]) {
      await play(page, game);
      expect(await seriousViolations(page), game.name).toEqual([]);
    }
    await page.close();
  });

  it('reaches every control with Tab, the chart as one stop walked with the arrow keys', async () => {
    const page = await open(1280, 900);
    await play(page, GAMES[1]!);
    await page.locator('body').focus();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const reached = new Set<string>();
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        if (active === null || active === document.body) return '';
        if (active.matches('rect.bar')) return 'bar';
        return active.id || `${active.getAttribute('name')}=${(active as HTMLInputElement).value}`;
      });
      reached.add(at);
    }
    for (const control of [
      'formula',
      'advantage=normal',
      'bonuses',
      'roll-button',
      'odds-mode=exactly',
      'bar',
      'table-create',
      'table-id',
    ]) {
      expect(reached, control).toContain(control);
    }
    // One stop: the bars after the first are reached with the arrow keys, not with Tab.
    expect(await page.locator('#histogram-wrap rect.bar[tabindex="0"]').count()).toBe(1);
    await page.locator('#histogram-wrap rect.bar[tabindex="0"]').focus();
    const before = await page.evaluate(() => document.activeElement?.getAttribute('data-total'));
    await page.keyboard.press('ArrowRight');
    const after = await page.evaluate(() => document.activeElement?.getAttribute('data-total'));
    expect(Number(after)).toBe(Number(before) + 1);
    expect(await page.locator('#odds-detail').textContent()).toMatch(new RegExp(`^Total ${after}\\b`));
    await page.keyboard.press('Home');
    const lowest = await page.locator('#histogram-wrap rect.bar').first().getAttribute('data-total');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-total'))).toBe(lowest);
    await page.keyboard.press('End');
    const highest = await page.locator('#histogram-wrap rect.bar').last().getAttribute('data-total');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-total'))).toBe(highest);
    await page.close();
  });

  it('draws an exploding pool where its mass is, says what lies beyond, and toggles the three readings', async () => {
    const page = await open(390, 844);
    await play(page, GAMES[3]!);
    const stats = (await (
      await fetch(`${origin}/v1/stats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ formula: '8d10>=8!>=10' }),
      })
    ).json()) as { outcomes: { total: number; probability: number; atLeast: number; atMost: number }[] };
    const drawn = await page
      .locator('#histogram-wrap rect.bar')
      .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('data-total'))));
    // Hundreds of possible totals; a dozen or so drawn, holding at least 99.9 % of the chance.
    expect(stats.outcomes.length).toBeGreaterThan(200);
    expect(drawn.length).toBeLessThan(30);
    const held = stats.outcomes
      .filter((o) => drawn.includes(o.total))
      .reduce((sum, o) => sum + o.probability, 0);
    expect(held).toBeGreaterThanOrEqual(0.999);
    const last = drawn.at(-1)!;
    const beyond = stats.outcomes.filter((o) => o.total > last).reduce((sum, o) => sum + o.probability, 0);
    const said = await page.locator('#odds-beyond').textContent();
    expect(said).toMatch(
      new RegExp(`^Totals above ${last} \\(${last + 1} to \\d+\\) are not drawn: together `),
    );
    const stated = Number(/together ([\d.e-]+)%/.exec(said ?? '')?.[1]) / 100;
    expect(Math.abs(stated - beyond) / beyond).toBeLessThan(0.05);
    // The rolled total (3 successes) is marked.
    expect(
      await page
        .locator('#histogram-wrap rect.bar.rolled')
        .evaluateAll((bars) => bars.map((b) => b.getAttribute('data-total'))),
    ).toEqual(['3']);
    // The axis labels stay inside the chart.
    const inside = await page.locator('#histogram-wrap svg').evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')].every((text) => {
        const r = text.getBoundingClientRect();
        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
      });
    });
    expect(inside).toBe(true);

    const heights = () =>
      page
        .locator('#histogram-wrap rect.bar')
        .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('height'))));
    const exactly = await heights();
    await page.locator('input[name="odds-mode"][value="atLeast"]').check();
    const atLeast = await heights();
    // At least: falling from the full height (100 % at the lowest total).
    expect(atLeast[0]).toBe(Math.max(...atLeast));
    expect(atLeast).toEqual([...atLeast].sort((a, b) => b - a));
    await page.locator('input[name="odds-mode"][value="atMost"]').check();
    const atMost = await heights();
    expect(atMost).toEqual([...atMost].sort((a, b) => a - b));
    expect(atLeast).not.toEqual(exactly);
    await page.locator('#histogram-wrap rect.bar.rolled').focus();
    expect(await page.locator('#odds-detail').textContent()).toMatch(
      /^Total 3 \(rolled\): exactly [\d.]+%, at least [\d.]+%, at most [\d.]+%$/,
    );
    await page.screenshot({ path: join(screenshotDir, 'odds-at-most-390.png'), fullPage: true });
    await page.close();
    expect(consoleErrors).toEqual([]);
  });
});

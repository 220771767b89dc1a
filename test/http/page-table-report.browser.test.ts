/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// "How lucky?" in the page, in headless Chromium against a real server with its SQLite store: the
// table view asks GET /v1/tables/{id}/report and shows exactly what it answers (its sentence, the
// mean percentile per roller and for the table, each roll's percentile with its exact fraction,
// what it covered), reached by keyboard, at 390 px wide, with no serious axe-core violation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TableReport } from '@fairdice/client/types';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { chromiumFor } from '../support/chromium.js';
import { tablePages } from '../support/page-table.js';

const runs = chromiumFor('the page luck report browser test');

/** A mid-P as the page reads it, from the report's own double. */
const percentile = (midP: number): string => {
  const value = midP * 100;
  if (value > 0 && value < 0.1) return '< 0.1';
  if (value < 100 && value > 99.9) return '> 99.9';
  return value.toFixed(1);
};

describe.skipIf(!runs)("a table's luck report in the page", () => {
  const pages = tablePages('page-report');
  const { openPage, consoleErrors } = pages;

  it('shows the report the service answers, per roller and roll by roll', async () => {
    const created = (await (await fetch(`${pages.origin}/v1/tables`, { method: 'POST' })).json()) as {
      id: string;
    };
    const table = created.id;
    const rolls: { formula: string; by?: string }[] = [
      { formula: '1d20+5', by: 'Ana' },
      { formula: '4d6kh3', by: 'Bo' },
      { formula: '2d6', by: 'Ana' },
      { formula: '1d20' },
      { formula: '8d10>=8', by: 'Bo' },
    ];
    for (const request of rolls) {
      const response = await fetch(`${pages.origin}/v1/roll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, table }),
      });
      expect(response.status).toBe(200);
    }
    const page = await openPage(`${pages.origin}/?table=${table}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.locator('#table-log li.entry').count()).toBe(rolls.length);

    // Keyboard only: Tab to the button, Enter asks for the report.
    const button = page.locator('#table-report-button');
    expect(await button.isVisible()).toBe(true);
    for (let presses = 0; presses < 40; presses++) {
      if ((await page.evaluate(() => document.activeElement?.id)) === 'table-report-button') break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('table-report-button');
    const answered = page.waitForResponse((response) =>
      response.url().endsWith(`/v1/tables/${table}/report`),
    );
    await page.keyboard.press('Enter');
    const report = (await (await answered).json()) as TableReport;
    await page.locator('#table-report:not([hidden])').waitFor();

    expect(report.covered).toMatchObject({ from: 1, to: rolls.length, rolls: rolls.length, sealed: 0 });
    expect(await page.locator('#table-report .verdict').textContent()).toBe(report.test.sentence);
    expect(await page.locator('#table-report .verdict').getAttribute('data-verdict')).toBe(
      report.test.verdict,
    );
    expect(await page.locator('#table-report .overall').textContent()).toContain(
      `Mean percentile of the table: ${percentile(report.overall.meanMidP!)} over ${report.overall.rated} rated rolls`,
    );
    expect(await page.locator('#table-report .coverage').textContent()).toContain(
      `Entries 1 to ${rolls.length}: ${rolls.length} rolls, ${report.covered.rated} rated`,
    );
    // Per roller, in the report's order, each with its mean.
    const rollers = await page
      .locator('.report-rollers li')
      .evaluateAll((items) =>
        items.map((item) => ({ by: (item as HTMLElement).dataset.by, text: item.textContent })),
      );
    expect(rollers).toEqual(
      report.byRoller.map((roller) => ({
        by: roller.by ?? '',
        text: `${roller.by ?? 'Unnamed rolls'}: mean percentile ${percentile(roller.meanMidP)} over ${roller.rated} roll${roller.rated === 1 ? '' : 's'}`,
      })),
    );
    expect(report.byRoller.map((roller) => roller.by)).toEqual(['Ana', 'Bo', null]);
    // Roll by roll: each rated roll's percentile, its exact fraction on hover.
    const shown = await page.locator('.report-roll').evaluateAll((items) =>
      items.map((item) => ({
        seq: Number((item as HTMLElement).dataset.seq),
        status: (item as HTMLElement).dataset.status,
        what: item.querySelector('.what')?.textContent,
        percentile: item.querySelector('.percentile')?.textContent,
        exact: item.querySelector<HTMLElement>('.percentile')?.title,
      })),
    );
    expect(shown).toEqual(
      report.rolls.map((entry) => ({
        seq: entry.seq,
        status: entry.status,
        what: `${entry.formula} = ${entry.total}`,
        percentile: entry.midP === undefined ? undefined : `percentile ${percentile(entry.midP)}`,
        exact: entry.midPExact === undefined ? undefined : `exactly ${entry.midPExact} (mid-P)`,
      })),
    );
    expect(shown.every((entry) => entry.status === 'rated')).toBe(true);

    // Its link to how the report works lands on that section of the served reference.
    const how = await page.locator('#table-report .coverage a').getAttribute('href');
    expect(how).toBe('/docs/trust#how-lucky-the-night-was');
    expect(await (await fetch(`${pages.origin}/docs/trust`)).text()).toContain(
      'id="how-lucky-the-night-was"',
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
    const shots = mkdtempSync(join(tmpdir(), 'fairdice-report-shots-'));
    await page.locator('#table').screenshot({ path: join(shots, 'report-390.png') });
    console.log(`report screenshots: ${shots}`);
    expect(consoleErrors).toEqual([]);
  });
});

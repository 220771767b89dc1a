/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A table in the page, in headless Chromium against a real server with its SQLite store: two
// pages on one table see each other's rolls live, each verified in the page against
// /.well-known/jwks.json, and an entry tampered with in the store shows invalid.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/trust/receipt.js';
import { chromiumFor } from '../support/chromium.js';
import { rollOnPage, tablePages } from '../support/page-table.js';
import { readRollText } from '../support/roll-text.js';

const runs = chromiumFor('the page table browser test');

describe.skipIf(!runs)('a table in the page, two browsers', () => {
  const pages = tablePages('page-table');
  const { openPage, consoleErrors } = pages;
  const requested: string[] = [];

  const entries = (page: Page) =>
    page.locator('#table-log li.entry').evaluateAll((items) =>
      items
        .map((item) => ({
          seq: Number((item as HTMLElement).dataset.seq),
          total: Number((item as HTMLElement).dataset.total),
          valid: item.querySelector<HTMLElement>('.badge')?.dataset.valid,
          shown: item.querySelector('.total')?.textContent,
        }))
        .sort((a, b) => a.seq - b.seq),
    );

  // After tablePages' own beforeAll: the context is there.
  beforeAll(() => {
    pages.context.on('request', (request) => {
      requested.push(request.url());
    });
  });

  it('shares rolls live between two pages, each verified; a tampered entry shows invalid', async () => {
    const first = await openPage(`${pages.origin}/`);
    await first.locator('#table-create').click();
    await expect.poll(() => new URL(first.url()).searchParams.get('table')).toMatch(/^[\w-]{16,64}$/);
    const tableId = new URL(first.url()).searchParams.get('table')!;
    // The second player opens the shared address.
    const second = await openPage(first.url());
    await expect.poll(() => second.locator('#table-id').inputValue()).toBe(tableId);

    const one = await rollOnPage(first, '1d20+1');
    const two = await rollOnPage(second, '2d6');
    const expected = [
      { seq: one.seq, total: one.roll.total, valid: 'true', shown: `= ${one.roll.total}` },
      { seq: two.seq, total: two.roll.total, valid: 'true', shown: `= ${two.roll.total}` },
    ];
    expect(expected.map((entry) => entry.seq)).toEqual([1, 2]);
    await expect.poll(() => entries(first)).toEqual(expected);
    await expect.poll(() => entries(second)).toEqual(expected);
    // Each entry shows its dice: the roll's text form, from which its total is rebuilt.
    for (const [receipt, name] of [
      [one, '1d20'],
      [two, '2d6'],
    ] as const) {
      for (const page of [first, second]) {
        const text = await page.locator(`#table-log li.entry[data-seq="${receipt.seq}"] .what`).textContent();
        // A natural 20 or 1 on the d20 says so (`[20 crit]`, `[1 fumble]`).
        expect(text).toMatch(new RegExp(`^${name} \\[[\\d ]+(?: crit| fumble)?\\]`));
        expect(readRollText(text ?? '').rounded).toBe(receipt.roll.total);
      }
    }

    // An entry written straight into the store, its total edited after signing.
    await pages.trust.store.append(
      tableId,
      (seq, prev) => ({
        ...two,
        id: `${two.id.slice(0, -4)}beef`,
        seq,
        prev,
        roll: { ...two.roll, total: two.roll.total + 1 },
        // Who rolled and what for, as a request may name them (docs/trust.md): shown when present.
        request: { ...two.request, by: 'Ana', note: 'to hit the goblin' } as Receipt['request'],
      }),
      Date.now(),
    );
    const tampered = { seq: 3, total: two.roll.total + 1, valid: 'false', shown: `= ${two.roll.total + 1}` };
    await expect.poll(() => entries(first)).toEqual([...expected, tampered]);
    await expect.poll(() => entries(second)).toEqual([...expected, tampered]);
    for (const page of [first, second]) {
      expect(await page.locator('#table-log li.entry[data-seq="3"] .by').textContent()).toBe('Ana');
      expect(await page.locator('#table-log li.entry[data-seq="3"] .note').textContent()).toBe(
        'to hit the goblin',
      );
    }
    expect(await first.locator('#table-log li.entry[data-seq="1"] .by').count()).toBe(0);
    expect(await first.locator('#table-log li.entry[data-seq="3"] .why').textContent()).toMatch(/signature/);

    // A later honest roll verifies again and its chain link holds; it carries the name given.
    expect(await first.locator('#by-field').isVisible()).toBe(true);
    await first.locator('#by').fill('Bea');
    const four = await rollOnPage(first, '1d4');
    expect(four.request.by).toBe('Bea');
    await expect
      .poll(() => entries(second))
      .toEqual([
        ...expected,
        tampered,
        { seq: 4, total: four.roll.total, valid: 'true', shown: `= ${four.roll.total}` },
      ]);
    expect(await second.locator('#table-chain').textContent()).toBe('');
    expect(await second.locator('#table-log li.entry[data-seq="4"] .by').textContent()).toBe('Bea');
    const screenshots = mkdtempSync(join(tmpdir(), 'fairdice-table-shots-'));
    for (const [name, page] of [
      ['first', first],
      ['second', second],
    ] as const) {
      await page.locator('#table').screenshot({ path: join(screenshots, `table-${name}.png`) });
    }
    console.log(`table screenshots: ${screenshots}`);

    expect(consoleErrors).toEqual([]);
    expect(
      requested.filter((url) => !url.startsWith(`${pages.origin}/`) && !url.startsWith('data:')),
    ).toEqual([]);
  });
});

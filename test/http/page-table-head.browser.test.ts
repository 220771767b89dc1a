import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { receiptHashSync } from '../../src/store/chain.js';
import { openDatabase, SQLITE_FILE_NAME } from '../../src/store/sqlite.js';
import type { Receipt } from '../../src/trust/receipt.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumFor } from '../support/chromium.js';
import { rollOnPage, tablePages } from '../support/page-table.js';

const runs = chromiumFor('the page table head browser test');

describe.skipIf(!runs)("a table's signed head in the page", () => {
  const pages = tablePages('page-head');
  const { openPage, consoleErrors } = pages;

  const headShown = (page: Page) =>
    page.locator('#table-head').evaluate((node) => ({
      entries: (node as HTMLElement).dataset.entries,
      valid: node.querySelector<HTMLElement>('.badge')?.dataset.valid,
      kid: node.querySelector<HTMLElement>('.kid')?.title,
    }));
  const warning = (page: Page) =>
    page.locator('#table-head-warning').evaluate((node) => ({
      problem: (node as HTMLElement).dataset.problem,
      text: node.textContent,
    }));

  it('shows the verified head, then warns of a log cut short after it and of a fork', async () => {
    const page = await openPage(`${pages.origin}/`);
    await page.locator('#table-create').click();
    await expect.poll(() => new URL(page.url()).searchParams.get('table')).toMatch(/^[\w-]{16,64}$/);
    const tableId = new URL(page.url()).searchParams.get('table')!;
    const kid = (
      (await (await fetch(`${pages.origin}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
    ).keys[0]!.kid;
    // An empty table's head: no entries, verified.
    await expect.poll(() => headShown(page)).toEqual({ entries: '0', valid: 'true', kid });

    const rolled: Receipt[] = [];
    for (const formula of ['1d20', '2d6', '1d8']) rolled.push(await rollOnPage(page, formula));
    await expect.poll(() => headShown(page)).toEqual({ entries: '3', valid: 'true', kid });
    expect(await page.locator('#table-head').textContent()).toMatch(/^Signed head: 3 entries at .+, key /);
    expect(await warning(page)).toEqual({ problem: undefined, text: '' });

    // The log is cut in the store after the page saw its head of 3 entries: the last entry goes.
    const db = openDatabase(join(pages.dataDir, SQLITE_FILE_NAME));
    try {
      db.prepare('DELETE FROM receipts WHERE table_id = ? AND seq = 3').run(tableId);
      db.prepare('UPDATE tables SET entries = 2, last_hash = ? WHERE id = ?').run(
        receiptHashSync(rolled[1]!),
        tableId,
      );
    } finally {
      db.close();
    }
    // A new visit reads a log of 2 entries under a head of 2, which verifies; but the page held 3.
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    await expect.poll(() => headShown(page)).toEqual({ entries: '2', valid: 'true', kid });
    await expect
      .poll(() => warning(page))
      .toEqual({
        problem: 'shorter',
        text: 'Since a head this page holds: a head held promises 3 entries but this read has 2: entries were cut from the log.',
      });
    expect(await seriousViolations(page)).toEqual([]);

    // A new roll takes number 3 again: a signed head of 3 entries ending in another entry, a fork.
    const other = await rollOnPage(page, '1d4');
    expect(other.seq).toBe(3);
    expect(receiptHashSync(other)).not.toBe(receiptHashSync(rolled[2]!));
    await expect.poll(() => headShown(page)).toEqual({ entries: '3', valid: 'true', kid });
    await expect
      .poll(() => warning(page))
      .toEqual({
        problem: 'forked',
        text: 'Since a head this page holds: this read and a head held both have 3 entries but end in different entries: the log forked.',
      });

    // Another page of the same browser holds the same head (kept per table across visits): it
    // warns of the fork too.
    const second = await openPage(page.url());
    await expect.poll(() => headShown(second)).toEqual({ entries: '3', valid: 'true', kid });
    await expect.poll(() => warning(second)).toMatchObject({ problem: 'forked' });
    expect(consoleErrors).toEqual([]);
  });
});

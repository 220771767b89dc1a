/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Sealed rolls in the page, in headless Chromium against a real server with its SQLite store: a
// sealed entry shows as sealed (number, time, formula, commitment, who) with no dice; its reveal
// shows the roll, its dice, and whether it opens the commitment already in the chain, checked
// in the page with the client's verifyEntry and verifyReveal. The entries are signed here with
// the server's own key and appended to its store, so that a reveal whose salt does not open the
// commitment can be shown failing.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TableRollResponse } from '@fairdice/client/types';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Receipt, SignedRequest } from '../../src/trust/receipt.js';
import { sealCommitment, signEntry, signReceipt } from '../../src/trust/sign.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumFor } from '../support/chromium.js';
import { tablePages } from '../support/page-table.js';
import { readRollText } from '../support/roll-text.js';

const runs = chromiumFor('the page sealed rolls browser test');

describe.skipIf(!runs)('sealed rolls and their reveals in the page', () => {
  const pages = tablePages('page-sealed');
  const { openPage, consoleErrors } = pages;

  /** Rolls `request` for real, then appends it to `table` sealed; the receipt it committed to. */
  async function appendSealed(table: string, request: SignedRequest, salt: string): Promise<Receipt> {
    const answer = (await (
      await fetch(`${pages.origin}/v1/roll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ formula: request.formula }),
      })
    ).json()) as Receipt['roll'];
    let receipt: Receipt | undefined;
    await pages.trust.store.append(
      table,
      (seq, prev) => {
        receipt = signReceipt(pages.trust.keys, {
          request: { ...request, sealed: true },
          roll: answer,
          table,
          seq,
          prev,
        });
        const { note: _note, ...shown } = receipt.request;
        return signEntry(pages.trust.keys, {
          table,
          seq,
          prev,
          request: shown,
          commitment: sealCommitment(receipt, salt),
        }) as unknown as Receipt;
      },
      Date.now(),
    );
    return receipt!;
  }

  async function appendReveal(table: string, receipt: Receipt, salt: string): Promise<void> {
    await pages.trust.store.append(
      table,
      (seq, prev) =>
        signEntry(pages.trust.keys, {
          table,
          seq,
          prev,
          reveal: { seq: receipt.seq, receipt, salt },
        }) as unknown as Receipt,
      Date.now(),
    );
  }

  const shown = (page: Page) =>
    page.locator('#table-log li.entry').evaluateAll((items) =>
      items
        .map((item) => {
          const data = (item as HTMLElement).dataset;
          return {
            seq: Number(data.seq),
            kind: data.kind,
            valid: item.querySelector<HTMLElement>('.badge[data-valid]')?.dataset.valid,
            matched: data.matched,
            revealedIn: data.revealedIn,
            total: item.querySelector('.total')?.textContent ?? null,
          };
        })
        .sort((a, b) => a.seq - b.seq),
    );

  it('shows a sealed roll as sealed, its reveal with its dice and whether it opens the commitment', async () => {
    const created = (await (await fetch(`${pages.origin}/v1/tables`, { method: 'POST' })).json()) as {
      id: string;
    };
    const table = created.id;
    const first = await openPage(`${pages.origin}/?table=${table}`);
    const second = await openPage(`${pages.origin}/?table=${table}`);

    const salt = 'a1'.repeat(32);
    const sealedRoll = await appendSealed(
      table,
      { formula: '1d20+5', by: 'GM', note: 'the hidden trap' } as SignedRequest,
      salt,
    );
    for (const page of [first, second]) {
      await expect
        .poll(() => shown(page))
        .toEqual([
          { seq: 1, kind: 'sealed', valid: 'true', matched: undefined, revealedIn: undefined, total: null },
        ]);
      const item = page.locator('#table-log li.entry[data-seq="1"]');
      // What was asked and who, never the dice nor the note.
      expect(await item.locator('.what').textContent()).toBe('1d20+5');
      expect(await item.locator('.by').textContent()).toBe('GM');
      expect(await item.locator('.note').count()).toBe(0);
      expect(await item.locator('.badge.sealed').textContent()).toBe('sealed');
      expect(await item.locator('.commitment code').getAttribute('title')).toBe(
        sealCommitment(sealedRoll, salt),
      );
      expect(await item.textContent()).not.toContain('the hidden trap');
      // No token in this browser: nothing to reveal with.
      expect(await item.locator('button.reveal').count()).toBe(0);
    }

    await appendReveal(table, sealedRoll, salt);
    const revealed = {
      seq: 2,
      kind: 'reveal',
      valid: 'true',
      matched: 'true',
      revealedIn: undefined,
      total: `= ${sealedRoll.roll.total}`,
    };
    for (const page of [first, second]) {
      await expect
        .poll(() => shown(page))
        .toEqual([
          { seq: 1, kind: 'sealed', valid: 'true', matched: undefined, revealedIn: '2', total: null },
          revealed,
        ]);
      const item = page.locator('#table-log li.entry[data-seq="2"]');
      expect(await item.locator('.badge.match').textContent()).toBe('✓ matches #1');
      expect(await item.locator('.by').textContent()).toBe('GM');
      expect(await item.locator('.note').textContent()).toBe('the hidden trap');
      const text = (await item.locator('.what').textContent()) ?? '';
      expect(text).toMatch(/^1d20 \[\d+( crit| fumble)?\] \+ 5 = /);
      expect(readRollText(text).rounded).toBe(sealedRoll.roll.total);
      expect(await page.locator('#table-log li.entry[data-seq="1"] .revealed').textContent()).toBe(
        'revealed in #2',
      );
    }

    // A reveal signed by the service but whose salt does not open the commitment: shown failing.
    const other = await appendSealed(table, { formula: '2d6' } as SignedRequest, 'b2'.repeat(32));
    await appendReveal(table, other, 'c3'.repeat(32));
    for (const page of [first, second]) {
      await expect.poll(() => shown(page).then((entries) => entries.length)).toBe(4);
      const item = page.locator('#table-log li.entry[data-seq="4"]');
      expect(await item.getAttribute('data-matched')).toBe('false');
      expect(await item.locator('.badge.match').textContent()).toBe('✗ does not open #3');
      expect(await item.locator('.why').textContent()).toMatch(/do not hash to the commitment of entry 3/);
      // The sealed entry stays sealed: nothing opened it.
      expect(
        await page.locator('#table-log li.entry[data-seq="3"]').getAttribute('data-revealed-in'),
      ).toBeNull();
    }
    // The head the stream sends after each entry agrees with the log the page holds.
    await expect.poll(() => first.locator('#table-head').getAttribute('data-entries')).toBe('4');
    expect(await first.locator('#table-head-warning').textContent()).toBe('');
    expect(await first.locator('#table-chain').textContent()).toBe('');

    await first.setViewportSize({ width: 390, height: 844 });
    expect(await first.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(first)).toEqual([]);
    const shots = mkdtempSync(join(tmpdir(), 'fairdice-sealed-shots-'));
    await first.locator('#table').screenshot({ path: join(shots, 'sealed-390.png') });
    console.log(`sealed screenshots: ${shots}`);
    expect(consoleErrors).toEqual([]);
  });
  it("rolls in secret from one page, shows it sealed on both, reveals it from the roller's page by keyboard", async () => {
    const first = await openPage(`${pages.origin}/`);
    await first.locator('#table-create').click();
    await expect.poll(() => new URL(first.url()).searchParams.get('table')).toMatch(/^[\w-]{16,64}$/);
    const table = new URL(first.url()).searchParams.get('table')!;
    const second = await openPage(first.url());
    expect(await first.locator('#secret-field').isVisible()).toBe(true);

    await first.locator('#formula').fill('1d20+5');
    await first.locator('#by').fill('GM');
    await first.locator('#secret').check();
    const answered = first.waitForResponse(
      (response) =>
        response.request().method() === 'POST' &&
        new URL(response.url()).pathname === `/v1/tables/${table}/roll`,
    );
    await first.locator('#roll-button').click();
    const answer = (await (await answered).json()) as TableRollResponse;
    const sealed = answer.sealed!;
    expect(sealed.entry.seq).toBe(1);
    expect(answer.receipt.request.sealed).toBe(true);
    // The roller sees the roll; its heading says it is secret.
    await expect.poll(() => first.locator('#total').textContent()).toBe(String(answer.total));
    expect(await first.locator('#roll-title').textContent()).toContain('in secret (roll #1');

    const asSealed = {
      seq: 1,
      kind: 'sealed',
      valid: 'true',
      matched: undefined,
      revealedIn: undefined,
      total: null,
    };
    for (const page of [first, second]) {
      await expect.poll(() => shown(page)).toEqual([asSealed]);
      const item = page.locator('#table-log li.entry[data-seq="1"]');
      expect(await item.locator('.by').textContent()).toBe('GM');
      expect(await item.locator('.what').textContent()).toBe('1d20+5');
      expect(await item.locator('.commitment code').getAttribute('title')).toBe(sealed.entry.commitment);
    }
    // Only the roller's page holds the token, kept per table and entry across a reload.
    expect(await second.locator('#table-log button.reveal').count()).toBe(0);
    const kept = () =>
      first.evaluate((key) => window.localStorage.getItem(key), `fairdice.sealed.${table}.1`);
    expect(JSON.parse((await kept()) ?? '{}')).toEqual({
      salt: sealed.salt,
      revealToken: sealed.revealToken,
    });
    await first.reload();
    await first.locator('body[data-ready="true"]').waitFor();
    await expect.poll(() => shown(first)).toEqual([asSealed]);
    const button = first.locator('#table-log li.entry[data-seq="1"] button.reveal');
    await button.waitFor();
    expect(await button.textContent()).toBe('Reveal roll #1');
    await first.setViewportSize({ width: 390, height: 844 });
    expect(await first.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(first)).toEqual([]);

    // Keyboard only: Tab to the reveal button, Enter reveals.
    for (let presses = 0; presses < 60; presses++) {
      if (await button.evaluate((node) => node === document.activeElement)) break;
      await first.keyboard.press('Tab');
    }
    expect(await button.evaluate((node) => node === document.activeElement)).toBe(true);
    const revealed = first.waitForResponse(
      (response) => new URL(response.url()).pathname === `/v1/tables/${table}/rolls/1/reveal`,
    );
    await first.keyboard.press('Enter');
    expect((await revealed).status()).toBe(200);
    for (const page of [first, second]) {
      await expect
        .poll(() => shown(page))
        .toEqual([
          { ...asSealed, revealedIn: '2' },
          {
            seq: 2,
            kind: 'reveal',
            valid: 'true',
            matched: 'true',
            revealedIn: undefined,
            total: `= ${answer.total}`,
          },
        ]);
      const text = (await page.locator('#table-log li.entry[data-seq="2"] .what').textContent()) ?? '';
      expect(readRollText(text).rounded).toBe(answer.total);
      expect(await page.locator('#table-log li.entry[data-seq="2"] .badge.match').textContent()).toBe(
        '✓ matches #1',
      );
    }
    // Revealed: the secret is forgotten, and focus stays on the entry it was revealed from.
    expect(await kept()).toBeNull();
    expect(await first.evaluate(() => document.activeElement?.className)).toBe('revealed');
    expect(await first.locator('#table-log button.reveal').count()).toBe(0);
    expect(consoleErrors).toEqual([]);
  });
});

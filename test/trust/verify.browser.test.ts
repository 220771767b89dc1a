// verifyReceipt in a real browser (Debian's Chromium, headless): the built module, loaded as the
// client package ships it, verifies a receipt the service signed and refuses an edited one with
// WebCrypto alone, with no dependency. The page is served from memory on an https origin (WebCrypto needs a
// secure context); nothing reaches the network.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS_PREV, receiptHashSync } from '../../src/store/chain.js';
import { loadSigningKeys } from '../../src/trust/keys.js';
import { signReceipt } from '../../src/trust/sign.js';
import { type Chromium, chromiumFor, launchChromium } from '../support/chromium.js';

const ORIGIN = 'https://fairdice.test';
const root = fileURLToPath(new URL('../../', import.meta.url));

/** What the page may load: the client's built verifier and the one module it imports. */
const FILES: Record<string, string> = {
  '/verify.js': join(root, 'packages/client/dist/verify.js'),
  '/canonical.js': join(root, 'packages/client/dist/canonical.js'),
};
const PAGE = `<!doctype html><meta charset="utf-8"><title>verify</title>`;

const runs = chromiumFor('the browser receipt test');

describe.skipIf(!runs)('verifyReceipt in headless Chromium', () => {
  let browser: Chromium;
  let context: BrowserContext;
  const foreign: string[] = [];

  beforeAll(async () => {
    expect(existsSync(FILES['/verify.js']!), 'run `npm run build` first (npm test does)').toBe(true);
    browser = await launchChromium();
    context = browser.context;
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) {
        foreign.push(url.href);
        return route.abort();
      }
      if (url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: PAGE });
      const file = FILES[url.pathname];
      if (file === undefined) return route.fulfill({ status: 404, body: '' });
      return route.fulfill({ contentType: 'text/javascript', body: readFileSync(file, 'utf8') });
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('accepts a signed receipt and a chain, refuses an edited receipt and a hidden entry', async () => {
    const keys = await loadSigningKeys();
    const roll = {
      formula: '1d20',
      dice: [],
      modifier: 3,
      modifiers: [3],
      total: 3,
      advantageState: 'normal' as const,
    };
    const receipt = signReceipt(keys, { request: { formula: '1d20' }, roll });
    const first = signReceipt(keys, {
      request: { formula: '1d20' },
      roll,
      table: 'browsertablebrowsertable',
      seq: 1,
      prev: GENESIS_PREV,
    });
    const second = signReceipt(keys, {
      request: { formula: '1d20' },
      roll,
      table: 'browsertablebrowsertable',
      seq: 2,
      prev: receiptHashSync(first),
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${ORIGIN}/`);
    // A string, not a function: vitest would rewrite a function's import() for Node.
    const input = JSON.stringify({ receipt, jwks: keys.jwks, chain: [first, second] });
    const results = (await page.evaluate(`(async () => {
      const { receipt, jwks, chain } = ${input};
      const { verifyReceipt, verifyChain } = await import('/verify.js');
      const edited = { ...receipt, roll: { ...receipt.roll, total: receipt.roll.total + 1 } };
      return {
        secure: globalThis.isSecureContext,
        valid: await verifyReceipt(receipt, jwks),
        edited: await verifyReceipt(edited, jwks),
        chain: await verifyChain(chain, jwks),
        hidden: await verifyChain([chain[1]], jwks),
      };
    })()`)) as { secure: boolean; valid: unknown; edited: unknown; chain: unknown; hidden: unknown };
    expect(results.secure).toBe(true);
    expect(results.valid).toEqual({ valid: true, kid: keys.kid });
    expect(results.edited).toEqual({ valid: false, reason: 'signature does not match the receipt' });
    expect(results.chain).toEqual({ valid: true, entries: 2 });
    expect(results.hidden).toMatchObject({ valid: false, seq: 1 });
    expect(foreign).toEqual([]);
  });
});

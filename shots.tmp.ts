import { chromium } from 'playwright-core';
import { defaultConfig } from './src/config.js';
import { buildApp } from './src/http/app.js';
const CASES: [string, string, string?, string?][] = [
  ['d20', '1d20+5'], ['kh3', '4d6kh3+2'], ['arith', '(1d8+4)*2', '2, 1d4'], ['wod', '8d10>=8!>=10'], ['pool', '6d10>=8f1'],
  ['savage', '{1d8!,1d6!}kh1+2'], ['fate', '4dF+2'], ['adv', '2d20kh1+5', '', 'advantage'], ['reroll', '4d6r1kh3'], ['compound', '3d6!!'],
];
const app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 100000 }));
await app.listen({ host: '127.0.0.1', port: 0 });
const origin = `http://127.0.0.1:${(app.server.address() as any).port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const only = process.argv[2];
for (const [w, h] of [[1280, 900], [390, 844]]) {
  const page = await browser.newPage({ viewport: { width: w, height: h } });
  page.on('console', (m) => { if (m.type() === 'error') console.log('console', m.text()); });
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  await page.goto(origin + '/');
  await page.locator('body[data-ready="true"]').waitFor();
  for (const [name, formula, bonuses, adv] of CASES) {
    if (only && !name.startsWith(only)) continue;
    await page.locator('#formula').fill(formula);
    await page.locator('#bonuses').fill(bonuses ?? '');
    await page.locator(`input[name="advantage"][value="${adv ?? 'normal'}"]`).check();
    const stats = page.waitForResponse((r) => r.url().endsWith('/v1/stats'));
    await page.locator('#formula').press('Enter');
    await stats;
    await page.waitForTimeout(150);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.screenshot({ path: `/tmp/shot-${name}-${w}.png`, fullPage: true });
    console.log(name, w, 'overflow', overflow, await page.locator('#roll-text').textContent());
  }
  await page.close();
}
await browser.close();
await app.close();

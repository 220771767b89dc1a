// axe-core in a page of the browser tests: the violations of a scan, by rule and impact.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations axe-core finds in the page as it stands. */
export async function seriousViolations(
  page: Page,
): Promise<{ id: string; impact: string; nodes: number }[]> {
  // evaluate() runs through the debugging protocol, which the page's CSP does not govern.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    return (await axe.run()).violations.map(({ id, impact, nodes }) => ({ id, impact, nodes: nodes.length }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

// Debian's Chromium for the browser tests (playwright cannot download its own build here): the
// flags every one of them launches it with, the rule for when one may skip, and the launch itself.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

// Without the networking flags Chromium's own background connections fail on a closed network
// and show up as failed requests.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Whether Chromium is installed: off CI a browser test may skip, loudly, without it. */
export const chromiumPresent = existsSync(CHROMIUM);

/**
 * Whether the browser test `what` can run. Without Chromium it fails under CI=true (.ci/run
 * installs it) and otherwise prints a loud SKIPPING banner: a browser test never skips silently.
 */
export function chromiumFor(what: string): boolean {
  if (chromiumPresent) return true;
  if (process.env.CI === 'true') {
    throw new Error(`${CHROMIUM} is missing and CI=true: .ci/run must install chromium`);
  }
  console.warn(
    [
      '',
      '#'.repeat(78),
      `#  SKIPPING ${what}: ${CHROMIUM} is not installed.`,
      '#  Install it (apt-get install -y chromium) to run it; under CI=true it fails.',
      '#'.repeat(78),
      '',
    ].join('\n'),
  );
  return false;
}

export interface Chromium {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile in a temporary directory. */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<Chromium> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'fairdice-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

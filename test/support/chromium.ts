// Debian's Chromium for the browser tests (playwright cannot download its own build here), and
// the flags every one of them launches it with.
import { existsSync } from 'node:fs';

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

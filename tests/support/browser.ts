import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium; never a downloaded browser build. */
export const chromiumPath = process.env.SETPOINT_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots land here for a person to look at; the folder is not committed. */
export const screenshotDir = path.resolve('test-results/screenshots');

/** playwright-core gives every launch a fresh, empty profile directory of its own. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium; never a downloaded browser build. */
export const chromiumPath = process.env.SETPOINT_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots land here for a person to look at; the folder is not committed. */
export const screenshotDir = path.resolve('test-results/screenshots');

/**
 * playwright-core gives every launch a fresh, empty profile directory of its own. Headless, it hides
 * scrollbars; `desktopScrollbars` keeps them, 15 px each as on a Linux or Windows desktop, for layout tests
 * that must hold where scrollbars take room.
 */
export async function launchChromium(options: { desktopScrollbars?: boolean } = {}): Promise<Browser> {
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    ...(options.desktopScrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
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

/** Signs a browser context in through the login page, as a person does; the session cookie stays in it. */
export async function signIn(
  context: BrowserContext,
  serverUrl: string,
  username: string,
  password: string,
): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${serverUrl}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  await page.close();
}

/** How far a page scrolls sideways: its content is wider than the window when this is above 0. */
export const pageOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

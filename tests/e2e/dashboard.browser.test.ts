import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { connectSeedClient } from './dashboard-seed.js';

describeFull('dashboard in Chromium', 'Debian chromium (/usr/bin/chromium)', () => {
  let server: SpawnedServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-e2e-'));
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      {
        SETPOINT_LOG_LEVEL: 'warn',
      },
    );
    const client = await connectSeedClient(server.url, dataDir);
    browser = await launchChromium();
    // The API needs a bearer token; the browser sends one as an authenticating proxy would.
    context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${client.token}` } });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('loads the page, which calls the API and shows the server status', async () => {
    const page = await context.newPage();

    await page.goto(server.url);
    await page.getByTestId('server-database').waitFor();

    expect(await page.getByTestId('server-database').textContent()).toBe('sqlite');
    expect(await page.getByTestId('project-count').textContent()).toBe('0');
    expect(await page.title()).toBe('Setpoint');
    await page.screenshot({ path: path.join(screenshotDir, 'foundation-status.png') });
  });
});
